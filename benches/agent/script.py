"""The scripted support conversation: per user turn a question, two or three tool calls (in
one assistant message in some turns, one after another in others) and a final answer.

Everything is data made from a seed, so every path sees the same conversation byte for byte:
``build(turns=30, seed=13)``. A scripted model answers each call from ``ScriptTurn.reply``.

>>> s = build(turns=6)
>>> [len(t.rounds) for t in s.turns], sum(len(r) for r in s.turns[0].rounds)
([1, 2, 2, 2, 1, 3], 2)
>>> s.turns[3].rounds[1][0].name, 50_000 <= len(s.turns[3].rounds[1][0].result) <= 200_000
('service_logs', True)
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from benches.agent.results import BIG, SMALL

SYSTEM = (
    "You are the support agent of Fernhill Outfitters, an online shop for camping gear. Answer "
    "the customer's question from the tools' results and the policy; say what you checked."
)


def _tool(name: str, description: str, **args: str) -> dict[str, Any]:
    props = {k: {"type": "string", "description": v} for k, v in args.items()}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": props, "required": list(args)},
        },
    }


TOOLS = [
    _tool("get_order", "An order's status, items and total.", order_id="The order number, e.g. FH-10233."),
    _tool("shipment_events", "Carrier events of an order's parcel.", order_id="The order number."),
    _tool("get_customer", "A customer's account: plan, lock state, open orders.", customer_id="e.g. C-4410."),
    _tool(
        "search_tickets",
        "Support tickets of a customer.",
        customer_id="The customer id.",
        status="open, closed or any.",
    ),
    _tool("refund_status", "Where an order's refund is.", order_id="The order number."),
    _tool("service_logs", "Recent log lines of one service.", service="payments, checkout, auth or shipping-api."),
    _tool(
        "export_invoices",
        "Every invoice of a customer in one year, as JSON.",
        customer_id="The customer id.",
        year="Four digits.",
    ),
]

# (question template, rounds of tool names): one pattern per turn, in this cycle
PATTERNS: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    (
        "Where is order {order}? The customer says the parcel is late; what are our shipping times?",
        (("get_order", "shipment_events"),),
    ),
    (
        "Customer {customer} cannot log in and says the account is locked. Any open tickets?",
        (("get_customer",), ("search_tickets",)),
    ),
    (
        "Order {order} came back damaged. Has the refund been paid, and is there a ticket for it?",
        (("get_order", "refund_status"), ("search_tickets",)),
    ),
    (
        "Customer {customer} could not pay this morning. Did the payment service fail?",
        (("get_customer",), ("service_logs",)),
    ),
    (
        "Order {order} arrived with an item missing. What is the return process, and where is the refund?",
        (("get_order", "shipment_events", "refund_status"),),
    ),
    (
        "Customer {customer} disputes a charge and needs every invoice of {year}. Which order is it?",
        (("get_customer",), ("export_invoices",), ("get_order",)),
    ),
)
BIG_SIZES = (50_000, 200_000)  # bytes of a big result, drawn per result


@dataclass(frozen=True)
class ToolStep:
    """One tool call the scripted model makes, and the result the tool returns."""

    call_id: str
    name: str
    arguments: dict[str, str]
    result: str

    def openai_call(self) -> dict[str, Any]:
        return {
            "id": self.call_id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments, sort_keys=True)},
        }


@dataclass(frozen=True)
class ScriptTurn:
    """One user turn: the question, the tool rounds (each round is one assistant message; a
    round of several steps is a parallel call), and the final answer."""

    number: int
    question: str
    rounds: tuple[tuple[ToolStep, ...], ...]
    answer: str

    @property
    def calls(self) -> int:
        """Model calls in this turn: one per round, then the answer."""
        return len(self.rounds) + 1

    def reply(self, k: int) -> dict[str, Any]:
        """The scripted model's reply to call ``k`` of the turn (OpenAI Chat shape)."""
        if k < len(self.rounds):
            return {"role": "assistant", "content": None, "tool_calls": [s.openai_call() for s in self.rounds[k]]}
        if k == len(self.rounds):
            return {"role": "assistant", "content": self.answer}
        raise IndexError(f"turn {self.number} has {self.calls} calls, asked for call {k}")


@dataclass(frozen=True)
class Script:
    """The whole conversation, and where its one fallback happens: call ``fallback[1]`` of
    turn ``fallback[0]`` goes to the model with the smaller window."""

    turns: tuple[ScriptTurn, ...]
    fallback: tuple[int, int]

    @property
    def calls(self) -> int:
        return sum(t.calls for t in self.turns)

    @property
    def big_results(self) -> int:
        return sum(1 for t in self.turns for r in t.rounds for s in r if s.name in BIG)


def _arguments(name: str, order: str, customer: str, year: str, service: str) -> dict[str, str]:
    if name in ("get_order", "shipment_events", "refund_status"):
        return {"order_id": order}
    if name == "search_tickets":
        return {"customer_id": customer, "status": "any"}
    if name == "service_logs":
        return {"service": service}
    if name == "export_invoices":
        return {"customer_id": customer, "year": year}
    return {"customer_id": customer}


def _turn(number: int, rng: random.Random) -> ScriptTurn:
    template, names = PATTERNS[(number - 1) % len(PATTERNS)]
    order, customer = f"FH-{rng.randint(10_000, 99_999)}", f"C-{rng.randint(1000, 9999)}"
    year, service = str(rng.choice((2024, 2025))), rng.choice(("payments", "checkout"))
    rounds = []
    k = 0
    for round_names in names:
        steps = []
        for name in round_names:
            args = _arguments(name, order, customer, year, service)
            result = BIG[name](rng, args, rng.randint(*BIG_SIZES)) if name in BIG else SMALL[name](rng, args)
            steps.append(ToolStep(f"call_{number:03d}_{k}", name, args, result))
            k += 1
        rounds.append(tuple(steps))
    answer = (
        f"I checked {', '.join(s.name for r in rounds for s in r)} for "
        f"{order if '{order}' in template else customer}. Here is what I found, with the policy section "
        f"that applies; tell me if you want me to open a ticket."
    )
    question = template.format(order=order, customer=customer, year=year)
    return ScriptTurn(number, question, tuple(rounds), answer)


def build(turns: int = 30, seed: int = 13) -> Script:
    """The scripted conversation of ``turns`` user turns; the fallback is the second call of
    the turn two thirds of the way in."""
    if turns < 3:
        raise ValueError(f"turns: the script needs at least 3 turns, got {turns}")
    rng = random.Random(seed)
    return Script(tuple(_turn(n, rng) for n in range(1, turns + 1)), (max(2, 2 * turns // 3), 1))
