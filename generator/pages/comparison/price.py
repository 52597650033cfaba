"""The price of the decision, worded for the box under the verdict (issue 28): cost and duration per
run of both sides, cost per solved task, the paired difference per task with its interval, where the
numbers come from and how many runs have none.  Select and format only:
:mod:`generator.analyze.comparison.price` computed it.
"""

from __future__ import annotations

from generator.model.common import SIDES
from generator.model.price import Price, PricedQuantity
from generator.pages import format as fmt

__all__ = ["PRICE_TERM", "price_line", "price_note", "price_rows", "relative_text", "source_text"]

PRICE_TERM = "price"  # the glossary entry of these facts


def source_text(quantity: PricedQuantity) -> str:
    """Where both sides' numbers come from: "reported by the harness", or each side's when they differ."""
    candidate, baseline = quantity.candidate.source, quantity.baseline.source
    if candidate == baseline:
        return _short(candidate)
    return f"candidate {_short(candidate)}, baseline {_short(baseline)}"


def _short(source: str | None) -> str:
    return "no value" if source is None else source


def relative_text(quantity: PricedQuantity) -> str:
    """The candidate's per-run level against the baseline's in percent ("−84%"); "" when undefined."""
    relative = quantity.relative
    return "" if relative is None else f"{relative * 100:+.0f}%".replace("-", "−")


def _difference(quantity: PricedQuantity) -> tuple[str, ...]:
    """("−$9.57", "(−84%)", "[−$9.96,", "−$9.17]"): the parts of the paired difference (each kept on one
    line), or why there is none."""
    interval = quantity.difference
    if interval.estimate is None:
        empty = [side for side in SIDES if not quantity.side(side).with_value]
        return ("N/A:", f"no {' or '.join(empty)} value" if empty else "no pair has both values")
    kind = quantity.kind
    relative = relative_text(quantity)
    parts = (fmt.per_run_signed(interval.estimate, kind), *((f"({relative})",) if relative else ()))
    if interval.lower is not None and interval.upper is not None:
        return (*parts, f"[{fmt.per_run_signed(interval.lower, kind)},", f"{fmt.per_run_signed(interval.upper, kind)}]")
    return (*parts, f"interval N/A ({interval.note})" if interval.note else "interval N/A")


def price_rows(price: Price) -> tuple[tuple[str, str, str, tuple[str, ...]], ...]:
    """(what, candidate, baseline, the paired difference's parts) of each priced quantity: per run, and
    for cost per solved task too (no paired difference: a ratio of totals)."""
    rows: list[tuple[str, str, str, tuple[str, ...]]] = []
    for quantity in price.quantities:
        kind = quantity.kind
        candidate, baseline = quantity.candidate, quantity.baseline
        per_run = (fmt.per_run(candidate.mean, kind), fmt.per_run(baseline.mean, kind))
        rows.append((f"{quantity.label} per run", *per_run, _difference(quantity)))
        if kind == "usd":
            solved = (fmt.per_run(candidate.per_solved, kind), fmt.per_run(baseline.per_solved, kind))
            rows.append(("Cost per solved task", *solved, ("—",)))
    return tuple(rows)


def _missing(quantity: PricedQuantity) -> str:
    shown = [f"{quantity.side(side).missing:,} {side}" for side in SIDES if quantity.side(side).missing]
    if not shown:
        return ""
    text = f" No {quantity.label.lower()} for {' and '.join(shown)} runs (left out, not 0)"
    if quantity.difference.estimate is not None:
        text += f": difference over {quantity.pairs:,} pairs"
    return text + "."


def price_note(price: Price) -> str:
    """Which runs count, where the numbers come from, how many runs have none and how many solved."""
    if not price.quantities:
        return ""
    runs = price.quantities[0].candidate.runs
    sources = {source_text(q) for q in price.quantities}
    where = (
        next(iter(sources))
        if len(sources) == 1
        else "; ".join(f"{q.label.lower()} {source_text(q)}" for q in price.quantities)
    )
    text = f"Over each side's {runs:,} strictly matched runs, passed or not; {where}."
    text += "".join(_missing(quantity) for quantity in price.quantities)
    cost = price.of("total_cost_usd")
    if cost is not None:
        text += f" Solved: {cost.candidate.passes:,} and {cost.baseline.passes:,} runs with a cost."
    return text


def price_line(price: Price) -> str | None:
    """The price in one line, as the build summary shows it: cost per run of both sides when there is
    one, else duration ("$1.81 vs $11.37 (−84%, reported by the harness)"); None without either."""
    quantity = price.of("total_cost_usd") or price.of("duration_seconds")
    if quantity is None:
        return None
    kind = quantity.kind
    levels = f"{fmt.per_run(quantity.candidate.mean, kind)} vs {fmt.per_run(quantity.baseline.mean, kind)}"
    relative = relative_text(quantity)
    what = "" if kind == "usd" else "duration "
    return f"{what}{levels} ({relative + ', ' if relative else ''}{source_text(quantity)})"
