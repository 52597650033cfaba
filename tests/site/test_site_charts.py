"""Charts that inform (issue 10): fitted axes with zero, distinguishable series, the per-task chart."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from generator.pages.models import Dot, DotChart, ForestChart, ForestRow, LineChart, RefLine, Series
from generator.render.charts import figure_json, fitted_range

_DIFF = st.floats(min_value=-1, max_value=1, allow_nan=False)


@given(st.lists(_DIFF, min_size=1, max_size=20))
def test_fitted_range_holds_every_value_and_zero_within_the_limits(values):
    low, high = fitted_range(values, (-1.0, 1.0))
    assert low <= min([0.0, *values]) and max([0.0, *values]) <= high
    assert -1.04 <= low < high <= 1.04
    span = max([0.0, *values]) - min([0.0, *values])
    assert high - low <= max(span, 0.02) * 1.16 + 1e-5  # a margin (rounded to 6 digits), not a fixed [-1, 1]


def _forest(lower: float, upper: float, **extra) -> dict:
    spec = ForestChart(
        id="c",
        title="t",
        caption="c",
        x_title="x",
        rows=(ForestRow("a", "g", (lower + upper) / 2, lower, upper, "h"),),
        lines=(RefLine(0.0, "0"),),
        x_limits=(-1.0, 1.0),
        **extra,
    )
    return json.loads(str(figure_json(spec)))


def test_a_narrow_interval_fills_the_plot_and_the_zero_line_shows():
    fig = _forest(0.01, 0.08)
    low, high = fig["layout"]["xaxis"]["range"]
    assert low <= 0 < 0.08 <= high and high - low < 0.2
    assert fig["layout"]["xaxis"]["zeroline"] is True


def test_percentage_point_axes_scale_values_and_bars_together():
    fig = _forest(-0.1, 0.3, x_unit="pp")
    trace = fig["data"][0]
    assert trace["x"] == [10.0]
    assert trace["error_x"]["array"] == [20.0] and trace["error_x"]["arrayminus"] == [20.0]
    low, high = fig["layout"]["xaxis"]["range"]
    assert low <= -10 and 30 <= high and fig["layout"]["xaxis"]["ticksuffix"] == " pp"


def test_a_fixed_range_is_kept():
    fig = _forest(0.01, 0.08, x_range=(-1.02, 1.02))
    assert fig["layout"]["xaxis"]["range"] == [-1.02, 1.02]


def test_series_with_equal_values_get_their_own_symbol_and_slot():
    series = tuple(Series(name, (1,), (0.5,), dash) for name, dash in (("a", "solid"), ("b", "dash"), ("c", "solid")))
    fig = json.loads(str(figure_json(LineChart("m", "t", "c", "k", "y", series, (0.0, 1.05)))))
    symbols = [trace["marker"]["symbol"] for trace in fig["data"]]
    groups = [trace["offsetgroup"] for trace in fig["data"]]
    assert len(set(symbols)) == 3 and len(set(groups)) == 3
    assert fig["layout"]["scattermode"] == "group"


def test_dot_chart_keeps_the_order_and_colours_the_direction():
    dots = (Dot("t1", "candidate better", 0.5, "h1"), Dot("t2", "candidate worse", -0.25, "h2"))
    fig = json.loads(str(figure_json(DotChart("d", "t", "c", "x", dots, (-1.0, 1.0), "pp"))))
    assert [trace["name"] for trace in fig["data"]] == ["candidate better", "candidate worse"]
    assert fig["data"][0]["x"] == [50.0] and fig["data"][1]["x"] == [-25.0]
    assert fig["layout"]["yaxis"]["categoryarray"] == ["t1", "t2"]
    low, high = fig["layout"]["xaxis"]["range"]
    assert low <= -25 and 50 <= high
