"""The site's redaction (``docs/security.md``, ``docs/transcripts.md``): the one rule every published byte passes.

A secret is replaced by ``[redacted:<kind> sha256:<12 hex>]``, the hex being the first 12 digits of
the SHA-256 of the secret's UTF-8 bytes, so two mentions of one value can be matched on the page
without the value being shown.  Pure: no I/O but reading the vendored rule file once.

Three rule sets run on a text: evalsite's own exact-span rules (``builtin.py``: token formats,
secret-named assignments, assigned hex secrets), gitleaks' rules (``gitleaks.py``, vendored data) and
config patterns; then the same rules run on a decoded view of the text near every escape, ``%XX``,
zero-width character or line break inside a token (``normalise.py``), and what they find there is
mapped back, escapes included.  Where candidates overlap, the lower order wins: config patterns, own
token rules, gitleaks' specific rules, secret-named assignments, gitleaks' generic rule, hex secrets.
A candidate overlapping a marker is dropped, so redacting a redacted text finds nothing.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from generator.model.redaction import builtin, normalise
from generator.model.redaction.base import MARKER_RE, Finding, Redacted, RedactionRule, Span, fold, lazy, marker
from generator.model.redaction.gitleaks import Keywords, RuleSet, rule_set

# Every built-in match contains one of these literals once lower-cased: a text without any of them
# cannot hold a secret, so a few substring searches (fast, C) reject it instead of one regex scan per
# rule.  Kept next to the rules; tests/transcripts/test_redaction.py checks every rule's planted
# secrets pass this filter.
_LITERALS = (
    "-----begin",
    "akia",
    "asia",
    "agpa",
    "aida",
    "aroa",
    "aipa",
    "anpa",
    "anva",
    "abia",
    "acca",
    "aws",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xox",
    "whsec_",
    "aiza",
    "authorization",
    "bearer",
    "://",
    "key",
    "token",
    "secret",
    "passw",
    "passph",
    "pass_ph",
    "credential",
)
#: The orders of the later rule sets (lower wins an overlap).
_GITLEAKS = 1000
_LAST = {"generic-api-key": 5001}
_ENV_ORDER = 5000
_HEX_ORDER = 5002
#: How far around an edit of the decoded view the rules run again.
_REACH = 512
#: Added to the order of what the decoded view finds (twice for the view that joins lines): a secret
#: found in the text itself wins an overlap, then one found without joining lines (a token followed by
#: a line break and a word is not extended by that word).
_DECODED = 10_000
_LONG = 1 << 16  # a longer text is not pre-checked (it nearly always holds a keyword)
_HEX_ANY = lazy(globals(), "_HEX_ANY", r"[0-9a-fA-F]{40}")


#: Occurrences of a rule's prefix looked at before the rule simply runs over the whole text.
_PREFIX_LOOKS = 64


def _starts(source: str, text: str, prefix: str, not_after: str) -> list[int] | None:
    """Where in *source* a match of a rule with this *prefix* may start: each occurrence of the prefix
    not after a *not_after* character of *text* (the rule's own check); None past ``_PREFIX_LOOKS``
    occurrences.  Substring search."""
    found: list[int] = []
    at = source.find(prefix)
    looks = 0
    while at >= 0:
        looks += 1
        if looks > _PREFIX_LOOKS:
            return None
        if not (at and not_after and text[at - 1] in not_after):
            found.append(at)
        at = source.find(prefix, at + 1)
    return found


#: Every rule id a config may switch off: evalsite's kinds and gitleaks' ids.
def rule_ids() -> frozenset[str]:
    own = {rule.kind for rule in builtin.BUILTIN_RULES} | {builtin.ENV_KIND, builtin.HEX_KIND}
    return frozenset(own) | rule_set().ids


@dataclass(frozen=True)
class Redactor:
    """The site's redaction: on unless the config says ``redact: false``; extra rules, switched-off
    rules (*disable*: ids) and allowed values (*allow*: regexes a whole secret may match) from the config."""

    enabled: bool = True
    extra: tuple[RedactionRule, ...] = ()
    disable: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    _compiled: tuple[tuple[RedactionRule, re.Pattern[str]], ...] = field(
        init=False, repr=False, compare=False, hash=False
    )
    _loaded: list[tuple[RuleSet, Keywords]] = field(init=False, repr=False, compare=False, hash=False)
    _allowed: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        off = frozenset(self.disable)
        rules = tuple(
            rule for rule in (*self.extra, *builtin.BUILTIN_RULES) if rule.kind not in off or rule in self.extra
        )
        object.__setattr__(self, "_compiled", tuple((rule, re.compile(rule.regex)) for rule in rules))
        object.__setattr__(self, "_loaded", [])  # the rule file is read on first use, not at import
        object.__setattr__(self, "_allowed", tuple(re.compile(item) for item in self.allow))

    @property
    def _rules(self) -> RuleSet:
        return self._load()[0]

    @property
    def _keywords(self) -> Keywords:
        return self._load()[1]

    def _load(self) -> tuple[RuleSet, Keywords]:
        if not self._loaded:
            rules = rule_set(frozenset(self.disable))
            words = set(rules.keywords) | set(_LITERALS) | set(builtin.WORDS) | {"sk-"}
            self._loaded.append((rules, _keywords(frozenset(words))))
        return self._loaded[0]

    # ------------------------------------------------------------------ finding

    def _raw(self, text: str, low: str) -> list[Span]:
        """Candidates of every rule in *text* (*low*: its :func:`fold`), without the decoded view."""
        spans: list[Span] = []
        gates: dict[tuple[str, str, bool], list[int] | None] = {}
        for order, (rule, pattern) in enumerate(self._compiled):
            source = low if rule.lower else text
            if rule.prefix:
                key = (rule.prefix, rule.not_after, rule.lower)
                if key in gates:
                    starts = gates[key]
                else:
                    starts = gates[key] = _starts(source, text, rule.prefix, rule.not_after)
                # every match ``finditer`` keeps starts at one of these, and matches there as match() does
                if starts is not None and not any(pattern.match(source, at) for at in starts):
                    continue
            for match in pattern.finditer(source):
                start = match.start()
                if start and rule.not_after and text[start - 1] in rule.not_after:
                    continue
                if match.end() == start:
                    continue
                s_start, s_end = match.span("s") if "s" in pattern.groupindex else match.span()
                spans.append((start, order, match.end(), s_start, s_end, rule.kind))
        found = self._keywords.find(low)
        spans += self._rules.spans(text, found, _GITLEAKS, _LAST)
        off = self.disable
        if builtin.ENV_KIND not in off:
            spans += builtin.env_spans(text, low, found, _ENV_ORDER, self._rules.allowed)
        if builtin.HEX_KIND not in off:
            spans += builtin.hex_spans(text, low, _HEX_ORDER)
        return spans

    def _spans(self, text: str) -> list[Span]:
        """Every candidate: in the text, and in its decoded view near each edit (mapped back)."""
        spans = self._raw(text, fold(text))
        found = normalise.sites(text)
        for join, rank in ((False, _DECODED), (True, 2 * _DECODED)):
            view = normalise.decoded(text, join, found) if found else None
            if view is None:
                continue
            for low_end, high_end in normalise.windows(view, _REACH):
                part = view.text[low_end:high_end]
                for start, order, end, s_start, s_end, kind in self._raw(part, fold(part)):
                    # the match, or the name it ends (up to 64 characters before it), holds or borders an edit
                    if view.touches(low_end + max(0, min(start, s_start) - 64), low_end + max(end, s_end)):
                        first, last = view.back(low_end + s_start, low_end + s_end)
                        spans.append((first, order + rank, last, first, last, kind))
        return spans

    def _chosen(self, text: str, spans: list[Span]) -> list[tuple[int, int, str]]:
        """The secrets to replace: by order, each that overlaps none taken before, a marker or an allowed value."""
        taken: list[tuple[int, int, str]] = []
        starts: list[int] = []
        markers = [m.span() for m in MARKER_RE.finditer(text)] if "[redacted:" in text else []
        for _start, _order, _end, s_start, s_end, kind in sorted(spans, key=lambda s: (s[1], s[3], -s[4])):
            if s_end <= s_start or any(a < s_end and s_start < b for a, b in markers):
                continue
            if kind in self.disable and kind not in {rule.kind for rule in self.extra}:
                continue
            if self._allowed and any(p.fullmatch(text[s_start:s_end]) for p in self._allowed):
                continue
            at = bisect.bisect_left(starts, s_start)
            low = at - 1 if at > 0 and taken[at - 1][1] > s_start else at
            high = at
            while high < len(taken) and taken[high][0] < s_end:
                high += 1
            if low < high:
                # a decoded token that runs on past what only a name = value rule found in the text (a token
                # broken by a line break, whose first part a name rule took): the union is replaced
                if _order < _DECODED or kind in _VALUE_KINDS or any(t[2] not in _VALUE_KINDS for t in taken[low:high]):
                    continue
                s_start, s_end, kind = min(s_start, taken[low][0]), max(s_end, taken[high - 1][1]), taken[low][2]
                del starts[low:high], taken[low:high]
                at = low
            starts.insert(at, s_start)
            taken.insert(at, (s_start, s_end, kind))
        return taken

    # ------------------------------------------------------------------ public

    def redact(self, text: str) -> Redacted:
        """*text* with every secret replaced by its marker, and what was found."""
        if not self.may_hold_secret(text):
            return Redacted(text, ())
        return self._replaced(text)

    def _replaced(self, text: str) -> Redacted:
        """:meth:`redact` once the pre-check has passed (each byte is pre-checked once, not twice)."""
        spans = self._spans(text)
        if not spans:
            return Redacted(text, ())
        pieces: list[str] = []
        found: list[Finding] = []
        done = 0
        for s_start, s_end, kind in self._chosen(text, spans):
            shown = marker(kind, text[s_start:s_end])
            pieces.append(text[done:s_start])
            pieces.append(shown)
            found.append((kind, shown[-13:-1]))
            done = s_end
        pieces.append(text[done:])
        return Redacted("".join(pieces), tuple(found))

    def may_hold_secret(self, text: str) -> bool:
        """False only when no rule can match anywhere in *text* (a cheap, exact pre-check)."""
        if not self.enabled or not text:
            return False
        if self.extra or len(text) > _LONG:
            return True
        if len(text) < self._rules.shortest and len(text) < _SHORTEST:
            return False
        return (
            self._keywords.any(fold(text))
            or normalise.SITES.search(text) is not None
            or _HEX_ANY.search(text) is not None
        )

    def text(self, text: str) -> str:
        if not self.may_hold_secret(text):
            return text  # the common case, without building a result
        return self._replaced(text).text

    def final_text(self, text: str) -> str:
        """:meth:`text` for a whole page or file: the same result, without the pre-check."""
        if not self.enabled or not text:
            return text
        return self._replaced(text).text

    def value(self, value: Any) -> Any:
        """A JSON-like value with every string (keys too) redacted; other values as they are."""
        if not self.enabled:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.value(k) if isinstance(k, str) else k: self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value


_SHORTEST = 8
#: Kinds whose secret is "whatever value follows a name": found in a decoded view, they never extend a
#: secret found in the text (a joined line would add the next line's first word to it).
_VALUE_KINDS = frozenset(
    ("env-secret", "generic-api-key", "hex-secret", "aws-secret-key", "authorization", "bearer-token", "url-password")
)
_KEYWORDS: dict[frozenset[str], Keywords] = {}


def _keywords(words: frozenset[str]) -> Keywords:
    """One keyword finder per set of words (its line cache is shared by the redactors using it)."""
    found = _KEYWORDS.get(words)
    if found is None:
        found = _KEYWORDS[words] = Keywords(set(words))
    return found
