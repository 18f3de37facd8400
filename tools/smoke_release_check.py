"""Runs inside a fresh virtualenv holding one installed release artefact (see smoke_release.py).

``python -I smoke_release_check.py EXPECTED_BACKEND`` imports the installed ctxsieve, checks it
is the installed copy (not a checkout) and that ``ctxsieve.backend()`` is EXPECTED_BACKEND,
builds a small window from two StaticSources and runs every kernel once; it prints the results
as one JSON object, so that the driver can compare two backends in one environment, and exits
non-zero with the reason on the first check that fails.
"""

from __future__ import annotations

import json
import sys
import sysconfig
from importlib import metadata
from pathlib import Path
from typing import Any


def fail(message: str) -> None:
    print(f"smoke check failed: {message}", file=sys.stderr)
    raise SystemExit(1)


def build_window(ctxsieve: Any) -> dict[str, Any]:
    policy = ctxsieve.StaticSource(
        "You are the support agent of Acme. Answer from the articles below.", name="policy", pinned=True
    )
    kb = ctxsieve.StaticSource(
        [
            "Refunds are possible within 30 days of purchase on every plan, including the Team plan.",
            "Refunds are possible within 30 days of purchase on every plan, including the Team plan!",
            "Shipping takes five to seven working days inside the European Union. " * 6,
            "Two-factor authentication can be turned on under Settings, Security.",
        ],
        name="kb",
        kind="knowledge",
        stability="volatile",
    )
    window = ctxsieve.ContextEngine([policy, kb], budget=130).build_sync("Can I get a refund on the Team plan?")
    reasons = {e.id: e.reason for e in window.trace}
    # what this build must decide on either backend: the pinned policy and the first refund
    # article in, the near-identical copy out as its duplicate, the long article out on budget
    expected = {"policy:0": "pinned", "kb:0": "selected", "kb:1": "duplicate_of:kb:0", "kb:2": "budget"}
    for item_id, reason in expected.items():
        if (got := reasons.get(item_id)) != reason:
            fail(f"window: {item_id} ended as {got!r}, expected {reason!r}; trace:\n{window.trace.explain()}")
    if window.tokens_used > window.budget:
        fail(f"window: {window.tokens_used} tokens used over a budget of {window.budget}")
    return {
        "items": [i.id for i in window.items],
        "reasons": reasons,
        "tokens_used": window.tokens_used,
        "stable_prefix_hash": window.stable_prefix_hash,
        "text": window.to_text(),
    }


def run_kernels(kernels: Any) -> dict[str, Any]:
    texts = ["the refund window is thirty days", "The refund window is thirty days!", "héllo wörld, ünïcode"]
    dedupe = kernels.dedupe(texts, ["a", "b", "c"], [0.5, 0.9, 0.1])
    fill = kernels.fill_budget([5, 5, 5], [0.9, 0.8, 0.7], ["a", "a", "b"], 10, caps={"a": 5})
    return {
        "estimate_tokens": kernels.estimate_tokens(texts),
        "words": kernels.words(texts[2]),
        "shingle_hashes": kernels.shingle_hashes(texts[0]),
        "content_hash": kernels.content_hash(texts[1]),
        "dedupe": dedupe.duplicate_of,
        "fill_budget": [fill.reasons, fill.tokens_used],
        "cache_order": kernels.cache_order(["volatile", "stable", "volatile"], [0.9, 0.1, 0.5]),
        "grep_lines": kernels.grep_lines("alpha\nbeta\ngamma", "a$"),
        "bm25": kernels.bm25_index(["refund policy", "shipping times", "refund refund"]).search("refund", 5),
    }


def main(argv: list[str]) -> None:
    if len(argv) != 1 or argv[0] not in ("native", "python"):
        fail(f"usage: smoke_release_check.py native|python, got {argv}")
    import ctxsieve
    from ctxsieve import kernels

    location = Path(ctxsieve.__file__).resolve()
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    if site not in location.parents:
        fail(f"ctxsieve was imported from {location}, not from this environment's {site}")
    native_files = sorted(p.name for p in location.parent.glob("_native*") if p.suffix != ".pyi")
    if ctxsieve.backend() != argv[0]:
        fail(f"ctxsieve.backend() is {ctxsieve.backend()!r}, expected {argv[0]!r} (extension files: {native_files})")
    print(
        json.dumps(
            {
                "backend": ctxsieve.backend(),
                "version": metadata.version("ctxsieve"),
                "module_version": ctxsieve.__version__,
                "native_files": native_files,
                "window": build_window(ctxsieve),
                "kernels": run_kernels(kernels),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
