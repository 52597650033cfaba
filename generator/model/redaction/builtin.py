"""evalsite's own rules: exact-span token formats, secret-named assignments and assigned hex secrets.

Each rule names the group that is the secret, so only that part is replaced (``API_KEY=`` stays, its
value goes).  Case-insensitive rules run on :func:`base.fold` (same positions as the text), so an
``İ`` anywhere in a text changes nothing (issue 26).
"""

from __future__ import annotations

import re

from generator.model.redaction.base import RedactionRule, Span, lazy
from generator.model.redaction.gitleaks import entropy

_NOT_MARKER = r"(?!\[redacted:)"
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
    RedactionRule("stripe-webhook-secret", r"whsec_[A-Za-z0-9+/]{24,}", _ALNUM + "_", prefix="whsec_"),
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
        r"://[^\s:/@\"'<>\[\]]{0,256}:" + _NOT_MARKER + r"(?P<s>[^\s@/\"'<>]{1,256})@",
        prefix="://",
    ),
)


# --------------------------------------------------------------------------- secret-named assignments
# ``GITHUB_TOKEN=…``, ``"dbPassword": "…"``, ``PGPASSWORD=…``: a name whose last segment (split at
# ``_ . -`` and camelCase humps, a digit or plural ``s`` after it allowed) is a secret word, or an
# all-lower/all-upper name ending in a strong one; then ``=``, ``:`` or ``:=``; then a value that looks
# like a secret (:func:`looks_secret`).
ENV_KIND = "env-secret"
HEX_KIND = "hex-secret"
WORDS = (
    "apikey",
    "api_key",
    "key",
    "token",
    "secret",
    "passwd",
    "password",
    "passphrase",
    "pass_phrase",
    "credential",
    "pwd",
    "pass",
    "accountkey",
)
_PASSWORDS = frozenset(("passwd", "password", "passphrase", "pass_phrase", "pwd", "pass"))
_STRONG = ("password", "passwd", "passphrase", "secret", "token", "apikey", "credential")
_ENV_WORD = lazy(globals(), "_ENV_WORD", "|".join(sorted(WORDS, key=lambda w: (-len(w), w))))
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_TAIL = lazy(globals(), "_TAIL", r"s?(?:[_.-]?[0-9]+)?")
ENV_ASSIGN = lazy(
    globals(),
    "ENV_ASSIGN",
    r"(?:\\?[\"'])?[ \t]*(?::=|:|=)[ \t]*(?:\\?[\"'])?"
    + _NOT_MARKER
    + r"(?![0-9.]+(?!"
    + _VALUE
    + r"))(?!(?:true|false|null|none|nil|undefined)(?![A-Za-z0-9]))(?P<s>"
    + _VALUE
    + r"{4,4096})",
    re.IGNORECASE,
)
# A value that is code, a placeholder or a word, not a secret.
_CODE = lazy(
    globals(),
    "_CODE",
    r"[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)*"  # a word, identifier or attribute without digits
    r"|[^(]*\(.*|[^\[]*\[.*"  # a call, a subscript
    r"|0x[0-9a-fA-F]{0,31}|[0-9a-fA-F]{1,16}"  # a small number
    r"|.*(?:xxxx|\*\*\*|\.\.\.|<[^>]*>|\{\{|\$\{|your_|_here|changeme|example|placeholder|dummy|redacted).*",
    re.IGNORECASE | re.DOTALL,
)
_MIN_VALUE = 8
_MIN_ENTROPY = 3.0  # bits per character; a password-named value: 2.5
_MIN_PASSWORD_ENTROPY = 2.5


def looks_secret(value: str, password: bool) -> bool:
    """Whether an assigned value looks like a secret: 8+ characters, not code, a number, a placeholder,
    a word or an identifier, and enough entropy (gitleaks' generic rule uses 3.5 for 10+ characters)."""
    if len(value) < _MIN_VALUE or _CODE.fullmatch(value):
        return False
    return entropy(value) >= (_MIN_PASSWORD_ENTROPY if password else _MIN_ENTROPY)


def env_words(found: dict[str, list[int]]) -> list[tuple[int, int]]:
    """The secret words' spans as ``_ENV_WORD.finditer`` gives them (leftmost, then longest; none
    overlapping), from every occurrence of each word (*found*, :class:`gitleaks.Keywords`)."""
    every = sorted((at, -len(word)) for word in WORDS for at in found.get(word, ()))
    spans: list[tuple[int, int]] = []
    done = 0
    for at, minus in every:
        if at >= done:
            spans.append((at, at - minus))
            done = at - minus
    return spans


_ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _segment_start(text: str, low: str, start: int, word: str) -> bool:
    """Whether the word at *start* begins a name segment (or ends a one-case name glued to it)."""
    if start == 0 or low[start - 1] not in _ASCII_ALNUM:
        return True
    before, first = text[start - 1], text[start]
    if first.isupper() and (before.islower() or before.isdigit()):
        return True  # camelCase: clientSecret, AccountKey
    if word in _STRONG:
        name = start
        while name > 0 and low[name - 1] in _ASCII_ALNUM:
            name -= 1
        piece = text[name : start + len(word)]
        return piece.isupper() or piece.islower()  # PGPASSWORD, clientsecret
    return False


def env_spans(text: str, low: str, found: dict[str, list[int]], order: int, allowed: object) -> list[Span]:
    """Secret-named assignments in *text* (*low*: :func:`base.fold` of it; *found*: its keywords)."""
    spans: list[Span] = []
    size = len(low)
    for start, end in env_words(found):
        word = low[start:end]
        if not _segment_start(text, low, start, word):
            continue
        tail = _TAIL.match(low, end)
        stop = tail.end() if tail is not None else end
        if stop < size and (low[stop] in _ASCII_ALNUM or low[stop] in "_.-"):
            if not (stop + 1 < size and low[stop] in "_.-" and low[stop + 1] not in _ASCII_ALNUM):
                continue  # the word is not the name's last segment (API_KEY_ID, tokenType)
        assign = ENV_ASSIGN.match(text, stop)
        if assign is None:
            continue
        value = assign.group("s")
        if not looks_secret(value, word in _PASSWORDS) or (callable(allowed) and allowed(value, value, value)):
            continue
        spans.append((start, order, assign.end(), assign.start("s"), assign.end("s"), ENV_KIND))
    return spans


# A 40- or 64-digit hex secret assigned or quoted (``"…"``, ``= …``, ``: …``), unless a hash word names it
# (sha, hash, digest, commit, checksum, id…): bare hashes in git logs and sums, and typed digests
# (``sha256:…``, ``ledger1:…``), stay.
_HEX = lazy(globals(), "_HEX", r"[0-9a-fA-F]{40,}")
_HEX_BEFORE = lazy(globals(), "_HEX_BEFORE", r"(?:=[ \t]*\\?[\"']?|:[ \t]*\\?[\"']|:[ \t]+|\\?[\"'])\Z")
_HASHY = lazy(
    globals(),
    "_HASHY",
    r"sha|hash|digest|commit|check|sum|md5|rev|ref|\bid\b|_id|id[\"'=:]|etag|integrity|fingerprint|oid|"
    r"parent|tree|head|base|blob|object|nonce|salt|version|cid|uuid",
)


def hex_spans(text: str, low: str, order: int) -> list[Span]:
    spans: list[Span] = []
    for match in _HEX.finditer(text):
        s_start, s_end = match.span()
        if s_end - s_start not in (40, 64) or (s_start and text[s_start - 1].isalnum()):
            continue
        if s_end < len(text) and text[s_end].isalnum():
            continue
        before = _HEX_BEFORE.search(text, max(0, s_start - 4), s_start)
        if before is None:
            continue
        line = low.rfind("\n", 0, s_start) + 1
        if _HASHY.search(low, max(line, s_start - 48), s_start):
            continue
        value = match.group(0)
        if value.isdigit() or value.isalpha() or entropy(value) < 3.0:
            continue
        spans.append((before.start(), order, s_end, s_start, s_end, HEX_KIND))
    return spans
