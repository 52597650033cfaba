"""gitleaks' rule set (``generator/model/rules/gitleaks.toml``, vendored data, MIT) run by Python ``re``.

Only the rule data is vendored (``rules/README.md`` names the release and commit).  At load time each
Go RE2 regex is translated to Python (:func:`to_python`): a ``(?i)`` in the middle of a pattern becomes
a scoped ``(?i:...)`` group to the end of its group (RE2's meaning), ``\\z`` becomes ``\\Z``, POSIX
classes are spelled out and a ``[`` inside a class is escaped.  A rule that still does not compile (or
only with a warning) is skipped and listed in :data:`RuleSet.skipped` (``tests/redaction`` counts
them).  Rules are compiled with ``re.ASCII``: ``\\w``, ``\\d``, ``\\s`` and ``\\b`` mean what they mean in
RE2.

As in gitleaks, a rule runs only when one of its ``keywords`` occurs in the text (ASCII
case-insensitive), its secret is ``secretGroup`` or the first non-empty group, a secret whose Shannon
entropy is not above the rule's ``entropy`` is dropped, and the global and the rule's allowlists
(regexes on the secret, the match or the line; stopwords in the secret) drop what they allow.  Paths
and commits do not exist here: path-only rules are skipped and a path condition never holds.

Speed: keywords are found in one pass (:class:`_Keywords`, a regex whose branches begin at each
keyword's rarest character), and a rule's regex runs only in windows around its keywords'
occurrences: from ``lead`` characters before one (the widest a match can reach before its first
literal) to the rule's widest match after it; a match found there is extended without the window's end.
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RULES_FILE = Path(__file__).resolve().parent.parent / "rules" / "gitleaks.toml"

#: Characters from common to rare in pages and transcripts: a keyword's anchor is its rarest one.
_COMMON = " <>=\"/etaoinsrlcd0123456789.-hmupfgwybv,;:_kxjq()[]{}'z~+|#@!$%^&*?`\\"
_RANK = {c: i for i, c in enumerate(_COMMON)}
#: Widest reach of a rule's match before a keyword (and after one, for unbounded patterns).
_MAX_LEAD = 256
_MAX_TAIL = 512
#: The same for an unbounded pattern that runs across lines to a closing marker (a private key's
#: ``-----END ... KEY-----``): a 4096-bit key or a PGP key block is several kilobytes, and a match
#: that cannot close inside its window is not found at all.
_MAX_LONG_TAIL = 64 * 1024
_ANY_CHARACTER = re.compile(r"\[\\s\\S|\[\\S\\s|\(\?s")
_NAME_RUN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
Span = tuple[int, int, int, int, int, str]
_SEEN = 4096  # targets an allowlist remembers (then it starts again), each of at most
_SEEN_SIZE = 1024  # characters


def entropy(text: str) -> float:
    """Shannon entropy in bits per character (gitleaks' ``shannonEntropy``); remembered for the last
    4,096 values of at most 256 characters (a page repeats its secrets and candidates in every table
    and view of them)."""
    return _remembered_entropy(text) if len(text) <= 256 else _entropy(text)


def _entropy(text: str) -> float:
    if not text:
        return 0.0
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in Counter(text).values())


_remembered_entropy = functools.lru_cache(maxsize=4096)(_entropy)


def _class_body(pattern: str, at: int) -> tuple[str, int]:
    """The character class starting at *at* (``[``), translated, and the index after its ``]``."""
    out = ["["]
    i = at + 1
    if i < len(pattern) and pattern[i] == "^":
        out.append("^")
        i += 1
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), i + 1
        first = False
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "[" and pattern.startswith("[:", i):
            end = pattern.find(":]", i)
            name = pattern[i + 2 : end]
            posix = {"alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "upper": "A-Z", "lower": "a-z"}
            if end < 0 or name not in posix:
                raise ValueError(f"unsupported class [:{name}:]")
            out.append(posix[name])
            i = end + 2
            continue
        if c in "[&~|" or (c == "-" and pattern.startswith("--", i)):
            out.append("\\" + c)  # Python warns on a possible nested set or set operation
        else:
            out.append(c)
        i += 1
    raise ValueError("unterminated character class")


def to_python(pattern: str) -> str:
    """A Go RE2 pattern as a Python ``re`` pattern with the same matches (see the module docstring)."""
    out: list[str] = []
    scoped = [False]  # per open group: a mid-pattern (?i) is open in it
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            pair = pattern[i : i + 2]
            out.append("\\Z" if pair == "\\z" else pair)
            i += 2
        elif c == "[":
            body, i = _class_body(pattern, i)
            out.append(body)
        elif pattern.startswith("(?i)", i):
            if i == 0:
                out.append("(?i)")
            elif not scoped[-1]:
                out.append("(?i:")
                scoped[-1] = True
            i += 4
        elif c == "(":
            if pattern.startswith("(?", i) and not pattern.startswith(("(?:", "(?P<", "(?i:", "(?-i:", "(?s:"), i):
                raise ValueError(f"unsupported group at {i}")
            scoped.append(False)
            out.append(c)
            i += 1
        elif c == ")":
            if scoped.pop():
                out.append(")")
            out.append(")")
            i += 1
        elif c == "|" and scoped[-1]:
            out.append(")|(?i:")
            i += 1
        else:
            out.append(c)
            i += 1
    if scoped[-1]:
        out.append(")")
    return "".join(out)


def _compile(pattern: str) -> re.Pattern[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return re.compile(to_python(pattern), re.ASCII)


@dataclass(frozen=True, slots=True)
class Allowlist:
    target: str  # secret, match or line
    regexes: tuple[re.Pattern[str], ...]
    stopwords: re.Pattern[str] | None  # searches for any stopword (:func:`any_word`), None without any
    both: bool  # condition AND (with a path or commit condition, which never holds here)
    never: bool  # AND with paths or commits: never allows
    #: target -> whether a regex finds it, for the last few thousand short targets: a page repeats a value in
    #: every table and view of it, and a search of generic-api-key's match allowlist (a case-insensitive
    #: alternation with lazy runs) costs about 100 us on a long match
    seen: dict[str, bool] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def allows(self, secret: str, match: str, line: str) -> bool:
        if self.never:
            return False
        if self.regexes:
            target = match if self.target == "match" else line if self.target == "line" else secret
            regex = self.seen.get(target) if len(target) <= _SEEN_SIZE else None
            if regex is None:
                regex = any(r.search(target) for r in self.regexes)
                if len(target) <= _SEEN_SIZE:  # a line can be a megabyte of chart data: never kept
                    if len(self.seen) >= _SEEN:
                        self.seen.clear()
                    self.seen[target] = regex
            if regex != self.both:  # OR and a regex allows; AND and none does
                return regex
        # OR and no regex allowed (or none given); AND and a regex allowed (or none given)
        if self.stopwords is None:
            return self.both
        return self.stopwords.search(secret.lower()) is not None


def any_word(words: Iterable[str]) -> re.Pattern[str] | None:
    """A regex whose ``search`` finds a text holding any of *words* (None for no words): the words as a
    trie, so the engine follows one path per position instead of trying each of gitleaks' 1,446 stopwords
    (``any(word in text ...)`` took half the redaction time of a site full of planted secrets)."""
    trie: dict[str, Any] = {}
    for word in set(words):
        node = trie
        for character in word:
            node = node.setdefault(character, {})
        node[""] = {}
    if not trie:
        return None

    def branch(node: dict[str, Any]) -> str:
        if "" in node:
            return ""  # a word ends here: what a longer word adds does not change whether one is found
        parts = [re.escape(character) + branch(node[character]) for character in sorted(node)]
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"

    return re.compile(branch(trie))


def _allowlist(data: dict[str, Any]) -> Allowlist:
    both = str(data.get("condition", "OR")).upper() == "AND"
    return Allowlist(
        target=str(data.get("regexTarget", "secret")),
        regexes=tuple(_compile(r) for r in data.get("regexes", ())),
        stopwords=any_word(str(w).lower() for w in data.get("stopwords", ())),
        both=both,
        never=both and bool(data.get("paths") or data.get("commits")),
    )


@dataclass(frozen=True, slots=True)
class Rule:
    """One gitleaks rule, compiled: its id is the marker's kind."""

    kind: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...]
    entropy: float
    group: int  # secretGroup, 0: the first non-empty group (or the match)
    allowlists: tuple[Allowlist, ...]
    lead: int  # widest reach of a match before a keyword occurrence
    tail: int  # widest reach after one (capped)
    gate: re.Pattern[str] | None  # what must follow a keyword (gitleaks' ``name = value`` rules)
    regex_min: int  # the shortest match


def _lead(parsed: Any) -> int:
    """Widest text a match can have before its first literal character (the keyword is at or after it)."""
    import re._constants as const  # type: ignore[import-not-found]

    width = 0
    items = list(parsed)
    while items:
        op, arg = items.pop(0)
        if op in (const.AT,):
            continue
        if op is const.SUBPATTERN:
            items = list(arg[-1]) + items
            continue
        if op in (const.MAX_REPEAT, const.MIN_REPEAT):
            low, high, body = arg
            if any(o is const.LITERAL for o, _ in body) or any(o is const.BRANCH for o, _ in body):
                return width
            width += min(high, _MAX_LEAD)
            continue
        if op in (const.IN, const.ANY, const.NOT_LITERAL):
            width += 1
            continue
        return width
    return width


# gitleaks' ``name = value`` rules (its generateSemiGenericRegex) put this between the keyword group and the
# value: a keyword not followed by an assignment and 6 value characters (every such rule's value is longer)
# within the name's reach is not in a match.
_ASSIGN = r"""(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"""
_GATE = re.compile(
    r"""[^\n]{0,40}?[\s'"]{0,3}(?:=>|:{1,3}=|=|>|:|\|\||\?=|,)[\x60'"\s=]{0,6}[\w.=+/%:-]{6}""", re.ASCII
)


def _gated(pattern: str, keywords: tuple[str, ...]) -> bool:
    """Whether the rule is a ``name = value`` rule whose keywords are in the name, not in the value: then
    a keyword occurrence must be followed by an assignment."""
    if _ASSIGN not in pattern or not keywords:
        return False
    value = pattern.split(_ASSIGN, 1)[1].lower()
    return not any(word.strip("_-.") in value for word in keywords)


def _rule(data: dict[str, Any]) -> Rule:
    regex = _compile(data["regex"])
    import re._parser as parser  # type: ignore[import-not-found]

    parsed = parser.parse(to_python(data["regex"]), re.ASCII)
    low, high = parsed.getwidth()
    keywords = tuple(str(k).lower() for k in data.get("keywords", ()))
    gated = _gated(data["regex"], keywords)
    return Rule(
        kind=str(data["id"]),
        regex=regex,
        keywords=keywords,
        entropy=float(data.get("entropy", 0.0)),
        group=int(data.get("secretGroup", 0)),
        allowlists=tuple(_allowlist(a) for a in data.get("allowlists", ())),
        # a name = value rule's match starts at most its name prefix (50) before the keyword; another may
        # hold its keyword anywhere (``_mmk`` ends a MaxMind key)
        lead=min(_lead(parsed) + 16, _MAX_LEAD) if gated else min(high, _MAX_LEAD),
        tail=min(high, _MAX_LONG_TAIL if _ANY_CHARACTER.search(data["regex"]) else _MAX_TAIL),
        gate=_GATE if gated else None,
        regex_min=low,
    )


class Keywords:
    """Every occurrence of every keyword in a lower-cased text, in one regex pass.

        Each keyword is found at its rarest character (``_COMMON``): the regex is one branch per anchor
        character, so the engine skips every other character at C speed; a lookbehind and a lookahead check
        the rest of the keyword.  Where several keywords share the anchor, the text around it is looked up
    once per shape (the anchor's offset in the word, the word's length).
    """

    def __init__(self, keywords: set[str]) -> None:
        self.words = frozenset(keywords)
        groups: dict[str, list[tuple[int, str]]] = {}
        for word in sorted(keywords):
            at = max(range(len(word)), key=lambda i: (_RANK.get(word[i], len(_RANK)), -i))
            groups.setdefault(word[at], []).append((at, word))
        branches = []
        for anchor, words in sorted(groups.items()):
            tests = [
                (f"(?<={re.escape(w[: at + 1])})" if at else "")
                + (f"(?={re.escape(w[at + 1 :])})" if w[at + 1 :] else "")
                for at, w in words
            ]
            branches.append(re.escape(anchor) + ("(?:" + "|".join(tests) + ")" if all(tests) else ""))
        self._groups = groups
        # per anchor: (offset of the anchor in the word, word length) -> the words of that shape
        self._shapes: dict[str, list[tuple[int, int, frozenset[str]]]] = {}
        for anchor, words in groups.items():
            shapes: dict[tuple[int, int], set[str]] = {}
            for at, word in words:
                shapes.setdefault((at, len(word)), set()).add(word)
            self._shapes[anchor] = [(at, size, frozenset(found)) for (at, size), found in sorted(shapes.items())]
        self._cache: dict[str, tuple[tuple[str, int], ...]] = {}
        self._cached = 0
        self._regex = re.compile("|".join(branches)) if branches else None

    def _line(self, low: str) -> tuple[tuple[str, int], ...]:
        if self._regex is None:
            return ()
        shapes = self._shapes
        hits = []
        for hit in self._regex.finditer(low):
            at_anchor = hit.start()
            for at, size, words in shapes[low[at_anchor]]:
                start = at_anchor - at
                if start >= 0:
                    piece = low[start : start + size]
                    if piece in words:
                        hits.append((piece, start))
        return tuple(hits)

    def any(self, low: str) -> bool:
        """Whether a keyword occurs in *low*."""
        return self._regex is not None and self._regex.search(low) is not None

    def find(self, low: str) -> dict[str, list[int]]:
        """Keyword -> its start positions in *low*, found line by line (no keyword holds a newline);
        a line seen before (page templates repeat most lines) is looked up, not scanned again."""
        found: dict[str, list[int]] = {}
        cache = self._cache
        offset = 0
        for line in low.split("\n"):
            hits = cache.get(line)
            if hits is None:
                hits = self._line(line)
                if len(line) <= 1 << 16:
                    self._cached += len(line)
                    if self._cached > 1 << 25:  # 32 M characters of lines at most
                        cache.clear()
                        self._cached = len(line)
                    cache[line] = hits
            for word, at in hits:
                found.setdefault(word, []).append(offset + at)
            offset += len(line) + 1
        return found


class RuleSet:
    """The vendored rules, compiled once; :meth:`spans` finds their secrets in a text."""

    def __init__(self, path: Path = RULES_FILE, disabled: frozenset[str] = frozenset()) -> None:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        self.version = str(data.get("minVersion", ""))
        self.allow = _allowlist(data.get("allowlist", {})) if data.get("allowlist") else None
        rules: list[Rule] = []
        self.skipped: list[tuple[str, str]] = []
        for item in data.get("rules", ()):
            kind = str(item.get("id", ""))
            if kind in disabled:
                continue
            if "regex" not in item:
                self.skipped.append((kind, "path-only rule"))
                continue
            try:
                rules.append(_rule(item))
            except (re.error, ValueError, FutureWarning, DeprecationWarning) as error:
                self.skipped.append((kind, str(error)))
        self.rules = tuple(rules)
        self.ids = frozenset(str(item.get("id", "")) for item in data.get("rules", ()))
        self.keywords = frozenset(k for rule in rules for k in rule.keywords)
        self.shortest = min((rule.regex_min for rule in rules), default=1)
        self._always = {index for index, rule in enumerate(rules) if not rule.keywords}
        self._by_keyword: dict[str, list[int]] = {}
        for index, rule in enumerate(rules):
            for word in rule.keywords:
                self._by_keyword.setdefault(word, []).append(index)

    def allowed(self, secret: str, match: str, line: str) -> bool:
        """The global allowlist (gitleaks' placeholders, repeated letters, paths, ``true``...)."""
        return self.allow is not None and self.allow.allows(secret, match, line)

    def spans(
        self, text: str, found: dict[str, list[int]], order: int, last: dict[str, int]
    ) -> list[tuple[int, int, int, int, int, str]]:
        """(match start, order, match end, secret start, secret end, kind) of every rule's secret.

        *found* holds every keyword occurrence in *text* (:meth:`Keywords.find` of its lower case); rule
        *i* gets order ``order + i``, or ``last[kind]`` when its kind is there.
        """
        spans: list[tuple[int, int, int, int, int, str]] = []
        hit = {index for word in found for index in self._by_keyword.get(word, ())}
        for index in sorted(hit.union(self._always)):
            rule = self.rules[index]
            if rule.keywords:
                gate = rule.gate
                starts = sorted(
                    at
                    for word in rule.keywords
                    for at in found.get(word, ())
                    if gate is None or gate.match(text, at + len(word))
                )
                if not starts:
                    continue
                windows = _windows(starts, rule, len(text))
            else:
                windows = [(0, len(text))]
            rank = last.get(rule.kind, order + index)
            if rule.gate is not None:
                self._named(text, rule, starts, rank, spans)
                continue
            for low_end, high_end in windows:
                self._scan(text, rule, low_end, high_end, rank, spans)
        return spans

    def _named(self, text: str, rule: Rule, starts: list[int], order: int, spans: list[Span]) -> None:
        """A ``name = value`` rule at each keyword: matched from the start of the name run holding it
        (``[\\w.-]``, at most 50 characters back), where ``search`` over a window would start too."""
        done = -1
        for at in starts:
            begin = at
            while begin > 0 and at - begin < 50 and text[begin - 1] in _NAME_RUN:
                begin -= 1
            if begin < done:
                continue
            match = rule.regex.match(text, begin)
            if match is not None:
                done = match.end()
                self._keep(text, rule, match, order, spans)

    def _scan(
        self, text: str, rule: Rule, start: int, stop: int, order: int, spans: list[tuple[int, int, int, int, int, str]]
    ) -> None:
        at = start
        while at < stop:
            hit = rule.regex.search(text, at, stop)
            if hit is None:
                return
            full = rule.regex.match(text, hit.start()) or hit  # the match as the whole text makes it
            at = max(full.end(), hit.start() + 1)
            self._keep(text, rule, full, order, spans)

    def _keep(self, text: str, rule: Rule, full: re.Match[str], order: int, spans: list[Span]) -> None:
        """*full*'s secret, unless its entropy is too low or an allowlist allows it."""
        s_start, s_end = _secret(full, rule.group)
        secret = text[s_start:s_end]
        if not secret.strip():
            return
        if rule.entropy and entropy(secret) <= rule.entropy:
            return
        match = full.group(0)
        line_start = text.rfind("\n", 0, full.start()) + 1
        line_end = text.find("\n", full.end())
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        if self.allowed(secret, match, line) or any(a.allows(secret, match, line) for a in rule.allowlists):
            return
        spans.append((full.start(), order, full.end(), s_start, s_end, rule.kind))


def _secret(match: re.Match[str], group: int) -> tuple[int, int]:
    """gitleaks' secret: ``secretGroup``, else the first non-empty group, else the match (newlines trimmed)."""
    if group and group <= (match.re.groups or 0):
        return match.span(group)
    for index in range(1, (match.re.groups or 0) + 1):
        if match.group(index):
            return match.span(index)
    start, end = match.span()
    value = match.group(0)
    return start + (len(value) - len(value.lstrip("\n"))), end - (len(value) - len(value.rstrip("\n")))


def _windows(starts: list[int], rule: Rule, size: int) -> list[tuple[int, int]]:
    """Merged windows [keyword - lead, keyword + tail) around sorted keyword starts."""
    windows: list[tuple[int, int]] = []
    for at in starts:
        low, high = max(0, at - rule.lead), min(size, at + rule.tail + 1)
        if windows and low <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], high))
        else:
            windows.append((low, high))
    return windows


_LOADED: dict[frozenset[str], RuleSet] = {}


def rule_set(disabled: frozenset[str] = frozenset()) -> RuleSet:
    """The vendored rules without *disabled*, loaded once per process and set of disabled ids."""
    loaded = _LOADED.get(disabled)
    if loaded is None:
        loaded = _LOADED[disabled] = RuleSet(disabled=disabled)
    return loaded
