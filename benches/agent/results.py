"""Tool results of the scripted conversation, made by seeded generators (no files, no network).

Small results are JSON records of a few hundred bytes. Two tools return 50-200 KB: an
invoice export (JSON) and service logs (log text), the sizes a real ``export`` or ``logs``
call returns and the reason tool results are capped as they are written.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

STATUSES = ("processing", "shipped", "in_transit", "delivered", "returned")
CARRIERS = ("DPD", "Royal Mail", "UPS", "Evri")
SKUS = ("TENT-2P", "STOVE-MINI", "PACK-45L", "BOOT-W38", "LAMP-USB", "MAT-AIR", "POLE-CF")
SERVICES = ("payments", "checkout", "auth", "shipping-api")
LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)


def order(rng: random.Random, args: dict[str, Any]) -> str:
    lines = [(rng.choice(SKUS), rng.randint(1, 3), round(rng.uniform(9, 240), 2)) for _ in range(rng.randint(1, 4))]
    items = [{"sku": sku, "qty": qty, "price": price} for sku, qty, price in lines]
    total = round(sum(qty * price for _, qty, price in lines), 2)
    return _dumps({"order_id": args["order_id"], "status": rng.choice(STATUSES), "items": items, "total": total})


def shipment(rng: random.Random, args: dict[str, Any]) -> str:
    events = [
        {"at": f"2026-11-{10 + k:02d}T{rng.randint(6, 21):02d}:00Z", "where": f"hub {rng.randint(1, 40)}", "event": e}
        for k, e in enumerate(("collected", "sorted", "out_for_delivery", "delivered")[: rng.randint(2, 4)])
    ]
    return _dumps({"order_id": args["order_id"], "carrier": rng.choice(CARRIERS), "events": events})


def customer(rng: random.Random, args: dict[str, Any]) -> str:
    return _dumps(
        {
            "customer_id": args["customer_id"],
            "plan": rng.choice(("basic", "plus", "trade")),
            "since": f"20{rng.randint(15, 25)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
            "locked": rng.random() < 0.3,
            "open_orders": rng.randint(0, 4),
        }
    )


def tickets(rng: random.Random, args: dict[str, Any]) -> str:
    rows = [
        {"ticket": f"T-{rng.randint(10_000, 99_999)}", "status": args.get("status", "open"), "subject": s}
        for s in rng.sample(("late parcel", "login", "refund", "damaged item", "invoice copy"), rng.randint(1, 3))
    ]
    return _dumps({"customer_id": args["customer_id"], "tickets": rows})


def refund(rng: random.Random, args: dict[str, Any]) -> str:
    state = rng.choice(("requested", "approved", "paid", "refused"))
    return _dumps({"order_id": args["order_id"], "refund": state, "amount": round(rng.uniform(5, 300), 2)})


def logs(rng: random.Random, args: dict[str, Any], size: int) -> str:
    """Log lines of ``args["service"]`` until the text is ``size`` bytes (ASCII)."""
    lines: list[str] = []
    n = 0
    k = 0
    while n < size:
        level = rng.choice(LEVELS)
        line = (
            f"2026-11-29T{k // 3600 % 24:02d}:{k // 60 % 60:02d}:{k % 60:02d}Z {level} {args['service']} "
            f"req={rng.getrandbits(48):012x} latency_ms={rng.randint(3, 900)} "
            + ("upstream reset by peer" if level == "ERROR" else "handled")
        )
        lines.append(line)
        n += len(line) + 1
        k += 7
    return "\n".join(lines)[:size]


def invoices(rng: random.Random, args: dict[str, Any], size: int) -> str:
    """A JSON invoice export of at least ``size`` bytes (whole records: it stays valid JSON)."""
    rows: list[dict[str, Any]] = []
    n = 40
    while n < size:
        row = {
            "invoice": f"INV-{args['year']}-{len(rows):05d}",
            "customer_id": args["customer_id"],
            "lines": [{"sku": rng.choice(SKUS), "amount": round(rng.uniform(1, 400), 2)} for _ in range(3)],
            "paid": rng.random() < 0.9,
        }
        rows.append(row)
        n += len(_dumps(row)) + 1
    return _dumps({"customer_id": args["customer_id"], "year": args["year"], "invoices": rows})


SMALL: dict[str, Callable[[random.Random, dict[str, Any]], str]] = {
    "get_order": order,
    "shipment_events": shipment,
    "get_customer": customer,
    "search_tickets": tickets,
    "refund_status": refund,
}
BIG: dict[str, Callable[[random.Random, dict[str, Any], int], str]] = {
    "service_logs": logs,
    "export_invoices": invoices,
}
