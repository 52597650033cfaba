"""The page models of one run's transcript: steps split into pages of at most :data:`PAGE_BUDGET`
bytes of step text, a step index, and the facts of the stream.  Formats only; computes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from generator.model.transcript import Step, Transcript
from generator.pages.models import InputDigest, Link, PageMeta, SiteInfo
from generator.pages.urls import comparison_url, index_url, rel, run_url, task_url

__all__ = [
    "PAGE_BUDGET",
    "RunBundle",
    "RunPage",
    "StepView",
    "run_facts",
    "run_pages",
    "run_problem_page",
    "step_cost",
    "step_pages",
    "step_view",
]

#: Bytes of step text per page: the HTML around it stays well under the site's 2 MB per file.
PAGE_BUDGET = 768 * 1024

_KIND_LABEL = {
    "user": "User",
    "assistant": "Assistant",
    "thinking": "Thinking",
    "tool_use": "Tool call",
    "tool_result": "Tool result",
    "result": "Result",
    "error": "Error / retry",
    "limit": "Limit",
    "session": "Session",
}


@dataclass(frozen=True, slots=True)
class StepView:
    index: int
    kind: str
    label: str
    text: str
    name: str | None
    size: str  # "1,234 bytes"
    facts: str  # model · tokens · cost · elapsed, where the stream says so
    collapsed: bool  # tool calls, results and thinking start collapsed
    error: bool
    markdown: bool  # user/assistant text is rendered as Markdown (raw HTML off)


@dataclass(frozen=True, slots=True)
class RunPage:
    meta: PageMeta
    facts: tuple[tuple[str, str], ...]
    steps: tuple[StepView, ...]
    index: tuple[Link, ...]  # the steps of this page, by anchor
    pages: tuple[Link, ...]  # one per page; href "" for this one
    previous: Link | None
    next: Link | None
    problem: str | None = None
    template: ClassVar[str] = "run.html"


#: One page of a run and its ``data.json``.
RunBundle = tuple[RunPage, dict[str, Any]]


def _facts(step: Step) -> str:
    parts = []
    if step.model:
        parts.append(step.model)
    if step.tokens is not None:
        parts.append(f"{step.tokens:,} tokens")
    if step.cost_usd is not None:
        parts.append(f"${step.cost_usd:.4f}")
    if step.elapsed_s is not None:
        seconds = step.elapsed_s
        parts.append(f"{seconds * 1000:,.2f} ms" if 0 < seconds < 0.1 else f"{seconds:,.1f} s")
    return " · ".join(parts)


def step_view(step: Step) -> StepView:
    label = _KIND_LABEL.get(step.kind, step.kind)
    if step.name and step.kind in ("tool_use", "tool_result"):
        label = f"{label}: {step.name}"
    if step.is_error and step.kind == "tool_result":
        label += " (error)"
    return StepView(
        step.index,
        step.kind,
        label,
        step.text,
        step.name,
        f"{step.size:,} bytes",
        _facts(step),
        step.kind in ("tool_use", "tool_result", "thinking"),
        step.is_error or step.kind == "error",
        step.kind in ("user", "assistant"),
    )


def step_pages(transcript: Transcript) -> dict[int, int]:
    """Step index -> the number of the run page that shows it."""
    return {step.index: n + 1 for n, chunk in enumerate(_chunks(transcript.steps)) for step in chunk}


def step_cost(step: Step) -> int:
    """What a step counts against a page's :data:`PAGE_BUDGET`: its text's bytes and its markup."""
    return len(step.text.encode("utf-8")) + 512


def _chunks(steps: tuple[Step, ...]) -> Iterator[tuple[Step, ...]]:
    chunk: list[Step] = []
    used = 0
    for step in steps:
        size = step_cost(step)
        if chunk and used + size > PAGE_BUDGET:
            yield tuple(chunk)
            chunk, used = [], 0
        chunk.append(step)
        used += size
    yield tuple(chunk)


def _meta(
    site: SiteInfo, cid: str, ctitle: str, task: str, url: str, title: str, inputs: tuple[InputDigest, ...]
) -> PageMeta:
    crumbs = (
        Link("Home", rel(url, index_url())),
        Link(ctitle, rel(url, comparison_url(cid))),
        Link(f"Task {task}", rel(url, task_url(cid, task))),
    )
    return PageMeta(url, title, site, crumbs, inputs, (Link("data.json", "data.json"),))


def run_facts(transcript: Transcript, side: str, treatment: str, rep: int) -> tuple[tuple[str, str], ...]:
    """The facts of one run's stream: which run, its format, its bytes and digest, its steps by kind."""
    counts: dict[str, int] = {}
    for step in transcript.steps:
        counts[step.kind] = counts.get(step.kind, 0) + 1
    facts: tuple[tuple[str, str], ...] = (
        ("Run", f"{side} {treatment}, repetition {rep}"),
        ("Format", transcript.format),
        (transcript.source, f"{transcript.bytes:,} bytes · sha256:{transcript.sha256}"),
        (
            "Steps",
            f"{len(transcript.steps):,} ("
            + ", ".join(f"{v} {_KIND_LABEL.get(k, k).lower()}" for k, v in sorted(counts.items()))
            + ")",
        ),
    )
    if transcript.format == "inspect sample":
        facts += (("System prompts", f"{transcript.sessions}"),)
    else:
        facts += (
            ("Sessions", f"{transcript.sessions} (a resumed run has more than one)"),
            ("Lines that are not JSON events", f"{transcript.non_json_lines:,}"),
            ("Repeated streamed blocks dropped", f"{transcript.duplicates:,}"),
        )
    return facts


def run_pages(
    site: SiteInfo,
    cid: str,
    ctitle: str,
    task: str,
    side: str,
    treatment: str,
    rep: int,
    transcript: Transcript,
    variant: str = "",
) -> Iterator[RunBundle]:
    """The pages of one run, first to last (one at a time: only one page's views are held)."""
    chunks = list(_chunks(transcript.steps))
    urls = [run_url(cid, task, side, rep, n + 1, variant) for n in range(len(chunks))]
    facts = run_facts(transcript, side, treatment, rep)
    source = transcript.source.split(" (", 1)[0].lower()
    inputs = (InputDigest(source, f"{side} rep {rep}", transcript.sha256, f"{transcript.bytes:,} bytes"),)
    for n, chunk in enumerate(chunks):
        url = urls[n]
        title = f"Run {side} {rep} · {task}" + (f" (page {n + 1} of {len(chunks)})" if len(chunks) > 1 else "")
        index = tuple(Link(f"{step.index}. {step_view(step).label}", f"#step-{step.index}") for step in chunk)
        page = RunPage(
            _meta(site, cid, ctitle, task, url, title, inputs),
            facts,
            tuple(step_view(step) for step in chunk),
            index,
            tuple(Link(str(i + 1), "" if i == n else rel(url, urls[i])) for i in range(len(chunks))),
            Link("previous page", rel(url, urls[n - 1])) if n > 0 else None,
            Link("next page", rel(url, urls[n + 1])) if n + 1 < len(chunks) else None,
        )
        data = {
            "schema": "evalsite.site.run.v1",
            "comparison": cid,
            "task": task,
            "side": side,
            "rep": rep,
            "page": n + 1,
            "pages": len(chunks),
            "format": transcript.format,
            "raw_stdout": {"bytes": transcript.bytes, "sha256": transcript.sha256, "source": transcript.source},
            "steps": [
                {"index": s.index, "kind": s.kind, "name": s.name, "bytes": s.size, "is_error": s.is_error}
                for s in chunk
            ],
        }
        yield page, data


def run_problem_page(
    site: SiteInfo, cid: str, ctitle: str, task: str, side: str, rep: int, problem: str, variant: str = ""
) -> RunBundle:
    url = run_url(cid, task, side, rep, 1, variant)
    page = RunPage(
        _meta(site, cid, ctitle, task, url, f"Run {side} {rep} · {task}", ()),
        (),
        (),
        (),
        (),
        None,
        None,
        problem,
    )
    return page, {"schema": "evalsite.site.run.v1", "task": task, "side": side, "rep": rep, "problem": problem}
