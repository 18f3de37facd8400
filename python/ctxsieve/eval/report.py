"""The eval's outputs: a rich table on the terminal, Markdown, JSON and a PNG chart.

>>> from ctxsieve.eval.summary import Row, recall_by_slice
>>> print(markdown_table([Row("scored_knapsack/cache", 750, 68, recall=0.96, cache_share=0.25)]).splitlines()[2])
| scored_knapsack/cache | 750 | 0.960 | - | - | - | - | - | - | - | - | - | 0.250 | - |
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


def _cell(value: Any, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def cells(row: Row) -> list[str]:
    return [row.config, str(row.budget)] + [_cell(getattr(row, a), f) for a, _, f in COLUMNS]


def headers() -> list[str]:
    return ["config", "budget"] + [h for _, h, _ in COLUMNS]


def sorted_rows(rows: Sequence[Row]) -> list[Row]:
    return sorted(rows, key=lambda r: (r.budget, r.config))


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(headers()) + " |", "|" + "---|" * len(headers())]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in sorted_rows(rows)]
    return "\n".join(lines)


def rich_table(rows: Sequence[Row], title: str = "ctxsieve eval") -> Any:
    try:
        from rich.table import Table
    except ImportError:
        raise MissingExtraError("eval", "rich") from None
    table = Table(title=title, show_lines=False)
    for h in headers():
        table.add_column(h, justify="left" if h == "config" else "right", no_wrap=True)
    last_budget = None
    for r in sorted_rows(rows):
        if last_budget is not None and r.budget != last_budget:
            table.add_section()
        last_budget = r.budget
        table.add_row(*cells(r))
    return table


def slice_table(names: Sequence[str], table: Mapping[tuple[str, int], Mapping[str, float | None]]) -> str:
    """Recall by question type and language, one row per configuration and budget."""
    head = ["config", "budget", *names]
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


def chart(rows: Sequence[Row], path: Path) -> Path:
    """Recall and prefix-cache share against budget, one line per configuration."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display on CI machines
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingExtraError("eval", "matplotlib") from None
    configs = sorted({r.config for r in rows})
    fig, (ax_r, ax_c) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name in configs:
        series = sorted((r for r in rows if r.config == name), key=lambda r: r.budget)
        budgets = [r.budget for r in series]
        cache = name.endswith("/cache")
        style = "-" if cache else "--"
        # the layout orders the window but never changes what is in it: one recall line per policy
        if cache or name.replace("/seed", "/cache") not in configs:
            label = name.rsplit("/", 1)[0]
            ax_r.plot(budgets, [r.recall or 0.0 for r in series], "-", marker="o", label=label)
        ax_c.plot(budgets, [r.cache_share or 0.0 for r in series], style, marker="o", label=name)
    ax_r.legend(fontsize=7, loc="lower right")
    ax_r.set(title="Recall at budget (same in both layouts)", xlabel="budget (tokens)", ylabel="recall", ylim=(0, 1.02))
    ax_c.set(title="Prefix-cache share", xlabel="budget (tokens)", ylabel="share of prompt tokens", ylim=(0, 1.02))
    for ax in (ax_r, ax_c):
        ax.grid(alpha=0.3)
    ax_c.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
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
