"""Compaction and the provider's cache: what a long scripted agent run is billed with early
compaction off, with a plain threshold, and with the minimum-gain rule (issue 14 item 8).

Each run is one ``Conversation`` (input limit 24,000 tokens) driving a scripted agent: per
user turn, a call that asks for two tools, their results (1,200 characters each), a final
call. The summariser is scripted (a few lines per summarised turn) and its request is the
conversation's prefix plus one instruction (``SummaryRequest.call``), billed like a call.

Billing is Anthropic's with the 5-minute TTL, in base-input-token equivalents: a token the
provider reads from its cache costs 0.1, any other input token 1.25 (every call marks its end,
so its new part is written), an output token 5. What the cache holds is what the previous
request sent (``Call.shared_prefix_tokens``; the summariser's request shares the last call's).
The assistant's own replies are left out of the bill (the same in every configuration).

    python benches/bench_compaction.py          # the table
    pytest benches/bench_compaction.py -q       # the same runs, asserted (bench-smoke)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ctxsieve import Conversation, Limits
from ctxsieve.conversation.compaction_gain import ANTHROPIC_5M, CompactionPolicy

CEILING = 24_000
RESULT_CHARS = 1_200
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look up an order.",
            "parameters": {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]},
        },
    }
]


@dataclass
class Bill:
    calls: int = 0
    summariser_calls: int = 0
    prompt: int = 0
    cached: int = 0
    output: int = 0
    cost: float = 0.0
    compactions: int = 0
    declined: int = 0
    forced: int = 0
    log: list[str] = field(default_factory=list)

    def add(self, prompt: int, cached: int, output: int = 0) -> None:
        p = ANTHROPIC_5M
        self.prompt += prompt
        self.cached += cached
        self.output += output
        self.cost += p.read * cached + p.write * (prompt - cached) + p.output * output

    @property
    def cached_share(self) -> float:
        return self.cached / self.prompt if self.prompt else 0.0


class Summariser:
    timeout = 5.0

    def __init__(self, bill: Bill, conv_tokens: Any) -> None:
        self.bill = bill
        self.count = conv_tokens

    async def summarize(self, req: Any) -> str:
        lines = [m["content"] for m in req.messages if m.get("role") == "user" and m.get("content")]
        text = "\n".join(f"- asked: {line[:60]}; every order shipped" for line in lines)
        call = req.call
        if call is not None:
            self.bill.summariser_calls += 1
            self.bill.add(call.prompt_tokens, call.shared_prefix_tokens, self.count(text))
        return text


def run(turns: int, policy: CompactionPolicy | None) -> Bill:
    bill = Bill()
    conv = Conversation(
        system="You track orders for the shop. Answer from the tools. " * 20,
        tools=TOOLS,
        limits=Limits(input_ceiling=CEILING, output_reserve=500, protocol_overhead=50),
        compaction=policy,
        conversation_id="bench",
    )
    conv.compactor = Summariser(bill, lambda s: conv._count([s])[0])

    def send() -> None:
        call = conv.prepare()
        bill.calls += 1
        bill.add(call.prompt_tokens, call.shared_prefix_tokens)

    for turn in range(1, turns + 1):
        conv.add_user(f"Where are orders A-{turn}-0 and A-{turn}-1? Please check both.")
        send()
        calls = [
            {"id": f"c{turn}_{k}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
            for k in range(2)
        ]
        conv.record_response({"role": "assistant", "content": None, "tool_calls": calls})
        for k in range(2):
            result = f"order A-{turn}-{k}: " + "in transit, depot 4; " * (RESULT_CHARS // 21)
            conv.add_tool_result(f"c{turn}_{k}", result)
        send()
        conv.record_response({"role": "assistant", "content": f"Both orders of turn {turn} are on their way."})
    outcomes = [d.outcome for d in conv.compactions]
    bill.compactions = outcomes.count("compacted") + outcomes.count("forced")
    bill.declined = outcomes.count("declined")
    bill.forced = outcomes.count("forced")
    return bill


def remaining(total_calls: int) -> Any:
    """The run's length is known to the script: the calls it has left."""
    return lambda conv: max(0, total_calls - conv._call_index - 1)


def configurations(turns: int) -> dict[str, CompactionPolicy | None]:
    at = 0.5
    return {
        "forced only": None,
        "threshold (rule off)": CompactionPolicy(compact_at=at, rule=False),
        "rule, calls so far": CompactionPolicy(compact_at=at),
        "rule, known length": CompactionPolicy(compact_at=at, remaining_calls=remaining(2 * turns)),
    }


def table(turn_counts: tuple[int, ...] = (16, 30, 80)) -> list[dict[str, Any]]:
    rows = []
    for turns in turn_counts:
        for name, policy in configurations(turns).items():
            b = run(turns, policy)
            rows.append(
                {
                    "turns": turns,
                    "config": name,
                    "calls": b.calls,
                    "summariser_calls": b.summariser_calls,
                    "compactions": b.compactions,
                    "forced": b.forced,
                    "declined": b.declined,
                    "prompt_tokens": b.prompt,
                    "cached_share": round(b.cached_share, 3),
                    "billed": round(b.cost),
                }
            )
    return rows


def test_the_rule_never_bills_more_than_the_threshold_and_keeps_more_cache():
    rows = {(r["turns"], r["config"]): r for r in table((16, 30))}
    for turns in (16, 30):
        rule, threshold = rows[(turns, "rule, known length")], rows[(turns, "threshold (rule off)")]
        assert rule["billed"] <= threshold["billed"]
        assert rule["cached_share"] >= threshold["cached_share"]
    # a short run: the threshold compacts, the rule declines every time (its cache is worth more)
    short = rows[(16, "rule, known length")]
    assert rows[(16, "threshold (rule off)")]["compactions"] >= 1 and short["compactions"] == 0 and short["declined"]


if __name__ == "__main__":
    rows = table()
    cols = list(rows[0])
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r[c]) for c in cols))
    print(json.dumps(rows))
