"""Secret redaction: the one rule every published byte passes (``docs/security.md``).

The package's parts: ``base`` (marker, rule, fold), ``builtin`` (evalsite's own rules), ``gitleaks``
(the vendored gitleaks rule set), ``normalise`` (the decoded view), ``core`` (:class:`Redactor`) and
``cut`` (:func:`safe_cut`).  The public names are importable from here.
"""

from generator.model.redaction.base import (
    MARKER_RE,
    Finding,
    Redacted,
    RedactionRule,
    check_rule,
    count_markers,
    fold,
    marker,
)
from generator.model.redaction.builtin import BUILTIN_RULES, ENV_KIND, HEX_KIND
from generator.model.redaction.core import Redactor, rule_ids
from generator.model.redaction.cut import safe_cut

__all__ = [
    "BUILTIN_RULES",
    "ENV_KIND",
    "HEX_KIND",
    "MARKER_RE",
    "Finding",
    "Redacted",
    "Redactor",
    "RedactionRule",
    "check_rule",
    "count_markers",
    "fold",
    "marker",
    "rule_ids",
    "safe_cut",
]
