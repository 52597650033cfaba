"""At k = 1 alone a comparison page says pass@1 once per side (issue 28, item 5): pass@1, pass^1 and
its unbiased form are one number, and a chart of one k is four dots that say nothing more."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "history"))

from histkit import START, build, write_build  # noqa: E402


def _page(root: Path, ks: str) -> str:
    config = write_build(root, START)
    config.write_text(config.read_text(encoding="utf-8") + f"    ks: {ks}\n", encoding="utf-8")
    code, _, err = build(root)
    assert code == 0, err
    return (root / "out" / "comparisons" / "a" / "index.html").read_text(encoding="utf-8")


def test_k_one_shows_one_row_per_side_and_no_chart(tmp_path: Path) -> None:
    page = _page(tmp_path, "[1]")
    table = page.split('id="pass-at-k-table"', 1)[1].split("</table>", 1)[0]
    assert table.count("pass@1 (= pass^1)") == 2 and "pass^k (unbiased)" not in table and ">pass^k<" not in table
    assert "chart-metrics-by-k" not in page


def test_several_ks_keep_every_metric_and_the_chart(tmp_path: Path) -> None:
    page = _page(tmp_path, "[1, 2]")
    table = page.split('id="pass-at-k-table"', 1)[1].split("</table>", 1)[0]
    assert table.count("pass^k (unbiased)") == 2 and "chart-metrics-by-k" in page
