"""The roster's rule as a property (hypothesis, the project's profiles): for any schema sizes,
marks and fraction, the tools sent are the longest prefix of the unmarked ones, in order, whose
whole schemas fit the cap with tool_search's beside them; the rest are deferred, in order, and
named in the system prompt; the tools section costs exactly what is sent."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import Limits
from ctxsieve.admission.accounting import schema_json
from ctxsieve.conversation import Conversation
from ctxsieve.conversation.tool_roster import DEFERRED_HEADING, TOOL_SEARCH, TOOL_SEARCH_SCHEMA
from ctxsieve.tokenizers import get_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

WINDOW = 200_000  # every generated roster fits the window whole: the cap is what is tested
COUNT = get_estimator("bytes/3")


def _tool(i: int, words: int) -> dict:
    desc = "Reads the records. " * words
    return {
        "type": "function",
        "function": {"name": f"tool_{i}", "description": desc, "parameters": {"type": "object"}},
    }


def _cost(t) -> int:
    return MESSAGE_FRAMING_TOKENS + COUNT([schema_json(t)])[0]


@given(
    sizes=st.lists(st.integers(0, 300), min_size=1, max_size=25),
    marks=st.sets(st.integers(0, 24), max_size=5),
    fraction=st.one_of(st.none(), st.floats(0.0, 0.05)),
)
def test_the_sent_tools_are_the_longest_fitting_prefix(sizes, marks, fraction):
    tools = [_tool(i, w) for i, w in enumerate(sizes)]
    marked = [f"tool_{i}" for i in sorted(marks) if i < len(tools)]
    limits = Limits(input_ceiling=WINDOW, output_reserve=1_000, tools_fraction=fraction)
    conv = Conversation(tools=tools, limits=limits, model="m", window_lookup=lambda m: WINDOW, deferred_tools=marked)
    conv.add_user("go")
    call = conv.prepare()
    sent = [t["function"]["name"] for t in call.openai().get("tools", [])]
    unmarked = [t for t in tools if t["function"]["name"] not in marked]
    cap = None if fraction is None else int(WINDOW * fraction)
    everything_fits = not marked and (cap is None or sum(map(_cost, tools)) <= cap)
    if everything_fits:
        assert sent == [t["function"]["name"] for t in tools] and DEFERRED_HEADING not in call.system
        assert call.report.sections["tools"] == sum(map(_cost, tools))
        return
    assert sent[-1] == TOOL_SEARCH
    kept = sent[:-1]
    assert kept == [t["function"]["name"] for t in unmarked[: len(kept)]]  # a prefix, in order
    spent = sum(_cost(t) for t in unmarked[: len(kept)]) + _cost(TOOL_SEARCH_SCHEMA)
    assert call.report.sections["tools"] == spent
    if cap is not None:
        assert spent <= cap or not kept  # tool_search alone may be over a tiny cap: it is always sent
        if len(kept) < len(unmarked):
            assert spent + _cost(unmarked[len(kept)]) > cap  # the next whole schema would not fit
    deferred = [t["function"]["name"] for t in tools if t["function"]["name"] not in kept]
    assert call.system == DEFERRED_HEADING.lstrip("\n") + ", ".join(deferred) + "."
    assert conv.roster.deferred == tuple(deferred)
