"""The example site's single-system report: its page and data.json, the index section, and nothing
else of the site changed by it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from generator.pipelines.build import build_site
from generator.read.config import parse_config
from tests.support.shared import EPOCH, Built, bare_example_config

REPO = Path(__file__).resolve().parents[2]


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow  # builds a whole site: runs first (tests/conftest.py)
def test_report_page_and_nothing_else_changes(tmp_path: Path, monkeypatch, bare_example_site: Built) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    config = bare_example_config(tmp_path)  # the site of bare_example_site (built once per run)
    (report,) = config.reports
    built = bare_example_site
    assert not built.warnings, built.warnings
    raw = yaml.safe_load((REPO / "site-config.yaml").read_text(encoding="utf-8"))
    raw.pop("reports")
    raw.pop("history")
    build_site(parse_config(raw, REPO), tmp_path / "without")
    a, b = _files(bare_example_site.site), _files(tmp_path / "without")
    prefix = f"reports/{report.id}/"
    assert set(a) - set(b) == {prefix + "index.html", prefix + "data.json"}
    changed = {name for name in a.keys() & b.keys() if a[name] != b[name]}
    assert changed <= {"index.html", "data.json", ".evalsite-site"}

    doc = json.loads(a[prefix + "data.json"])
    assert doc["schema"] == "evalsite.report.v1" and doc["system"]["treatment"] == report.system.treatment
    assert doc["ks"] == [1, 2, 3, 4]
    html = a[prefix + "index.html"].decode("utf-8")
    for needed in ('id="report-metrics-table"', 'id="report-intervals-table"', "chart-report-by-k-data"):
        assert needed in html
    for needed in ('id="failure-reasons-table"', 'id="efficiency-table"', 'id="issues-table"', 'id="inputs"'):
        assert needed in html
    # the numbers the page shows are the document's, formatted (pass^k unbiased at k = 2)
    shown = f"{doc['system']['pass_pow_k']['2']['estimate']:.3f}"
    assert f">{shown} [" in html
    assert "missing-repetition" in html  # agent-c's run that never reported, as an issue row
    assert "system experiment" in html and "report document" in html  # Built from
    for name, data in a.items():
        if name.startswith(prefix):
            assert str(REPO).encode() not in data and b"/tmp/" not in data

    index = a["index.html"].decode("utf-8")
    assert 'id="reports"' in index and f'href="{prefix}index.html"' in index
    listed = json.loads(a["data.json"])["reports"]
    assert [(h["id"], h["url"], h["ok"]) for h in listed] == [(report.id, prefix + "index.html", True)]
    assert "reports" not in json.loads(b["data.json"])  # a site without reports keeps its index document
