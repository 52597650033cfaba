"""A leaderboard system read from an Inspect log whose run did not finish says so at the top of the
board and its system page, in report.md, data.json and the build summary (issue 29, item 4), as a
comparison side does; a system whose run finished says nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from generator.pipelines.build import build_site
from generator.read.config import load_config

RUNS = Path(__file__).parents[1] / "importers" / "fixtures" / "inspect" / "runs"
SENTENCE = (
    "The run of system 'interrupted' did not finish: 'cancelled.eval' was cancelled (7 of 8 planned samples). "
    "Samples it never ran are missing, not failed: the leaderboard covers only the samples the logs hold."
)


def _board(tmp_path: Path) -> Path:
    shutil.copytree(RUNS, tmp_path / "logs")
    config = tmp_path / "site.yaml"
    config.write_text(
        "title: t\noutput: out\nleaderboards:\n  - id: board\n    title: Board\n    systems:\n"
        "      - {label: interrupted, experiment: logs/cancelled.eval, treatment: b, format: inspect}\n"
        "      - {label: finished, experiment: logs/shards/part-1.eval, treatment: c, format: inspect}\n"
    )
    build_site(load_config(config), tmp_path / "out", summary=tmp_path / "summary.md")
    return tmp_path / "out" / "leaderboards" / "board"


def test_an_unfinished_systems_run_is_said_on_every_surface(tmp_path: Path) -> None:
    out = _board(tmp_path)
    escaped = SENTENCE.replace("'", "&#39;")
    board = (out / "index.html").read_text()
    assert board.count(escaped) == 1 and board.index(escaped) < board.index('id="ranking"')
    (system,) = [p for p in out.glob("systems/*/index.html") if "interrupted" in p.read_text().split("<h1", 1)[1][:200]]
    assert escaped in system.read_text()
    finished = [p for p in out.glob("systems/*/index.html") if p != system]
    assert finished and all("did not finish" not in p.read_text() for p in finished)
    assert f"> **Run status:** {SENTENCE}" in (out / "report.md").read_text()
    document = json.loads((out / "data.json").read_text())
    logs = {s["label"]: s.get("logs") for s in document["systems"]}
    assert logs["interrupted"]["logs"] == [
        {"name": "cancelled.eval", "status": "cancelled", "samples": 7, "planned": 8, "error": None}
    ]
    assert logs["finished"] is None  # one finished log: nothing to say, no key
    summary = (tmp_path / "summary.md").read_text()
    assert "**Runs that did not finish:**" in summary and f"- **`Board`**: `{SENTENCE}`" in summary
