"""Secret redaction: the one rule every published byte passes (``docs/security.md``).

A secret is replaced by ``[redacted:<kind> sha256:<12 hex>]``, the hex being the first 12 digits of
the SHA-256 of the secret's UTF-8 bytes, so two mentions of one value can be matched on the page
without the value being shown.  Pure: no I/O.

The rules are hand-written rather than taken from ``detect-secrets``: its plugins are line-oriented
*finders* (``PrivateKeyDetector`` matches only the ``BEGIN … PRIVATE KEY`` header line, the keyword
plugin needs a language-specific tokeniser and entropy filters), while a page needs the exact span
of every secret, across lines, in one fast pass over texts of up to 64 MiB.  All rules are compiled
into one alternation; each rule names the group that is the secret, so only that part is replaced
(``API_KEY=`` stays, its value goes).  A value that is already a marker never matches again, so
redacting a redacted text finds nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

__all__ = [
    "BUILTIN_RULES",
    "MARKER_RE",
    "Finding",
    "Redacted",
    "Redactor",
    "RedactionRule",
    "marker",
    "safe_cut",
]

#: One found secret: its kind and the 12-hex digest shown in its marker.
Finding = tuple[str, str]


class _Lazy:
    """A module-level regular expression compiled when first used, so importing compiles nothing.

    The first use also puts the compiled pattern in its global, so later uses cost nothing extra.
    """

    __slots__ = ("_name", "_args", "_compiled")

    def __init__(self, name: str, pattern: str, flags: int = 0) -> None:
        self._name, self._args = name, (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, attribute: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
            globals()[self._name] = compiled
        return getattr(compiled, attribute)


def _lazy(name: str, pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _Lazy(name, pattern, flags))


MARKER_RE = _lazy("MARKER_RE", r"\[redacted:([a-z0-9][a-z0-9-]{0,63}) sha256:([0-9a-f]{12})\]")
_KIND_RE = _lazy("_KIND_RE", r"^[a-z0-9][a-z0-9-]{0,63}$")
_NOT_MARKER = r"(?!\[redacted:)"
# Quotes may be escaped (``\"``): a tool call's arguments are shown as JSON text.


def marker(kind: str, secret: str) -> str:
    digest = hashlib.sha256(secret.encode("utf-8", errors="surrogatepass")).hexdigest()[:12]
    return f"[redacted:{kind} sha256:{digest}]"


@dataclass(frozen=True, slots=True)
class RedactionRule:
    """A kind and a regex; the secret is the group named ``s`` when there is one, else the whole match.

    Built-in rules begin with a literal (so the regex engine can skip ahead fast); *not_after* lists
    the characters that may not precede a match, and *lower* rules are written in lower case and run
    on the lower-cased text (case-insensitive, same speed).  *prefix* is that literal: every match
    starts with it, so the rule is only tried where it occurs (and *not_after* allows a match), and a
    text where it matches at none of those places is not scanned by the rule at all.
    """

    kind: str
    regex: str
    not_after: str = ""
    lower: bool = False
    prefix: str = ""


_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_TOKEN_START = _ALNUM + "_-"
_VALUE = r"[^\s\"'`,;&<>)}\]\\]"  # a backslash ends a value: ``\"`` closes it inside JSON text

#: Built-in rules, most specific first (where two rules match at one position, the first wins).
BUILTIN_RULES: tuple[RedactionRule, ...] = (
    RedactionRule(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,65536}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]*)",
        prefix="-----BEGIN ",
    ),
    RedactionRule("anthropic-key", r"sk-ant-[A-Za-z0-9_-]{16,}", _TOKEN_START, prefix="sk-ant-"),
    RedactionRule("openai-key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{16,}", _TOKEN_START, prefix="sk-"),
    RedactionRule("openai-key", r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}", _TOKEN_START, prefix="sk-"),
    RedactionRule("sk-key", r"sk-[A-Za-z0-9_-]{20,}", _TOKEN_START, prefix="sk-"),
    RedactionRule(
        "aws-access-key-id",
        r"A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)[A-Z0-9]{16,}",
        _ALNUM,
        prefix="A",
    ),
    RedactionRule(
        "aws-secret-key",
        r"aws[_.-]?(?:secret[_.-]?(?:access[_.-]?)?key|secret)(?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?"
        + _NOT_MARKER
        + r"(?P<s>[a-z0-9/+=]{40})(?![a-z0-9/+=])",
        _ALNUM,
        lower=True,
        prefix="aws",
    ),
    RedactionRule("github-token", r"gh[pousr]_[A-Za-z0-9]{36,255}", _ALNUM + "_", prefix="gh"),
    RedactionRule("github-token", r"github_pat_[A-Za-z0-9_]{22,255}", _ALNUM + "_", prefix="github_pat_"),
    RedactionRule("slack-token", r"xox[abposre]-[A-Za-z0-9-]{10,250}", _ALNUM + "_", prefix="xox"),
    RedactionRule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
        prefix="https://hooks.slack.com/",
    ),
    RedactionRule("google-api-key", r"AIza[0-9A-Za-z_-]{35,}", _TOKEN_START, prefix="AIza"),
    RedactionRule(
        "authorization",
        r"authorization(?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?(?:(?:bearer|basic|token|digest)\s+)?"
        + _NOT_MARKER
        + r"(?!(?:bearer|basic|token|digest)\s)(?P<s>[a-z0-9._~+/=-]{6,})",
        _TOKEN_START,
        lower=True,
        prefix="authorization",
    ),
    RedactionRule(
        "bearer-token",
        r"bearer\s+" + _NOT_MARKER + r"(?P<s>[a-z0-9._~+/-]{8,}=*)",
        _TOKEN_START,
        lower=True,
        prefix="bearer",
    ),
    RedactionRule(
        "url-password",
        r"://[^\s:/@\"'<>\[\]]{1,256}:" + _NOT_MARKER + r"(?P<s>[^\s@/\"'<>]{1,256})@",
        prefix="://",
    ),
)

# Environment-style assignments (``GITHUB_TOKEN=…``, ``"db_password": "…"``): a name segment that is
# one of these words (case-insensitive), then ``=``, ``:`` or ``:=``, then a value that is not a
# number, a boolean or null, nor already a marker.
ENV_KIND = "env-secret"
_ENV_WORD = _lazy("_ENV_WORD", r"api_?key|key|token|secret|passwd|password|passphrase|pass_phrase|credential")
_ENV_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_ENV_ASSIGN = _lazy(
    "_ENV_ASSIGN",
    r"(?:\\?[\"'])?[ \t]*(?::=|:|=)[ \t]*(?:\\?[\"'])?"
    + _NOT_MARKER
    + r"(?![0-9.]+(?!"
    + _VALUE
    + r"))(?!(?:true|false|null|none|nil|undefined)(?![A-Za-z0-9]))(?P<s>"
    + _VALUE
    + r"{4,4096})",
    re.IGNORECASE,
)


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


# ``sk-`` keys are case-sensitive and may not follow a token character, so ``task-`` does not count.
_SK_START = _lazy("_SK_START", r"(?<![A-Za-z0-9_-])sk-")


# Letters a case-insensitive regex matches to ASCII ones that ``str.lower`` keeps apart (Kelvin's K
# lowers to ``k`` already; ``İ`` lowers to ``i`` and a combining dot).
_FOLD = {0x131: "i", 0x17F: "s"}


_ANY_LITERAL = _lazy("_ANY_LITERAL", "|".join(re.escape(literal) for literal in _LITERALS))  # on lower-cased text


def _may_hold_secret(text: str) -> bool:
    low = text.lower()
    if _ANY_LITERAL.search(low) is not None:
        return True
    if ("\u0131" in low or "\u017f" in low) and _ANY_LITERAL.search(low.translate(_FOLD)) is not None:
        return True
    return "sk-" in text and _SK_START.search(text) is not None


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


# ``_ENV_WORD`` by its words: each alternative is a plain word, no two of them match at one position, and
# ``api_key``/``apikey`` end in ``key`` and the four ``pass…`` words begin with ``pass``.
_ENV_PLAIN = ("token", "secret", "credential")
_ENV_PASS = ("passwd", "password", "passphrase", "pass_phrase")
# The four as one regex with the literal prefix ``pass`` (which the engine searches fast); no two of them
# match at one position and none holds ``pass`` again, so ``finditer`` finds each occurrence of each.
_ENV_PASS_WORD = _lazy("_ENV_PASS_WORD", "pass(?:" + "|".join(word[4:] for word in _ENV_PASS) + ")")


def _env_words(source: str) -> list[tuple[int, int]]:
    """The spans of ``_ENV_WORD.finditer(source)``, by substring search (several times faster).

    Every position where the alternation matches, with the one word matching there, is found with
    ``str.find`` (the ``pass`` words with one prefixed regex); then, as ``finditer`` does, the
    leftmost is taken and each one starting inside a taken match is passed over.
    """
    found: list[tuple[int, int]] = []
    for word in _ENV_PLAIN:
        at = source.find(word)
        while at >= 0:
            found.append((at, at + len(word)))
            at = source.find(word, at + 1)
    at = source.find("key")
    while at >= 0:
        found.append((at, at + 3))
        if at >= 4 and source.startswith("api_", at - 4):
            found.append((at - 4, at + 3))
        elif at >= 3 and source.startswith("api", at - 3):
            found.append((at - 3, at + 3))
        at = source.find("key", at + 1)
    # the four pass words: one C scan (a page holds "pass" dozens of times, as in class="pass")
    found.extend(match.span() for match in _ENV_PASS_WORD.finditer(source))
    found.sort()
    spans: list[tuple[int, int]] = []
    done = 0
    for start, end in found:
        if start >= done:
            spans.append((start, end))
            done = end
    return spans


# No built-in rule matches fewer characters (``key=abcd``, ``s://a:b@``); shorter texts skip the scan.
# A config pattern may match shorter secrets, so the shortcut applies only without extra rules.
_SHORTEST = 8


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    found: tuple[Finding, ...]  # in order of appearance, repeats kept


def check_rule(kind: Any, regex: Any) -> RedactionRule:
    """A config rule, validated; raises ValueError with the reason."""
    if not isinstance(kind, str) or not _KIND_RE.match(kind):
        raise ValueError(f"kind {kind!r} must be 1-64 characters of a-z, 0-9 and '-'")
    if not isinstance(regex, str) or not regex:
        raise ValueError(f"pattern {kind!r}: regex must be a non-empty string")
    if len(regex) > 2000:
        raise ValueError(f"pattern {kind!r}: regex is longer than 2000 characters")
    try:
        compiled = re.compile(regex)
    except re.error as error:
        raise ValueError(f"pattern {kind!r}: invalid regex ({error})") from None
    if compiled.match(""):
        raise ValueError(f"pattern {kind!r}: regex matches the empty string")
    if "(?P<q" in regex or any(name.startswith(("r", "s", "q")) and name[1:].isdigit() for name in compiled.groupindex):
        raise ValueError(f"pattern {kind!r}: group names r<N>, s<N> and q<N> are reserved")
    return RedactionRule(kind, regex)


@dataclass(frozen=True)
class Redactor:
    """The site's redaction: on unless the config says ``redact: false``; extra rules from the config."""

    enabled: bool = True
    extra: tuple[RedactionRule, ...] = ()
    _compiled: tuple[tuple[RedactionRule, re.Pattern[str], re.Pattern[str]], ...] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        compiled = []
        for rule in (*self.extra, *BUILTIN_RULES):
            plain = re.compile(rule.regex)
            folded = re.compile(rule.regex, re.IGNORECASE) if rule.lower else plain
            compiled.append((rule, plain, folded))
        object.__setattr__(self, "_compiled", tuple(compiled))

    def _spans(self, text: str) -> list[tuple[int, int, int, int, int, str]]:
        """Candidate (start, order, end, secret start, secret end, kind) of every rule.

        A rule is not run when it matches at none of the places its literal *prefix* occurs where a match
        could start (exact: every match starts with the prefix); env-style names are found by substring
        search (:func:`_env_words`).
        """
        low = text.lower()
        same = len(low) == len(text)  # lower() kept every position: a match in *low* spans *text* too
        spans: list[tuple[int, int, int, int, int, str]] = []
        gates: dict[tuple[str, str, bool], list[int] | None] = {}
        for order, (rule, plain, folded) in enumerate(self._compiled):
            on_low = rule.lower and same
            source, pattern = (low, plain) if on_low else (text, folded)
            # a case-insensitive regex on the original text (lower() moved positions) may match its prefix
            # in letters lower() does not map to it (the long s, the Kelvin sign): no shortcut then
            if rule.prefix and (on_low or not rule.lower):
                key = (rule.prefix, rule.not_after, on_low)
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
        if not same:
            return spans  # positions in the lower-cased text would not map; the rules above still ran
        order = len(self._compiled)
        specific = {span[0] for span in spans}  # a value that is itself a known token keeps its own kind
        source = low
        for start, end in _env_words(source):
            if start and source[start - 1].isalnum():
                continue
            if end < len(source) and source[end] == "s":
                end += 1
            if end < len(source) and source[end].isalnum():
                continue
            while end < len(source) and source[end] in _ENV_NAME_CHARS:
                end += 1
            assign = _ENV_ASSIGN.match(text, end)
            if assign is not None and assign.start("s") not in specific:
                spans.append((start, order, assign.end(), assign.start("s"), assign.end("s"), ENV_KIND))
        return spans

    def redact(self, text: str) -> Redacted:
        """*text* with every secret replaced by its marker, and what was found."""
        if not self.enabled or not text:
            return Redacted(text, ())
        if not self.extra and (len(text) < _SHORTEST or not _may_hold_secret(text)):
            return Redacted(text, ())
        return self._replaced(text)

    def _replaced(self, text: str) -> Redacted:
        """:meth:`redact` once the pre-check has passed (each byte is pre-checked once, not twice)."""
        spans = self._spans(text)
        if not spans:
            return Redacted(text, ())
        spans.sort()
        pieces: list[str] = []
        found: list[Finding] = []
        done = 0
        for start, _order, end, s_start, s_end, kind in spans:
            if start < done:
                continue  # overlaps a secret already replaced
            secret = text[s_start:s_end]
            shown = marker(kind, secret)
            pieces.append(text[done:s_start])
            pieces.append(shown)
            found.append((kind, shown[-13:-1]))
            done = s_end
            if end > s_end:
                pieces.append(text[s_end:end])
                done = end
        pieces.append(text[done:])
        return Redacted("".join(pieces), tuple(found))

    def may_hold_secret(self, text: str) -> bool:
        """False only when no rule can match anywhere in *text* (a cheap, exact pre-check)."""
        return self.enabled and (bool(self.extra) or (len(text) >= _SHORTEST and _may_hold_secret(text)))

    def text(self, text: str) -> str:
        if not self.may_hold_secret(text):
            return text  # the common case, without building a result
        return self._replaced(text).text if text else text

    def final_text(self, text: str) -> str:
        """:meth:`text` for a whole page or file: the same result, without the literal pre-check.

        A page's text nearly always holds a literal ("token" in its labels), so the pre-check would
        only add a scan of every byte before the rules scan it again.
        """
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


def count_markers(texts: Iterable[str]) -> dict[str, set[str]]:
    """Distinct marker digests per kind in *texts* (how a build counts what it redacted)."""
    seen: dict[str, set[str]] = {}
    for text in texts:
        if "[redacted:" not in text:
            continue
        for kind, digest in MARKER_RE.findall(text):
            seen.setdefault(kind, set()).add(digest)
    return seen


# --------------------------------------------------------------------------- cutting text safely

#: Characters of a token-like run: a cut inside one (8 or more characters) backs off to its start.
_TOKEN_CHARS = frozenset(_ALNUM + "_+/=-")
_TOKEN_RUN = 8
#: The longest token-like run a cut backs off from (a secret is shorter; a longer run is data).
_RUN_REACH = 256
#: The text either side of a cut that the built-in rules are run on (every match but a PEM block
#: is shorter); a PEM block is found by its BEGIN line up to 66,000 characters back.
_WINDOW = 4608  # an env-style value (4,096) and its name
_PEM_REACH = 66_000
_PEM_BEGIN = _lazy("_PEM_BEGIN", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_DEFAULT: list[Redactor] = []


def safe_cut(text: str, at: int) -> int:
    """Where to cut *text* near *at* so that the kept part ``text[:cut]`` holds no part of a secret.

    A text is often cut (to a field's or a step's budget) before it is redacted, so a secret that
    straddles the cut would show its first part, which no rule then recognises.  The cut moves back
    (never forward) while it falls after the start of a secret a built-in rule finds in the full text
    and before the end of that rule's match (to the secret's start, so ``API_KEY=`` may stay), inside
    a redaction marker, or inside a run of 8 to 256 token characters ``[A-Za-z0-9_+/=-]`` (a secret
    of a rule the cutter does not know, such as a config pattern; a longer run is data).
    Pure; ``docs/security.md``.
    """
    if at <= 0 or at >= len(text):
        return max(0, min(at, len(text)))
    if not _DEFAULT:
        _DEFAULT.append(Redactor())
    low = max(0, at - _WINDOW)
    window = text[low : at + _WINDOW]
    # (secret start, match end): a cut after a secret's start but before its match ends (the ``@``
    # after a URL password) would keep the secret without what makes a rule see it
    found = _DEFAULT[0]._spans(window) if _may_hold_secret(window) else []
    spans = [(s_start + low, end + low) for _, _, end, s_start, _, _ in found]
    spans += [(m.start() + low, m.end() + low) for m in MARKER_RE.finditer(window)]
    begin = text.rfind("-----BEGIN", max(0, at - _PEM_REACH), at)
    if begin >= 0 and _PEM_BEGIN.match(text, begin) and text.find("-----END", begin, at) < 0:
        spans.append((begin, len(text)))  # a private key block open at the cut
    cut = at
    moved = True
    while moved and cut > 0:
        moved = False
        for start, end in spans:
            if start < cut < end:
                cut, moved = start, True
        if 0 < cut < len(text) and text[cut - 1] in _TOKEN_CHARS and text[cut] in _TOKEN_CHARS:
            start = cut
            while start > 0 and cut - start <= _RUN_REACH and text[start - 1] in _TOKEN_CHARS:
                start -= 1
            end = cut
            while end < len(text) and end - start <= _RUN_REACH and text[end] in _TOKEN_CHARS:
                end += 1
            if _TOKEN_RUN <= end - start <= _RUN_REACH:  # a longer run is data, not a secret
                cut, moved = start, True
    return cut
