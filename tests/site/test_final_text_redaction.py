"""The site writer redacts each page's final text with ``Redactor.final_text``: the rules run on every
byte once, without the literal pre-check, and the result is exactly ``Redactor.text``'s."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.model.redaction import RedactionRule, Redactor
from tests.support.hypo import examples

_PIECES = [
    "sk-ant-" + "a" * 20,
    "sk-" + "c" * 20 + "T3BlbkFJ" + "d" * 20,
    "AKIA" + "Z" * 16,
    "aws_secret_access_key = " + "x" * 40,
    "ghp_" + "g" * 36,
    "xoxb-1234567890",
    "AIza" + "k" * 35,
    "Authorization: Bearer abcdefgh12",
    "https://user:pa55@host",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
    "API_KEY=hK29xQ7mZp4L",
    '"db_password": "swordfish"',
    "[redacted:sk-key sha256:0123456789ab]",
    "Input tokens",
    '<td class="num" data-sort="12">12</td>',
    "İ",
    "\u212a",
    "\u017f",
    "ı",
    "task-",
    "sk-",
    "key",
    "@",
    " ",
    "\n",
    "=",
    '"',
    "",
    "abc",
]

_REDACTORS = (Redactor(), Redactor(enabled=False), Redactor(extra=(RedactionRule("ticket", r"T-[0-9]{3}"),)))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([*_PIECES, "T-123"]), max_size=10))
def test_final_text_is_text(pieces):
    text = "".join(pieces)
    for redactor in _REDACTORS:
        assert redactor.final_text(text) == redactor.text(text)


def test_a_page_full_of_token_labels_keeps_its_bytes_and_loses_its_key():
    page = "<th>Input tokens</th>" * 50 + "<td>ghp_" + "A" * 36 + "</td>"
    out = Redactor().final_text(page)
    assert out.startswith("<th>Input tokens</th>" * 50) and "[redacted:github-token sha256:" in out
    assert "ghp_" not in out and out == Redactor().text(page)
