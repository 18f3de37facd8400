"""The eval's outputs: a rich table on the terminal, Markdown, JSON and a PNG chart.

>>> from ctxsieve.eval.summary import Row, recall_by_slice, slice_counts
>>> print(markdown_table([Row("scored_knapsack/cache", 750, 68, recall=0.96, cache_share=0.25)]).splitlines()[2])
| scored_knapsack/cache | session | 750 | 0.960 | - | - | - | - | - | - | - | - | - | - | 0.250 | - |
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ctxsieve.errors import MissingExtraError
from ctxsieve.eval.runner import CallRecord
from ctxsieve.eval.summary import Row, recall_by_slice, slice_counts

# (Row attribute, column header, format)
COLUMNS: list[tuple[str, str, str]] = [
    ("recall", "recall", ".3f"),
    ("precision", "prec/tok", ".3f"),
    ("distractor_rate", "distractor", ".3f"),
    ("superseded_rate", "superseded", ".3f"),
    ("unanswerable_lookalike", "unans look-alike", ".3f"),
    ("noise_rate", "noise", ".3f"),
    ("tokens_per_call", "prompt tok", ".0f"),
    ("uncached_tokens", "uncached tok", ".0f"),
    ("window_tokens", "window tok", ".0f"),
    ("candidate_tokens", "cand tok", ".0f"),
    ("stable_prefix_reuse", "stable reuse", ".2f"),
    ("cache_share", "cache share", ".3f"),
    ("cache_share_10", "cache 10-turn", ".3f"),
]


# The terminal shows fewer columns than the files: as many as fit its width, most useful first
# (a cut "0.…" helps nobody), every column with --wide. Fitted by measuring the table, not by
# fixed widths: a configuration name such as "scored_knapsack+llm/cache" takes 8 more columns.
PRIORITY: tuple[str, ...] = ("recall", "superseded_rate", "tokens_per_call", "uncached_tokens", "cache_share")
PRIORITY += ("precision", "distractor_rate", "unanswerable_lookalike", "noise_rate", "cache_share_10")
PRIORITY += ("window_tokens", "candidate_tokens")
PRIORITY += ("stable_prefix_reuse",)
SHORT_HEADERS = {"superseded_rate": "supers.", "tokens_per_call": "prompt", "uncached_tokens": "uncached"}
SHORT_HEADERS |= {"cache_share": "cache", "cache_share_10": "cache 10", "distractor_rate": "distr."}
SHORT_HEADERS |= {"precision": "prec/tok", "noise_rate": "noise", "window_tokens": "window"}
SHORT_HEADERS |= {"candidate_tokens": "cand", "stable_prefix_reuse": "reuse", "unanswerable_lookalike": "unans"}


def _cell(value: Any, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def cells(row: Row, columns: Sequence[tuple[str, str, str]] = COLUMNS) -> list[str]:
    return [row.config, row.mode, str(row.budget)] + [_cell(getattr(row, a), f) for a, _, f in columns]


def headers(columns: Sequence[tuple[str, str, str]] = COLUMNS) -> list[str]:
    return ["config", "mode", "budget"] + [h for _, h, _ in columns]


def terminal_columns(count: int, short: bool = True) -> list[tuple[str, str, str]]:
    """The ``count`` most useful columns, in the files' order, with short headers if ``short``.

    >>> [h for _, h, _ in terminal_columns(3)]
    ['recall', 'supers.', 'prompt']
    """
    chosen = set(PRIORITY[:count])
    return [(a, SHORT_HEADERS.get(a, h) if short else h, f) for a, h, f in COLUMNS if a in chosen]


def sorted_rows(rows: Sequence[Row]) -> list[Row]:
    return sorted(rows, key=lambda r: (r.mode != "session", r.budget, r.config))


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(headers()) + " |", "|" + "---|" * len(headers())]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in sorted_rows(rows)]
    return "\n".join(lines)


MODE_TITLES = {"session": "in sessions", "question": "every question alone"}


def natural_width(table: Any) -> int:
    """The columns ``table`` needs to show every cell whole."""
    from rich.console import Console

    return Console(width=10_000, file=io.StringIO()).measure(table).maximum


def _table(rows: Sequence[Row], title: str, columns: Sequence[tuple[str, str, str]]) -> Any:
    from rich import box
    from rich.table import Table

    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    for h in headers(columns)[:1] + headers(columns)[2:]:
        table.add_column(h, justify="left" if h == "config" else "right", no_wrap=True)
    last = None
    for r in sorted_rows(rows):
        if last is not None and r.budget != last:
            table.add_section()
        last = r.budget
        table.add_row(*(cells(r, columns)[:1] + cells(r, columns)[2:]))
    return table


def rich_tables(rows: Sequence[Row], title: str = "ctxsieve eval", width: int = 80, wide: bool = False) -> list[Any]:
    """The terminal tables, one per mode: every column with full headers when they fit ``width``
    (or with ``wide``, whatever the width: print them uncropped, see ``natural_width``), else the
    most useful columns that fit, short headers. The mode is the title, not a column."""
    try:
        import rich  # noqa: F401
    except ImportError:
        raise MissingExtraError("eval", "rich") from None
    tables = []
    for mode in sorted({r.mode for r in rows}, key=lambda m: m != "session"):
        group = [r for r in rows if r.mode == mode]
        name = f"{title}: {MODE_TITLES.get(mode, mode)}"
        table = _table(group, name, COLUMNS)
        if not wide and natural_width(table) > width:
            for count in range(len(PRIORITY), 0, -1):
                table = _table(group, name, terminal_columns(count))
                if natural_width(table) <= width:
                    break
        tables.append(table)
    return tables


def print_tables(console: Any, rows: Sequence[Row], title: str, wide: bool = False) -> None:
    """Print ``rich_tables`` on ``console``; with ``wide`` every cell whole, past the terminal's
    edge if need be (the terminal wraps a line, where rich would cut the cells: it caps a print
    at the console's width, so the console widens for each table)."""
    for table in rich_tables(rows, title=title, width=console.width, wide=wide):
        narrow = console.width
        if wide:
            console.width = max(narrow, natural_width(table))
        try:
            console.print(table)
        finally:
            console.width = narrow


def slice_table(
    names: Sequence[str],
    table: Mapping[tuple[str, int], Mapping[str, float | None]],
    counts: Mapping[str, int] | None = None,
) -> str:
    """Recall by question type and language: one table per mode and budget, a row per slice
    with ``n`` (its answerable questions: a recall over 9 questions moves by 0.11 a question)
    and a column per configuration."""
    counts = counts or {}
    groups: dict[tuple[bool, int], list[str]] = {}
    for label, budget in table:
        groups.setdefault((label.endswith(PER_QUESTION), budget), []).append(label)
    parts = []
    for (alone, budget), labels in sorted(groups.items()):
        labels = sorted(labels)
        configs = [lab.removesuffix(PER_QUESTION) for lab in labels]
        parts.append(f"{'Every question alone' if alone else 'In sessions'}, {budget} tokens:")
        parts.append("")
        parts.append("| slice | n | " + " | ".join(configs) + " |")
        parts.append("|" + "---|" * (len(configs) + 2))
        for name in names:
            vals = [_cell(table[(lab, budget)].get(name), ".3f") for lab in labels]
            parts.append("| " + " | ".join([name, str(counts.get(name, 0)), *vals]) + " |")
        parts.append("")
    return "\n".join(parts).rstrip("\n")


PER_QUESTION = " (per question)"  # summary._label's suffix for the per-question mode


def markdown_report(
    rows: Sequence[Row],
    targets: Sequence[str],
    env: Mapping[str, Any],
    command: str,
    slices: str = "",
) -> str:
    parts = [
        "# ctxsieve eval",
        "",
        f"`{command}`, {env.get('date', '')}, kernels: {env.get('backend', '')}, "
        f"corpus: {env.get('corpus', '')}, retriever: {env.get('retriever', '')}, "
        f"history: {env.get('history', 'plain')}, "
        f"session ceiling: {env.get('max_prompt_tokens') or 'default (100000)'}.",
        "",
        markdown_table(rows),
        "",
        "## Targets",
        "",
        *[f"- {t}" for t in targets],
        "",
        "Column definitions: docs/eval.md.",
        "",
    ]
    if slices:
        parts += ["## Recall by question type and language", "", slices, ""]
    return "\n".join(parts)


def json_report(
    rows: Sequence[Row], records: Sequence[CallRecord], targets: Sequence[str], env: Mapping[str, Any]
) -> str:
    _, by_slice = recall_by_slice(records)
    return json.dumps(
        {
            "environment": dict(env),
            "rows": [r.as_dict() for r in sorted_rows(rows)],
            "recall_by_slice": [{"config": c, "budget": b, **v} for (c, b), v in sorted(by_slice.items())],
            "slice_questions": slice_counts(records),
            "targets": list(targets),
            "calls": [c.as_dict() for c in records],
        },
        indent=1,
        ensure_ascii=False,
    )


POLICY_COLOURS = {"everything": "#7f7f7f", "fixed_slots": "#1f77b4", "scored_knapsack": "#d62728", "density": "#2ca02c"}
# model rescoring is its own policy on the chart: in the default's red its line hid under it
POLICY_COLOURS["scored_knapsack+llm"] = "#9467bd"
OTHER_COLOUR = "#8c564b"
LAYOUT_STYLES: dict[str, Any] = {"cache": "-", "seed": "--"}


def _panels(rows: Sequence[Row]) -> list[tuple[str, str, str]]:
    """(title, mode, Row attribute) of each panel, for the modes that were run."""
    modes = {r.mode for r in rows}
    out = []
    if "question" in modes:
        out.append(("Recall, every question alone", "question", "recall"))
    if "session" in modes:
        out += [
            ("Recall in sessions", "session", "recall"),
            ("Prefix-cache share in sessions", "session", "cache_share"),
        ]
    return out


def _zoom(values: Sequence[float]) -> tuple[float, float]:
    # zoomed to the data (all values may sit in 0.8-1.0), never past [0, 1]
    lo, hi = min(values, default=0.0), max(values, default=1.0)
    pad = max(0.02, (hi - lo) * 0.12)
    return max(0.0, lo - pad), min(1.0, hi + pad) if hi + pad < 1.0 else 1.005


def _spread_labels(
    ends: Sequence[tuple[float, float, str, str]], lo: float, hi: float
) -> list[tuple[float, tuple[float, float, str, str]]]:
    """One label per policy at the end of its lines ("policy seed"/"policy cache" only where the
    layouts end apart), moved apart vertically and kept inside the axes."""
    gap = (hi - lo) * 0.06
    by_policy: dict[str, list[tuple[float, float, str, str]]] = {}
    for end in ends:
        by_policy.setdefault(end[2].split(" ")[0], []).append(end)
    labels = []
    for policy, group in by_policy.items():
        ys = [e[1] for e in group]
        if max(ys) - min(ys) <= gap:
            x, y, _, colour = max(group, key=lambda e: e[1])
            labels.append((x, y, policy, colour))
        else:
            labels += group
    labels.sort(key=lambda e: e[1])
    placed: list[float] = []
    for _, y, _, _ in labels:
        placed.append(max(y, placed[-1] + gap) if placed else max(y, lo + gap / 2))
    # pushed past the top: move the labels of the top cluster down, keeping the gaps
    for i in range(len(placed) - 1, -1, -1):
        ceiling = hi - gap / 2 if i == len(placed) - 1 else placed[i + 1] - gap
        placed[i] = min(placed[i], ceiling)
    return list(zip(placed, labels))


def chart(rows: Sequence[Row], path: Path) -> Path:
    """Small multiples against budget: recall per question, recall in sessions and the
    prefix-cache share; one colour per policy in every panel, solid for the cache layout and
    dashed for the seed layout, each line labelled at its end (no legend over the data)."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display on CI machines
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError:
        raise MissingExtraError("eval", "matplotlib") from None
    panels = _panels(rows)
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.4), squeeze=False)
    configs = sorted({r.config for r in rows})
    drawn: set[str] = set()  # policies with at least one point: the legend names only those
    for ax, (title, mode, attr) in zip(axes[0], panels):
        values: list[float] = []
        ends: list[tuple[float, float, str, str]] = []
        for name in configs:
            series = sorted((r for r in rows if r.config == name and r.mode == mode), key=lambda r: r.budget)
            points = [(r.budget, getattr(r, attr)) for r in series if getattr(r, attr) is not None]
            if not points:
                continue
            policy, _, layout = name.partition("/")
            colour = POLICY_COLOURS.get(policy, OTHER_COLOUR)
            drawn.add(policy)
            xs, ys = zip(*points)
            ax.plot(xs, ys, LAYOUT_STYLES.get(layout, ":"), color=colour, marker="o", markersize=3.5, linewidth=1.6)
            values += ys
            ends.append((xs[-1], ys[-1], f"{policy} {layout}", colour))
        if not values:
            # say why the panel is empty (one-turn sessions share no prefix, unanswerable
            # questions have no recall) rather than leave a blank axis
            ax.text(0.5, 0.5, "not measurable on this corpus", transform=ax.transAxes, ha="center", color="#555555")
        lo, hi = _zoom(values)
        for y_text, (x, y, label, colour) in _spread_labels(ends, lo, hi):
            ax.annotate(label, (x, y), xytext=(x * 1.05, y_text), fontsize=7, color=colour, va="center")
        budgets = sorted({r.budget for r in rows})
        ax.set_xscale("log")
        ax.set_xticks(budgets, [str(b) for b in budgets])
        ax.minorticks_off()
        ax.set_xlim(budgets[0] * 0.9, budgets[-1] * 1.6)
        ax.set_ylim(lo, hi)
        ax.set(title=title, xlabel="budget (tokens)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("share")
    order = [*POLICY_COLOURS, *sorted(drawn - set(POLICY_COLOURS))]
    handles = [Line2D([], [], color=POLICY_COLOURS.get(p, OTHER_COLOUR), label=p) for p in order if p in drawn]
    layouts = {r.config.partition("/")[2] for r in rows}
    handles += [
        Line2D([], [], color="black", linestyle=s, label=f"{lay} layout")
        for lay, s in LAYOUT_STYLES.items()
        if lay in layouts
    ]
    # as many entries a row as the figure's width holds (one panel holds three), never cut at its edges
    ncol = max(1, min(len(handles), 3 * len(panels)))
    legend_rows = -(-len(handles) // ncol)
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=7.5, frameon=False)
    fig.tight_layout(rect=(0, 0.02 + 0.05 * legend_rows, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_all(
    out: Path,
    rows: Sequence[Row],
    records: Sequence[CallRecord],
    targets: Sequence[str],
    env: Mapping[str, Any],
    command: str,
) -> list[Path]:
    """``eval.md``, ``eval.json`` and ``eval.png`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    md = out / "eval.md"
    slices = slice_table(*recall_by_slice(records), slice_counts(records))
    md.write_text(markdown_report(rows, targets, env, command, slices), encoding="utf-8")
    js = out / "eval.json"
    js.write_text(json_report(rows, records, targets, env), encoding="utf-8")
    return [md, js, chart(rows, out / "eval.png")]
