"""The eval's outputs: a rich table on the terminal, Markdown, JSON and a PNG chart.

>>> from ctxsieve.eval.summary import Row, recall_by_slice
>>> print(markdown_table([Row("scored_knapsack/cache", 750, 68, recall=0.96, cache_share=0.25)]).splitlines()[2])
| scored_knapsack/cache | session | 750 | 0.960 | - | - | - | - | - | - | - | - | - | 0.250 | - |
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ctxsieve.errors import MissingExtraError
from ctxsieve.eval.runner import CallRecord
from ctxsieve.eval.summary import Row, recall_by_slice

# (Row attribute, column header, format)
COLUMNS: list[tuple[str, str, str]] = [
    ("recall", "recall", ".3f"),
    ("precision", "prec/tok", ".3f"),
    ("distractor_rate", "distractor", ".3f"),
    ("superseded_rate", "superseded", ".3f"),
    ("noise_rate", "noise", ".3f"),
    ("tokens_per_call", "prompt tok", ".0f"),
    ("uncached_tokens", "uncached tok", ".0f"),
    ("window_tokens", "window tok", ".0f"),
    ("candidate_tokens", "cand tok", ".0f"),
    ("stable_prefix_reuse", "stable reuse", ".2f"),
    ("cache_share", "cache share", ".3f"),
    ("cache_share_10", "cache 10-turn", ".3f"),
]


# The terminal shows fewer columns than the files: what fits 80 columns, more from 120, every
# column from 160 or with --wide (a cut "0.…" helps nobody; measured with rich at each width).
NARROW = ("recall", "superseded_rate", "tokens_per_call", "uncached_tokens", "cache_share")
MEDIUM = (*NARROW[:2], "precision", "distractor_rate", "noise_rate", *NARROW[2:], "cache_share_10")
SHORT_HEADERS = {"superseded_rate": "supers.", "tokens_per_call": "prompt", "uncached_tokens": "uncached"}
SHORT_HEADERS |= {"cache_share": "cache", "cache_share_10": "cache 10", "distractor_rate": "distr."}
SHORT_HEADERS |= {"precision": "prec/tok", "noise_rate": "noise", "window_tokens": "window"}


def _cell(value: Any, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def cells(row: Row, columns: Sequence[tuple[str, str, str]] = COLUMNS) -> list[str]:
    return [row.config, row.mode, str(row.budget)] + [_cell(getattr(row, a), f) for a, _, f in columns]


def headers(columns: Sequence[tuple[str, str, str]] = COLUMNS) -> list[str]:
    return ["config", "mode", "budget"] + [h for _, h, _ in columns]


def terminal_columns(width: int, wide: bool = False) -> list[tuple[str, str, str]]:
    """The columns a terminal of ``width`` shows (every one with ``wide``), short headers."""
    if wide or width >= 160:
        return COLUMNS
    chosen = MEDIUM if width >= 120 else NARROW
    by_name = {a: f for a, _, f in COLUMNS}
    return [(a, SHORT_HEADERS.get(a, a), by_name[a]) for a in chosen]


def sorted_rows(rows: Sequence[Row]) -> list[Row]:
    return sorted(rows, key=lambda r: (r.mode != "session", r.budget, r.config))


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(headers()) + " |", "|" + "---|" * len(headers())]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in sorted_rows(rows)]
    return "\n".join(lines)


MODE_TITLES = {"session": "in sessions", "question": "every question alone"}


def rich_tables(rows: Sequence[Row], title: str = "ctxsieve eval", width: int = 80, wide: bool = False) -> list[Any]:
    """The terminal tables, one per mode, for a console ``width`` columns wide (see
    ``terminal_columns``; the mode is the table's title, not a column, to save the width)."""
    try:
        from rich import box
        from rich.table import Table
    except ImportError:
        raise MissingExtraError("eval", "rich") from None
    columns = terminal_columns(width, wide)
    tables = []
    for mode in sorted({r.mode for r in rows}, key=lambda m: m != "session"):
        table = Table(title=f"{title}: {MODE_TITLES.get(mode, mode)}", box=box.SIMPLE_HEAD, pad_edge=False)
        for h in headers(columns)[:1] + headers(columns)[2:]:
            table.add_column(h, justify="left" if h == "config" else "right", no_wrap=True)
        last = None
        for r in sorted_rows([r for r in rows if r.mode == mode]):
            if last is not None and r.budget != last:
                table.add_section()
            last = r.budget
            table.add_row(*(cells(r, columns)[:1] + cells(r, columns)[2:]))
        tables.append(table)
    return tables


def slice_table(names: Sequence[str], table: Mapping[tuple[str, int], Mapping[str, float | None]]) -> str:
    """Recall by question type and language, one row per configuration and budget."""
    head = ["config", "budget", *names]  # config says "(per question)" for that mode
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for config, budget in sorted(table, key=lambda k: (k[1], k[0])):
        vals = [_cell(table[(config, budget)].get(n), ".3f") for n in names]
        lines.append("| " + " | ".join([config, str(budget), *vals]) + " |")
    return "\n".join(lines)


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
            "targets": list(targets),
            "calls": [c.as_dict() for c in records],
        },
        indent=1,
        ensure_ascii=False,
    )


POLICY_COLOURS = {"everything": "#7f7f7f", "fixed_slots": "#1f77b4", "scored_knapsack": "#d62728", "density": "#2ca02c"}
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
    for ax, (title, mode, attr) in zip(axes[0], panels):
        values: list[float] = []
        ends: list[tuple[float, float, str, str]] = []
        for name in configs:
            series = sorted((r for r in rows if r.config == name and r.mode == mode), key=lambda r: r.budget)
            points = [(r.budget, getattr(r, attr)) for r in series if getattr(r, attr) is not None]
            if not points:
                continue
            policy, _, layout = name.partition("/")
            colour = POLICY_COLOURS.get(policy.split("+")[0], "#9467bd")
            xs, ys = zip(*points)
            ax.plot(xs, ys, LAYOUT_STYLES.get(layout, ":"), color=colour, marker="o", markersize=3.5, linewidth=1.6)
            values += ys
            ends.append((xs[-1], ys[-1], f"{policy} {layout}", colour))
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
    handles = [Line2D([], [], color=c, label=p) for p, c in POLICY_COLOURS.items() if any(p in n for n in configs)]
    handles += [Line2D([], [], color="black", linestyle=s, label=f"{lay} layout") for lay, s in LAYOUT_STYLES.items()]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=7.5, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
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
    slices = slice_table(*recall_by_slice(records))
    md.write_text(markdown_report(rows, targets, env, command, slices), encoding="utf-8")
    js = out / "eval.json"
    js.write_text(json_report(rows, records, targets, env), encoding="utf-8")
    return [md, js, chart(rows, out / "eval.png")]
