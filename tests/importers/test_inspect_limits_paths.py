"""A limit-stopped Inspect sample, and no machine path from a log's traceback reaching the site.

The logs are the real inspect-ai's (scripts/make_inspect_logs.py): in the candidate log, sample
``capital`` of epoch 3 keeps asking until the task's ``message_limit`` stops it, and inspect-ai
scores it as it stood (``match = I``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from generator.model.formats import ImportOptions
from generator.pipelines.build import build_site
from generator.read.config import load_config
from generator.read.importing import scrub_paths
from generator.read.inspect.archive import Archive
from generator.read.inspect.log import load_inspect

FIXTURES = Path(__file__).parent / "fixtures" / "inspect"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "inspect"
# A traceback line naming a file by an absolute path (POSIX or a Windows drive).
ABSOLUTE_FILE = re.compile(r'File \\?"(?:/|[A-Za-z]:\\)')


def _limited(log: dict[str, object]) -> dict[str, object]:
    (sample,) = [s for s in log["samples"] if s.get("limit")]  # type: ignore[attr-defined]
    return sample  # type: ignore[no-any-return]


def test_the_real_log_holds_one_message_limited_sample_that_was_scored() -> None:
    log = json.loads((FIXTURES / "candidate.json").read_text())
    sample = _limited(log)
    assert (sample["id"], sample["epoch"]) == ("capital", 3)
    assert sample["limit"]["type"] == "message" and sample["limit"]["limit"] == 6
    assert sample["scores"]["match"]["value"] == "I" and not sample.get("error")


def test_a_scored_limit_stopped_sample_is_a_failure_as_scored_and_says_it_was_stopped() -> None:
    for name in ("candidate.json", "candidate.eval"):
        experiment = load_inspect("candidate", FIXTURES / name, "T", ImportOptions())
        run = {r.key: r for r in experiment.records}[("capital", 3)]
        assert run.quality.include_in_analysis and run.quality.status == "included"
        assert not run.passed
        assert run.checks_failed == ("match='I'", "message limit")
        assert "stopped at its message limit" in run.quality.evidence[0]
        assert run.report["limit"]["type"] == "message"
        # turns counted as reported: system, question, answer, follow-up, answer, follow-up = the limit of 6
        assert run.report["reported_telemetry"]["num_turns"] == 2
    # the same sample in another epoch, not stopped, carries no limit
    other = {r.key: r for r in experiment.records}[("capital", 1)]
    assert other.passed and other.checks_failed == () and other.report["limit"] is None


def test_an_unscored_limit_stopped_sample_is_excluded_unless_counted_as_a_failure(tmp_path: Path) -> None:
    log = json.loads((FIXTURES / "candidate.json").read_text())
    sample = _limited(log)
    sample["scores"] = {}  # inspect-ai leaves a sample unscored when scoring is skipped
    path = tmp_path / "candidate.json"
    path.write_text(json.dumps(log))
    run = {r.key: r for r in load_inspect("candidate", path, "T", ImportOptions()).records}[("capital", 3)]
    assert run.quality.status == "excluded" and run.quality.reason_code == "limit_reached"
    assert not run.quality.include_in_analysis
    assert run.quality.reason == "Sample stopped at its message limit unscored"
    assert "Message limit reached" in run.quality.evidence[0]
    counted = load_inspect("candidate", path, "T", ImportOptions(errors_as_failures=True))
    run = {r.key: r for r in counted.records}[("capital", 3)]
    assert run.quality.status == "flagged" and run.quality.include_in_analysis
    assert not run.passed and run.checks_failed == ("message limit",)


def _log_texts(folder: Path) -> dict[str, str]:
    texts = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".json":
            texts[path.name] = path.read_text()
        elif path.suffix == ".eval":
            archive = Archive(path.read_bytes(), path.name)
            for member in sorted(archive.members):
                texts[f"{path.name}#{member}"] = (archive.read(member) or b"").decode()
    return texts


def test_the_committed_logs_name_no_machine_path() -> None:
    for folder in (FIXTURES, EXAMPLES):
        texts = _log_texts(folder)
        assert len(texts) > 4
        tracebacks = 0
        for name, text in texts.items():
            assert not ABSOLUTE_FILE.search(text), name
            for needle in ("/work/", "/home/", "/tmp/", "/root/", "/usr/", "/.venv/"):
                assert needle not in text, (name, needle)
            tracebacks += text.count('File \\"<site-packages>/inspect_ai')
        assert tracebacks > 0  # the errored sample's traceback is kept, with a neutral folder name


def test_scrub_paths_keeps_file_names_urls_and_relative_paths() -> None:
    assert scrub_paths("open /home/someone/proj/data.csv failed") == "open …/data.csv failed"
    assert scrub_paths('File "/usr/lib/python3.11/x.py", line 3') == 'File "…/x.py", line 3'
    assert scrub_paths(r"C:\Users\bob\work\x.py") == "…\\x.py"
    for kept in ("see https://example.org/a/b/c", "ratio 1/2 of a/b/c", "<site-packages>/x/y.py", "/x"):
        assert scrub_paths(kept) == kept


def test_scrub_paths_hides_file_urls_and_home_folders() -> None:
    """Issue 26, item 7: imported error text kept `file://` and home-folder paths."""
    assert scrub_paths("see file:///home/alice/proj/x.py line 3") == "see file://…/x.py line 3"
    assert scrub_paths("at FILE://host/home/alice/a.py: boom") == "at file://…/a.py: boom"
    assert scrub_paths("open ~/secret-project/data.csv") == "open …/data.csv"
    assert scrub_paths("read ~alice/.aws/credentials") == "read …/credentials"
    assert scrub_paths("C:/Users/bob/x.py") == "…/x.py"


def test_a_foreign_path_in_a_logs_error_never_reaches_the_site(tmp_path: Path) -> None:
    foreign = "/home/someone/secret-project/.venv/lib/python3.11/site-packages"
    logs = tmp_path / "logs"
    logs.mkdir()
    for side in ("baseline", "candidate"):
        log = json.loads((FIXTURES / f"{side}.json").read_text())
        (errored,) = [s for s in log["samples"] if s.get("error")]
        errored["error"]["message"] = f"FileNotFoundError: '{foreign}/data/words.txt'"
        errored["error"]["traceback"] = f'Traceback:\n  File "{foreign}/inspect_ai/run.py", line 9\n'
        errored["error"]["traceback_ansi"] = errored["error"]["traceback"]
        (logs / f"{side}.json").write_text(json.dumps(log))
    config = tmp_path / "site.yaml"
    config.write_text(
        "title: t\noutput: out\ncomparisons:\n  - id: quiz\n    title: quiz\n"
        "    candidate: {experiment: logs/candidate.json, treatment: c, format: inspect}\n"
        "    baseline: {experiment: logs/baseline.json, treatment: b, format: inspect}\n"
    )
    build_site(load_config(config), tmp_path / "out")
    pages = sorted((tmp_path / "out").rglob("*"))
    texts = {p: p.read_text(errors="replace") for p in pages if p.is_file() and p.name != "plotly.min.js"}
    flaky = [p for p in texts if p.name == "index.html" and p.parent.name.startswith("flaky-")]
    assert flaky and "excluded (harness_error)" in texts[flaky[0]]  # the errored run is disclosed
    leaks = [p.name for p, text in texts.items() if "/home/someone" in text or "secret-project" in text]
    assert leaks == []
    # an imported comparison's page never claims durations or efficiency "from raw stdout"
    page = texts[tmp_path / "out" / "comparisons" / "quiz" / "index.html"]
    assert ">Paired task efficiency <a" in page and ">Duration <a" in page and "from raw stdout" not in page
