"""The redaction shortcuts are exact: the rules' prefix gates and the env-name word search find what
the plain scan (every rule's regex over the whole text, ``_ENV_WORD.finditer``) found, on hostile text.

``_reference_spans`` is the scan as it was before the shortcuts; ``Redactor._spans`` must return the
same spans (as a sorted list) for every text, and ``final_text`` the same page.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.model import redaction as R
from generator.model.redaction import BUILTIN_RULES, RedactionRule, Redactor

_ENV_WORD_RE = re.compile(r"api_?key|key|token|secret|passwd|password|passphrase|pass_phrase|credential")


def _reference_spans(redactor: Redactor, text: str) -> list[tuple[int, int, int, int, int, str]]:
    """Every rule over the whole text, env names by the regex: the scan without any shortcut."""
    low = text.lower()
    same = len(low) == len(text)
    spans = []
    for order, (rule, plain, folded) in enumerate(redactor._compiled):
        source, pattern = (low, plain) if rule.lower and same else (text, folded)
        for match in pattern.finditer(source):
            start = match.start()
            if start and rule.not_after and text[start - 1] in rule.not_after:
                continue
            if match.end() == start:
                continue
            s_start, s_end = match.span("s") if "s" in pattern.groupindex else match.span()
            spans.append((start, order, match.end(), s_start, s_end, rule.kind))
    order = len(redactor._compiled)
    specific = {span[0] for span in spans}
    source = low if same else text.lower()
    for hit in _ENV_WORD_RE.finditer(source):
        start, end = hit.span()
        if not same:
            break
        if start and source[start - 1].isalnum():
            continue
        if end < len(source) and source[end] == "s":
            end += 1
        if end < len(source) and source[end].isalnum():
            continue
        while end < len(source) and source[end] in R._ENV_NAME_CHARS:
            end += 1
        assign = R._ENV_ASSIGN.match(text, end)
        if assign is not None and assign.start("s") not in specific:
            spans.append((start, order, assign.end(), assign.start("s"), assign.end("s"), R.ENV_KIND))
    return sorted(spans)


# Secrets of every rule, their prefixes alone, near-misses, env names glued to each other, case and
# Unicode tricks (the Kelvin sign and the long s fold to ASCII letters; İ lowers to two characters).
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
    "aws.secret.key: " + "r" * 40,
    "ghp_" + "g" * 36,
    "github_pat_" + "h" * 22,
    "xoxb-1234567890",
    "https://hooks.slack.com/services/" + "T" * 20,
    "AIza" + "k" * 35,
    "Authorization: Bearer abcdefgh12",
    "AUTHORIZATION=token zyxwvu98",
    "bearer    abcdefgh==",
    "https://user:pa55@host",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----abc",
    "API_KEY=hunter22",
    "apikey: 'abcdefgh'",
    "api_key",
    "my.secrets=opensesame",
    "secretoken=abcdefgh",
    "tokenkey=abcdefgh",
    "keys: value1234",
    '"db_password": "swordfish"',
    "passwd=letmein1",
    "PASSPHRASE := correct-horse",
    "pass_phrase=abcdefg",
    "passes",
    "credentials=qwertyui",
    "token=12345",
    "key=true",
    "[redacted:sk-key sha256:0123456789ab]",
    "Input tokens",
    '<td class="num" data-sort="12">12</td>',
    "<script>alert(1)</script>",
    "İ",
    "\u212a",
    "\u212aey=abcdefgh",
    "to\u212aen: abcdefgh",
    "\u017f",
    "ı",
    "—",
    "שלום",
    "sk-",
    "key",
    "pass",
    "api",
    "api_",
    "gh",
    "A",
    ":",
    "://",
    "@",
    " ",
    "\n",
    "=",
    '"',
    "\\",
    "_",
    "-",
    "",
    "abc",
]

_REDACTORS = (Redactor(), Redactor(extra=(RedactionRule("ticket", r"T-[0-9]{3}"),)))

_texts = st.one_of(
    st.lists(st.sampled_from([*_PIECES, "T-123"]), max_size=12).map("".join),
    st.text(alphabet=st.sampled_from("akeyApitosnrcdwh_-:=/ \"'\\\u212a\u0130\u017f\u0131"), max_size=40),
    st.text(max_size=30),
)


@settings(max_examples=600, deadline=None)
@given(_texts)
def test_the_shortcut_scan_finds_what_the_full_scan_finds(text: str) -> None:
    for redactor in _REDACTORS:
        assert sorted(redactor._spans(text)) == _reference_spans(redactor, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_env_words_are_the_regex_matches(text: str) -> None:
    low = text.lower()
    assert R._env_words(low) == [m.span() for m in _ENV_WORD_RE.finditer(low)]


def test_env_word_alternatives_are_the_words_the_search_knows() -> None:
    """``_env_words`` knows the alternation's words; a new word in ``_ENV_WORD`` must be added there."""
    pattern = R._ENV_WORD.pattern  # type: ignore[attr-defined]
    assert pattern == _ENV_WORD_RE.pattern


@pytest.mark.parametrize("rule", BUILTIN_RULES, ids=lambda rule: f"{rule.kind}:{rule.prefix}")
def test_every_builtin_rule_starts_with_its_prefix(rule: RedactionRule) -> None:
    """The regex begins with the prefix as plain literals (no alternation or repeat over them)."""
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
    page = "<th>Input tokens — task-0001 · passes</th>" * 200
    redactor = Redactor()
    assert redactor.final_text(page) == page
    for secret in ("ghp_" + "A" * 36, "sk-ant-" + "a" * 20, "x API_KEY=hunter22 y", "https://u:pw1@h"):
        for at in (0, len(page) // 2, len(page)):
            text = page[:at] + secret + page[at:]
            out = redactor.final_text(text)
            assert out == redactor._replaced(text).text and "[redacted:" in out
            assert sorted(redactor._spans(text)) == _reference_spans(redactor, text)


def test_many_prefix_occurrences_before_a_real_one() -> None:
    """Past the first 64 occurrences of a prefix at a forbidden position the rule still runs."""
    redactor = Redactor()
    texts = (
        "task-" * 100 + " sk-" + "e" * 24,
        " sk-x" * 70 + " sk-" + "e" * 24,
        "aws keys " * 70 + "AWS_SECRET=" + "Q" * 40,
    )
    for text in texts:
        assert sorted(redactor._spans(text)) == _reference_spans(redactor, text)
        assert "[redacted:" in redactor.final_text(text)
    assert R._starts("task-" * 10, "task-" * 10, "sk-", R._TOKEN_START) == []
    assert R._starts(" sk-" * 3, " sk-" * 3, "sk-", R._TOKEN_START) == [1, 5, 9]
    assert R._starts("sk-" * 65, "sk-" * 65, "sk-", "") is None
