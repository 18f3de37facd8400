"""The terminal tables and the chart, met with a run's real names and edge cases: each case here
cut cells, hid a line or left a panel blank before (review of the issue-17 eval)."""

from __future__ import annotations

import pytest

LONG_NAMES = ["scored_knapsack+llm/cache", "scored_knapsack+llm/seed", "fixed_slots/cache", "everything/seed"]


def _rows(configs=LONG_NAMES, budgets=(750, 1000, 2000), **values):
    from ctxsieve.eval.summary import Row

    full = dict(recall=0.5, superseded_rate=0.1, tokens_per_call=12345.0, uncached_tokens=1234.0, cache_share=0.8)
    full |= dict(precision=0.2, distractor_rate=0.1, noise_rate=0.1, window_tokens=100.0, candidate_tokens=1000.0)
    full |= dict(stable_prefix_reuse=1.0) | values
    return [Row(c, b, 137, mode=m, **full) for m in ("session", "question") for b in budgets for c in configs]


def _render(rows, width, wide=False) -> str:
    import io

    from rich.console import Console

    from ctxsieve.eval import report

    console = Console(width=width, record=True, file=io.StringIO())
    report.print_tables(console, rows, "ctxsieve eval: 205 documents", wide=wide)
    return console.export_text()


@pytest.mark.parametrize(("width", "last"), [(80, "uncached"), (120, "cache")])
def test_tables_fit_with_the_llm_configuration_names(width, last):
    # the columns were chosen by fixed widths: "scored_knapsack+llm/cache" cut every cell to "0.…"
    text = _render(_rows(), width)
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= width
    header = next(line for line in text.splitlines() if line.lstrip().startswith("config"))
    assert header.split()[-1] == last and "scored_knapsack+llm/cache" in text


def test_wide_shows_every_column_whole_on_a_narrow_terminal():
    text = _render(_rows(), 80, wide=True)
    assert "…" not in text  # cut to 80 columns before: --wide showed every column as "…"
    assert "cache 10-turn" in text and "stable reuse" in text and "0.800" in text


def _chart(rows, tmp_path, monkeypatch):
    import matplotlib.figure

    from ctxsieve.eval import report

    figures = []
    save = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(
        matplotlib.figure.Figure, "savefig", lambda fig, *a, **k: (figures.append(fig), save(fig, *a, **k))
    )
    report.chart(rows, tmp_path / "eval.png")
    return figures[0]


def test_chart_one_panel_legend_is_whole_and_names_only_what_is_drawn(tmp_path, monkeypatch):
    rows = [r for r in _rows([*LONG_NAMES, "density/cache"]) if r.mode == "question"]
    for r in rows:
        if r.config.startswith("density"):
            r.recall = None  # drawn nowhere: not in the legend
    fig = _chart(rows, tmp_path, monkeypatch)
    legend = fig.legends[0]
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == ["everything", "fixed_slots", "scored_knapsack+llm", "cache layout", "seed layout"]
    fig.canvas.draw()
    box, frame = legend.get_window_extent(), fig.bbox
    assert box.x0 >= frame.x0 and box.x1 <= frame.x1  # cut at both edges of a one-panel figure before
    colours = {line.get_color() for line in fig.axes[0].get_lines()}
    assert len(colours) == 3  # +llm has its own colour, not the default's red


def test_chart_panel_without_data_says_so(tmp_path, monkeypatch):
    rows = [r for r in _rows(cache_share=None) if r.mode == "session"]
    fig = _chart(rows, tmp_path, monkeypatch)
    texts = [t.get_text() for t in fig.axes[1].texts]
    assert "not measurable on this corpus" in texts
    assert "not measurable on this corpus" not in [t.get_text() for t in fig.axes[0].texts]
