"""The redaction shortcuts are exact (issue 26): the rules' prefix gates, the keyword finder and its line
cache, the secret-word spans and gitleaks' keyword windows find what the plain scans find, on hostile text.

``_reference_builtin`` is evalsite's own rules scanned without a shortcut (every regex over the whole
text); ``Redactor._spans`` must hold the same candidates.  gitleaks' rules run only in windows around
their keywords: every secret a rule's regex finds over the whole text (a match holding a keyword of
the rule, past its entropy and allowlists) must be redacted by the shortcut path.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.model.redaction import BUILTIN_RULES, RedactionRule, Redactor, fold
from generator.model.redaction import builtin as B
from generator.model.redaction import core as C
from generator.model.redaction import gitleaks as G
from tests.support.hypo import examples

_REDACTORS = (Redactor(), Redactor(extra=(RedactionRule("ticket", r"T-[0-9]{3}"),)))


def _reference_builtin(redactor: Redactor, text: str) -> list[tuple[int, int, int, int, int, str]]:
    """Every own rule over the whole text (the folded text for ``lower`` rules): no prefix gate."""
    low = fold(text)
    spans = []
    for order, (rule, pattern) in enumerate(redactor._compiled):
        source = low if rule.lower else text
        for match in pattern.finditer(source):
            start = match.start()
            if start and rule.not_after and text[start - 1] in rule.not_after:
                continue
            if match.end() == start:
                continue
            s_start, s_end = match.span("s") if "s" in pattern.groupindex else match.span()
            spans.append((start, order, match.end(), s_start, s_end, rule.kind))
    return sorted(spans)


def _own(redactor: Redactor, text: str) -> list[tuple[int, int, int, int, int, str]]:
    return sorted(span for span in redactor._raw(text, fold(text)) if span[1] < C._GITLEAKS)


# Secrets of every rule, their prefixes alone, near-misses, names glued to each other, case and Unicode
# tricks (the Kelvin sign and the long s fold to ASCII letters; İ lowers to two characters).
_PIECES = [
    "sk-ant-" + "a" * 20,
    "sk-proj-" + "b" * 20,
    "sk-" + "c" * 20 + "T3BlbkFJ" + "d" * 20,
    "sk-" + "e" * 24,
    "task-" + "f" * 24,
    "AKIA" + "Z" * 16,
    "ASIA" + "Y" * 17,
    "aws_secret_access_key = " + "x" * 40,
    "AWS_SECRET='" + "Q" * 40 + "'",
    "aws keys, ",
    "ghp_" + "g" * 36,
    "github_pat_" + "h" * 22,
    "xoxb-1234567890",
    "https://hooks.slack.com/services/" + "T" * 20,
    "AIza" + "k" * 35,
    "Authorization: Bearer abcdefgh12",
    "AUTHORIZATION=token zyxwvu98",
    "bearer    abcdefgh==",
    "https://user:pa55@host",
    "redis://:pa55word@host",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
    "API_KEY=hunter22Zq9",
    "apikey: 'abcdefgh'",
    "clientSecret: 'Qw9x-Lp2m_Zr8vTn'",
    "PGPASSWORD=Xk29!mQz4p",
    "DB_PASS=Xk29!mQz4p",
    "monkey=Xk29!mQz4p",
    '"db_password": "swordfish"',
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "glpat-" + "x3Fz9Qk2Lm8Rt5Vw1Yb7",
    "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    "token=12345",
    "key=true",
    "[redacted:sk-key sha256:0123456789ab]",
    "Input tokens",
    '<td class="num" data-sort="12">12</td>',
    "İ",
    "\u212a",
    "\u212aey=abcdefgh1",
    "\u017f",
    "ı",
    "\\u0041",
    "%41",
    "\u200b",
    "\n",
    "\n\n",
    "sk-",
    "key",
    "pass",
    "api",
    ":",
    "://",
    "@",
    " ",
    "=",
    '"',
    "\\",
    "_",
    "",
]

_texts = st.one_of(
    st.lists(st.sampled_from([*_PIECES, "T-123"]), max_size=12).map("".join),
    st.text(alphabet=st.sampled_from("akeyApitosnrcdwh_-:=/ \"'\\\n\u212a\u0130\u017f\u0131"), max_size=40),
    st.text(max_size=30),
)


@settings(max_examples=examples(400), deadline=None)
@given(_texts)
def test_the_prefix_gates_find_what_the_full_scan_finds(text: str) -> None:
    for redactor in _REDACTORS:
        assert _own(redactor, text) == _reference_builtin(redactor, text)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_secret_words_are_the_regex_matches(text: str) -> None:
    low = fold(text)
    found = Redactor()._keywords.find(low)
    assert B.env_words(found) == [m.span() for m in B._ENV_WORD.finditer(low)]


def _naive_find(words: frozenset[str], low: str) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for word in words:
        at = low.find(word)
        while at >= 0:
            found.setdefault(word, []).append(at)
            at = low.find(word, at + 1)
    return found


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([*_PIECES, "\n", "\n", "ey", "sk_live", "xoxb"]), max_size=20).map("".join))
def test_the_keyword_finder_and_its_line_cache_find_every_occurrence(text: str) -> None:
    redactor = Redactor()
    words = redactor._keywords.words
    low = fold(text)
    for _ in range(2):  # the second time from the line cache
        found = {word: sorted(at) for word, at in redactor._keywords.find(low).items()}
        assert found == {word: sorted(at) for word, at in _naive_find(words, low).items()}
    assert redactor._keywords.any(low) == bool(found)


def _full_scan(rules: G.RuleSet, rule: G.Rule, text: str) -> list[tuple[int, int]]:
    """The rule's regex over the whole text: secrets of matches that hold one of its keywords."""
    low = fold(text)
    secrets = []
    for match in rule.regex.finditer(text):
        if rule.keywords and not any(word in low[match.start() : match.end()] for word in rule.keywords):
            continue
        s_start, s_end = G._secret(match, rule.group)
        secret = text[s_start:s_end]
        if not secret.strip() or (rule.entropy and G.entropy(secret) <= rule.entropy):
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        if rules.allowed(secret, match.group(0), line) or any(
            a.allows(secret, match.group(0), line) for a in rule.allowlists
        ):
            continue
        secrets.append((s_start, s_end))
    return secrets


_RULES = G.rule_set()


@pytest.mark.parametrize("rule", _RULES.rules, ids=lambda rule: rule.kind)
@settings(
    max_examples=examples(10, daily=1),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_every_gitleaks_rule_is_found_in_its_keyword_windows(rule: G.Rule, data: st.DataObject) -> None:
    """A string the rule's regex matches, in page-like text: what the whole-text scan finds is redacted."""
    example = data.draw(st.from_regex(rule.regex, fullmatch=True), label="match")
    before = data.draw(st.sampled_from(["", "see ", "<td>", "x = 1\n", "tokens and keys: "]), label="before")
    text = before + example + " done"
    redactor = Redactor()
    spans = redactor._spans(text)
    chosen = redactor._chosen(text, spans)
    for s_start, s_end in _full_scan(_RULES, rule, text):
        covered = [c for c in chosen if c[0] < s_end and s_start < c[1]]
        assert covered, (rule.kind, text)


def test_rules_that_do_not_compile_are_counted() -> None:
    """Every rule with a regex translates and compiles; only the path-only rule is skipped."""
    assert [kind for kind, _why in _RULES.skipped] == ["pkcs12-file"]
    assert len(_RULES.rules) == 221


@pytest.mark.parametrize(
    ("go", "python"),
    [
        (r"ab(?i)cd", r"ab(?i:cd)"),
        (r"(a(?i)b|c)d", r"(a(?i:b)|(?i:c))d"),
        (r"(?i)ab", r"(?i)ab"),
        (r"a\z", r"a\Z"),
        (r"[[:alnum:]_]", r"[a-zA-Z0-9_]"),
        (r"x(?i)(?:a|b)y", r"x(?i:(?:a|b)y)"),
        (r"['|\"|\n]", r"['\|\"\|\n]"),
    ],
)
def test_go_regexes_translate(go: str, python: str) -> None:
    assert G.to_python(go) == python
    re.compile(python)


def test_every_builtin_rule_starts_with_its_prefix() -> None:
    """The regex begins with the prefix as plain literals (no alternation or repeat over them)."""
    for rule in BUILTIN_RULES:
        assert rule.prefix
        parsed = list(re._parser.parse(rule.regex))  # type: ignore[attr-defined]
        literal = re._constants.LITERAL  # type: ignore[attr-defined]
        lead = ""
        for op, arg in parsed:
            if op is not literal:
                break
            lead += chr(arg)
        assert lead.startswith(rule.prefix), (lead, rule.prefix)
        if rule.lower:
            assert rule.prefix == rule.prefix.lower()


def test_a_page_of_labels_keeps_its_bytes_and_a_secret_anywhere_goes() -> None:
    page = "<th>Input tokens — task-0001 · passes</th>\n" * 200
    redactor = Redactor()
    assert redactor.final_text(page) == page
    for secret in ("ghp_" + "A1" * 18, "sk-ant-" + "a" * 20, "x API_KEY=hunter22Zq9 y", "https://u:pw1@h"):
        for at in (0, len(page) // 2, len(page)):
            text = page[:at] + secret + page[at:]
            out = redactor.final_text(text)
            assert out == redactor._replaced(text).text and "[redacted:" in out
            assert _own(redactor, text) == _reference_builtin(redactor, text)


def test_many_prefix_occurrences_before_a_real_one() -> None:
    """Past the first 64 occurrences of a prefix at a forbidden position the rule still runs."""
    redactor = Redactor()
    texts = (
        "task-" * 100 + " sk-" + "e" * 24,
        " sk-x" * 70 + " sk-" + "e" * 24,
        "aws keys " * 70 + "AWS_SECRET=" + "Q" * 40,
    )
    for text in texts:
        assert _own(redactor, text) == _reference_builtin(redactor, text)
        assert "[redacted:" in redactor.final_text(text)
    assert C._starts("task-" * 10, "task-" * 10, "sk-", B._TOKEN_START) == []
    assert C._starts(" sk-" * 3, " sk-" * 3, "sk-", B._TOKEN_START) == [1, 5, 9]
    assert C._starts("sk-" * 65, "sk-" * 65, "sk-", "") is None


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.sampled_from([*_PIECES, "\\u0041", "\\x41", "\\n", "\\r\\n", "\r\n", "\n  ", "%4A", "%zz", "a1B2"]),
        max_size=14,
    ).map("".join)
)
def test_decode_sites_are_the_pattern_matches(text: str) -> None:
    """The two fast scans of ``normalise.sites`` find what ``SITES.finditer`` finds."""
    from generator.model.redaction import normalise

    assert [m.span() for m in normalise.sites(text)] == [m.span() for m in normalise.SITES.finditer(text)]


def test_a_private_key_longer_than_a_window_is_redacted() -> None:
    """Found by Hypothesis: a key block whose closing marker lies past the usual 512-character window
    was not matched at all (the gitleaks rule needs its closing ``KEY-----``)."""
    text = "see -----BEGIN X PRIVATE KEY BLOCK-----" + "ab\\n+/=" * 200 + "KEY BLOCK----- done"
    assert _full_scan(_RULES, next(r for r in _RULES.rules if r.kind == "private-key"), text)
    redacted = Redactor().text(text)
    assert redacted.startswith("see [redacted:private-key sha256:") and "ab\\n+/=" not in redacted


# ---------------------------------------------------------------------- allowlists, entropy and fold


def _naive_allows(allowlist: G.Allowlist, words: tuple[str, ...], secret: str, match: str, line: str) -> bool:
    """gitleaks' allowlist as written: every regex and every stopword tried, then the condition."""
    if allowlist.never:
        return False
    target = match if allowlist.target == "match" else line if allowlist.target == "line" else secret
    regex = bool(allowlist.regexes) and any(r.search(target) for r in allowlist.regexes)
    stop = bool(words) and any(word in secret.lower() for word in words)
    if allowlist.both:
        return (regex or not allowlist.regexes) and (stop or not words)
    return regex or stop


_STOPWORDS = ("abc", "abcdef", "bcd", "key", "keys", "x", "zz-9")


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from(_STOPWORDS), max_size=5), st.text(alphabet="abcdefkeysxz-9AK", max_size=24))
def test_the_stopword_trie_finds_what_a_substring_search_finds(words: list[str], text: str) -> None:
    pattern = G.any_word(words)
    assert (pattern is not None and pattern.search(text) is not None) == any(word in text for word in words)


def test_every_allowlist_gives_gitleaks_verdict_and_remembers_it() -> None:
    """Each vendored allowlist (and one per condition built here) on the values that decide it: the
    verdict equals the plain reading, the first time and from the remembered search."""
    data = G.tomllib.loads(G.RULES_FILE.read_text(encoding="utf-8"))
    listed = [data["allowlist"], *(a for rule in data["rules"] for a in rule.get("allowlists", ()))]
    listed += [
        {"condition": condition, "regexes": regexes, "stopwords": stopwords, "regexTarget": target}
        for condition in ("OR", "AND")
        for regexes in ([], ["^true$", "example"])
        for stopwords in ([], ["abc", "Key"])
        for target in ("secret", "match", "line")
    ]
    values = ["", "true", "abcdef", "AKIAIOSFODNN7EXAMPLE", "my_api_key", "xkeyx", "000000", "$HOME", "hunter2"]
    checked = 0
    for entry in listed:
        allowlist = G._allowlist(entry)
        words = tuple(str(w).lower() for w in entry.get("stopwords", ()))
        for secret in values:
            for match in (secret, "api_key = " + secret, "ACCESSOR=" + secret):
                for line in (match, "--mount=type=secret," + match):
                    expected = _naive_allows(allowlist, words, secret, match, line)
                    assert allowlist.allows(secret, match, line) == expected, (entry, secret, match, line)
                    assert allowlist.allows(secret, match, line) == expected, (entry, secret, match, line)
                    checked += expected
    assert checked > 100  # the values do reach allowed verdicts, not only refusals


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.sampled_from("aAsSiIkK\u0130\u0131\u017f\u212a\u00df -"), max_size=30))
def test_fold_keeps_positions_and_folds_as_a_translation_table_does(text: str) -> None:
    low = fold(text)
    assert len(low) == len(text)
    assert low == (
        text.lower()
        if len(text.lower()) == len(text) and not set("\u0131\u017f") & set(text.lower())
        else text.translate({0x130: "i", 0x131: "i", 0x17F: "s"}).lower()
    )


def test_entropy_is_gitleaks_shannon_entropy_again_and_again() -> None:
    import math
    from collections import Counter

    for text in ("", "a", "aab", "sk_live_" + "x1y2" * 8, "\u0130\u0131" * 3, "long" * 64 + "!"):  # 257: not kept
        size = len(text)
        expected = -sum(n / size * math.log2(n / size) for n in Counter(text).values()) if text else 0.0
        assert G.entropy(text) == expected == G.entropy(text)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([*_PIECES, " ", "\n", "x" * 300]), max_size=12).map("".join), st.integers(0, 400))
def test_a_remembered_cut_is_the_cut_worked_out(text: str, at: int) -> None:
    from generator.model.redaction import cut, safe_cut

    expected = cut._cut(text, at) if 0 < at < len(text) else max(0, min(at, len(text)))
    assert safe_cut(text, at) == expected == safe_cut(text, at)  # the second from the memory
