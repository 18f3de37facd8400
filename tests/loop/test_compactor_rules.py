"""The framework-side Compactor with the conversation's compaction rules: the structured summary
(first task and earlier summaries verbatim, identifiers), the summariser's request as the
framework's own list plus an instruction, and the minimum-gain rule with a forced limit."""

from __future__ import annotations

import asyncio

import pytest

from ctxsieve.conversation.compaction_gain import CompactionPolicy
from ctxsieve.loop import Compactor
from ctxsieve.loop.adapters import adapter_for
from ctxsieve.messages.summary_sections import read_parts

TASK = "Find why ORD-4471 refunds fail; the code is in src/billing/refund.py."


class Forgetful:
    def __init__(self) -> None:
        self.requests: list = []

    async def __call__(self, req) -> str:
        self.requests.append(req)
        return f"SUMMARY-{len(self.requests)}: they looked into it"


def _chat(turns: int, start: int = 0) -> list[dict]:
    out = []
    for k in range(start, start + turns):
        out.append({"role": "user", "content": f"step {k}: check /var/log/app-{k}.log for E{1000 + k} " + "pls " * 30})
        out.append({"role": "assistant", "content": f"checked step {k}, took {k + 1}0 ms " + "ok " * 30})
    return out


def _parts(chat: list[dict]):
    found = adapter_for(chat).summary(chat[1])
    assert found is not None
    return read_parts(found[1])


def test_three_structured_compactions_keep_the_task_the_summaries_and_the_identifiers():
    summ = Forgetful()
    comp = Compactor(summ, threshold_tokens=400, keep_last=2, structured=True)
    chat = [{"role": "system", "content": "be brief"}, {"role": "user", "content": TASK}, *_chat(4)]
    mentioned = {"ORD-4471", "src/billing/refund.py"}
    for round_ in range(3):
        mentioned |= {f"/var/log/app-{k}.log" for k in range(4 * round_, 4 * round_ + 4)}
        chat = asyncio.run(comp.compact(chat))
        assert comp.last is not None and comp.last.compacted
        chat += _chat(4, start=4 * (round_ + 1))
    parts = _parts(chat)
    assert parts.first_task == TASK
    assert [t for _, t in parts.summaries] == [f"SUMMARY-{k}: they looked into it" for k in (1, 2, 3)]
    summarised = {i for i in mentioned if any(i in r.transcript for r in summ.requests)}
    assert summarised and summarised <= set(parts.identifiers)  # every one the summaries covered
    # the summariser is sent the framework's own list, then told what to do with it
    req = summ.requests[-1]
    assert req.prefix is not None and req.prefix[0] == {"role": "system", "content": "be brief"}
    assert req.instruction.startswith("[Compaction]") and "except the last 2 exchange(s)" in req.instruction
    assert req.previous_summary is None and len(req.earlier_summaries) == 2


def test_the_plain_summary_stays_the_default():
    summ = Forgetful()
    chat = [{"role": "user", "content": TASK}, *_chat(6)]
    out = asyncio.run(Compactor(summ, threshold_tokens=300, keep_last=1).compact(chat))
    assert adapter_for(out).summary(out[0]) == (12, "SUMMARY-1: they looked into it")
    assert summ.requests[0].prefix == chat  # the request is there to use either way


def _policy_run(calls: int, limit: int | None = None):
    summ = Forgetful()
    comp = Compactor(
        summ,
        threshold_tokens=300,
        keep_last=1,
        policy=CompactionPolicy(remaining_calls=calls),
        limit_tokens=limit or 2_000,  # the chat holds about 640 tokens: over the threshold, under this
    )
    chat = [{"role": "user", "content": TASK}, *_chat(6)]
    out = asyncio.run(comp.compact(chat))
    return comp, summ, chat, out


def test_the_rule_declines_for_a_short_remaining_run_and_compacts_for_a_long_one():
    comp, summ, chat, out = _policy_run(calls=2)
    assert out == chat and not summ.requests
    assert comp.last is not None and comp.last.reason == "below_min_gain" and not comp.last.compacted
    d = comp.last.decision
    assert d is not None and d.outcome == "declined" and d.gain < 0 and d.inputs.remaining_calls == 2
    assert d.gain == pytest.approx(d.counted_calls * d.saving_per_call - d.rewrite - d.summariser)
    comp, summ, chat, out = _policy_run(calls=500)
    assert comp.last is not None and comp.last.compacted and comp.last.decision is not None
    assert comp.last.decision.outcome == "compacted" and comp.last.decision.gain > 0 and summ.requests


def test_past_limit_tokens_a_compaction_is_forced_whatever_the_rule_says():
    comp, summ, chat, out = _policy_run(calls=1, limit=300)
    assert comp.last is not None and comp.last.compacted and summ.requests and len(out) < len(chat)
    assert comp.last.decision is not None and comp.last.decision.outcome == "forced" and comp.last.decision.gain < 0


def test_bad_policy_arguments():
    with pytest.raises(TypeError, match="policy: expected a CompactionPolicy"):
        Compactor(Forgetful(), threshold_tokens=100, policy={"compact_at": 0.5})
    with pytest.raises(ValueError, match="limit_tokens: expected an int >= threshold_tokens"):
        Compactor(Forgetful(), threshold_tokens=100, limit_tokens=50)


def test_a_summariser_that_ignores_its_cancellation_is_left_at_the_timeout():
    # asyncio.wait_for waits for a cancelled call to finish: one that swallows the
    # cancellation held the compaction for as long as it liked
    async def stubborn(req) -> str:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            await asyncio.sleep(5)
        return "late summary"

    comp = Compactor(stubborn, threshold_tokens=400, keep_last=2, timeout=0.2)
    chat = [{"role": "user", "content": TASK}, *_chat(4)]

    async def run():
        t0 = asyncio.get_running_loop().time()
        out = await comp.compact(chat)
        return out, asyncio.get_running_loop().time() - t0

    out, took = asyncio.run(run())
    assert took < 2.0 and out == chat  # unchanged, at the deadline
    assert comp.last is not None and comp.last.reason.startswith("failed:")


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "5", True])
def test_a_bad_timeout_is_refused_at_construction(bad):
    with pytest.raises(ValueError, match=r"timeout: expected a finite number > 0 or None"):
        Compactor(Forgetful(), threshold_tokens=400, timeout=bad)
