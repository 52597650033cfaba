"""The Markdown report's scores (issue 29): the ``metric: mean`` verdict and every scorer's means.

Rendered from the document's ``scores`` entry (absent from a pass@k comparison of one scorer, whose
report keeps its bytes).  Effects of the mean score are in points (the difference x 100).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.pages.comparison.stat_tables import p_text

__all__ = ["pass_verdict_heading", "score_lines"]

Doc = Mapping[str, Any]


def _points(value: float | None) -> str:
    return "N/A" if value is None else f"{value * 100:+.1f} points"


def _score(value: float | None) -> str:
    return "N/A" if value is None else f"{value:.3f}"


def pass_verdict_heading(doc: Doc) -> str:
    """The heading of pass@1's verdict: not deciding when the mean score decides."""
    mean = (doc.get("scores") or {}).get("mean")
    return "## Verdict" if mean is None else "## pass@1 (not deciding: metric mean decides)"


def _mean_lines(scores: Doc) -> list[str]:
    mean = scores["mean"]
    verdict, diff = mean["verdict"], mean["difference"]
    interval, flip, power = diff["interval"], mean["sign_flip"], mean["power"]
    sentence = verdict["sentence"]
    scorer = f" (scorer `{scores['scorer']}`)" if scores.get("scorer") else ""
    lines = [
        "## Verdict (metric mean)",
        "",
        f"**{sentence[:1].upper()}{sentence[1:]}.**",
        "",
        f"- Mean score{scorer}, task macro over matched pairs: candidate {_score(mean['candidate']['estimate'])},"
        f" baseline {_score(mean['baseline']['estimate'])}.",
        f"- Difference in mean score (candidate − baseline) over {diff['tasks']} task(s):"
        f" {_points(diff['estimate'])}, {interval['confidence']:.0%} interval"
        f" [{_points(interval['lower'])}, {_points(interval['upper'])}] ({interval['method']}).",
        f"- Sign-flip test over tasks: {p_text(flip['p_value'])} ({flip['method']}).",
        "- Smallest difference this design detects with 80% power: "
        + (f"{power['mde'] * 100:.1f} points." if power["mde"] is not None else "not stated."),
    ]
    lines += [f"- Warning: {warning}" for warning in mean["warnings"]]
    return [*lines, ""]


def _scorer_lines(scores: Doc) -> list[str]:
    rows = [
        "| Scorer | Role | Candidate mean | Baseline mean | Difference | Pairs |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for item in scores["scorers"]:
        role = "decides" if item["deciding"] else "not deciding"
        name = str(item["scorer"]).replace("|", "\\|").replace("`", "'")
        rows.append(
            f"| `{name}` | {role} | {_score(item['candidate_mean'])} | {_score(item['baseline_mean'])} |"
            f" {_points(item['difference'])} | {item['pairs']:,} |"
        )
    return ["## Scorers", "", "Each side's task-macro mean of every scorer (C = 1, P = 0.5, I = 0).", "", *rows, ""]


def score_lines(doc: Doc) -> list[str]:
    """The mean score's verdict (``metric: mean``) and the scorers table (several scorers); none otherwise."""
    scores = doc.get("scores")
    if not scores:
        return []
    return [*(_mean_lines(scores) if scores.get("mean") else []), *(_scorer_lines(scores) if scores["scorers"] else [])]
