"""``reports:`` in the site config: every problem is one ``error: site config: ...`` line and exit 2,
before anything is read or written; a report whose data does not verify is its own error page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from taukit import TREATMENT, write_tau

from generator.model.errors import EvalsiteError
from generator.read.config import parse_config
from tests.support.cli import evalsite


def _config(tmp_path: Path, *entries: dict[str, object], **top: object) -> dict[str, object]:
    return {"title": "t", "reports": list(entries), **top}


def _report(**fields: object) -> dict[str, object]:
    return {"id": "tau", "title": "tau", "experiment": TREATMENT, "treatment": TREATMENT, **fields}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (_report(labels="x"), "site config: reports[0]: unknown key(s) labels"),
        ({"id": "tau", "title": "tau", "experiment": TREATMENT}, "site config: reports[0]: missing key(s) treatment"),
        (_report(experiment="nowhere"), "site config: report 'tau'.experiment: 'nowhere' is not an existing folder"),
        (_report(ks=[0]), "site config: report 'tau' ks: bad k 0"),
        (_report(ks=[]), "site config: report 'tau' ks: must be a non-empty list"),
        (_report(metric="score"), "site config: report 'tau': metric: only for format records"),
        (_report(format="csv"), "site config: report 'tau'.format: 'csv' is not one of comet, inspect"),
        (_report(pass_threshold="high"), "site config: report 'tau' pass_threshold: must be a finite number"),
        (_report(id="Tau!"), "site config: reports[0]: id 'Tau!' is not a slug"),
        (_report(tasks="none"), "site config: report 'tau' tasks: 'none' is not an existing folder"),
    ],
)
def test_config_errors(tmp_path: Path, entry: dict[str, object], message: str) -> None:
    write_tau(tmp_path)
    with pytest.raises(EvalsiteError) as caught:
        parse_config(_config(tmp_path, entry), tmp_path)
    assert str(caught.value).startswith(message), str(caught.value)
    assert "\n" not in str(caught.value) and str(tmp_path) not in str(caught.value)


def test_an_id_is_unique_across_every_kind_of_entry(tmp_path: Path) -> None:
    write_tau(tmp_path)
    ledger = {"id": "tau", "title": "l", "campaign": "c.json", "ledger": "l.jsonl"}
    for name in ("c.json", "l.jsonl"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    with pytest.raises(EvalsiteError, match=r"reports\[0\]: duplicate id 'tau' \(already used by ledgers\[0\]\)"):
        parse_config(_config(tmp_path, _report(), ledgers=[ledger]), tmp_path)


def test_reports_must_be_a_list(tmp_path: Path) -> None:
    with pytest.raises(EvalsiteError, match="site config: reports: must be a list"):
        parse_config({"title": "t", "reports": {"id": "x"}}, tmp_path)


def test_a_report_reads_its_system_as_a_comparison_side(tmp_path: Path) -> None:
    write_tau(tmp_path)
    report = parse_config(_config(tmp_path, _report(pass_threshold=0.5, errors_as_failures=True)), tmp_path).reports[0]
    assert report.system.experiment == (tmp_path / TREATMENT).resolve() and report.system.format == "comet"
    assert report.ks is None and report.tasks is None
    options = report.import_options()
    assert (options.pass_threshold, options.errors_as_failures, options.candidate_logs) == (0.5, True, ())


def test_the_cli_says_one_line_and_exits_2(tmp_path: Path) -> None:
    write_tau(tmp_path)
    config = tmp_path / "site.yaml"
    config.write_text(yaml.safe_dump(_config(tmp_path, _report(experiment="missing"))), encoding="utf-8")
    result = evalsite("build", "--config", str(config), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: site config: report 'tau'.experiment: 'missing' is not an existing folder"
    ], result.stderr
    assert not (tmp_path / "out").exists()


def test_a_wrong_treatment_is_the_reports_error_page_and_fails_a_strict_build(tmp_path: Path) -> None:
    write_tau(tmp_path)
    config = tmp_path / "site.yaml"
    config.write_text(yaml.safe_dump(_config(tmp_path, _report(treatment="gpt4o_airline"))), encoding="utf-8")
    result = evalsite("build", "--config", str(config), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "warning: report 'tau': no gpt4o_airline reports found" in result.stderr
    page = (tmp_path / "out" / "reports" / "tau" / "index.html").read_text(encoding="utf-8")
    assert 'class="page-entry_error"' in page and "gpt4o_tc_airline" in page  # the treatments found are named
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert 'href="reports/tau/index.html"' in index and "Not built:" in index
    config.write_text(
        yaml.safe_dump(_config(tmp_path, _report(treatment="gpt4o_airline"), strict=True)), encoding="utf-8"
    )
    strict = evalsite("build", "--config", str(config), "--out", str(tmp_path / "strict"))
    assert strict.returncode == 2 and strict.stderr.startswith("error: strict build: report 'tau': no gpt4o_airline")


def test_untrusted_text_is_escaped_on_the_page(tmp_path: Path) -> None:
    """A failed check's text is the report's (untrusted): shown as text, never as markup."""
    folder = write_tau(tmp_path)
    hostile = '<img src=x onerror="alert(1)">'
    report = folder / "reports" / f"airline000-{TREATMENT}-r1.json"
    data = json.loads(report.read_text(encoding="utf-8"))
    data.update(passed=False, checks_failed=[hostile])
    report.write_text(json.dumps(data), encoding="utf-8")
    config = tmp_path / "site.yaml"
    config.write_text(yaml.safe_dump(_config(tmp_path, _report())), encoding="utf-8")
    result = evalsite("build", "--config", str(config), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "out" / "reports" / "tau" / "index.html").read_text(encoding="utf-8")
    assert hostile not in html and "&lt;img src=x onerror=" in html
    assert str(tmp_path) not in html
