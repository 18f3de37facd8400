"""What ctx_read and ctx_grep return always fits under the offloader's own limit, so a later
offload() pass leaves the agent's reads alone instead of turning them into new handles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import kernels
from ctxsieve.loop import Offloader
from ctxsieve.stores import open_store

LINE_TEXT = st.sampled_from(["ok", "ERROR disk full", "ñandú café", "東京の天気は晴れ", "😀😀😀 emoji", "x" * 700])


@given(
    lines=st.lists(LINE_TEXT, min_size=50, max_size=400),
    max_tokens=st.sampled_from([100, 300, 1000]),
    offset=st.integers(0, 40),
    limit=st.integers(1, 400),
)
def test_reads_and_greps_stay_under_the_limit(
    tmp_path_factory: object, lines: list[str], max_tokens: int, offset: int, limit: int
) -> None:
    db = Path(tmp_path_factory.mktemp("o")) / "o.db"  # type: ignore[attr-defined]
    off = Offloader(open_store(str(db)), max_tokens=max_tokens, preview_tokens=20)
    h = off.store_text("\n".join(lines)).blob_id
    ctx_read, ctx_grep, ctx_query = off.tools()
    as_json = off.store_text(json.dumps({"lines": lines, "n": [len(x) for x in lines]})).blob_id
    for answer in (
        ctx_read(h, offset, limit),
        ctx_grep(h, "o", context=2, max_matches=1000),
        ctx_read(
            h, offset * 97 % len("\n".join(lines)), limit * 50, unit="chars"
        ),  # pages of the whole text (issue 14 item 7)
        ctx_grep(as_json, "o", max_matches=1000),  # windows in a long line
        ctx_query(as_json, "$..*", offset % 7, 1 + limit % 200),
        ctx_query(as_json, "$", 0, 1),  # the whole document: cut to the limit
    ):
        assert kernels.estimate_tokens([answer])[0] <= max_tokens
        assert not answer.startswith("error:")
        replay = [{"role": "tool", "tool_call_id": "c2", "content": answer}]
        assert off.offload(replay)[0] is replay[0]  # left as it is


@pytest.mark.parametrize("bad", [0, 64, 127, -5, 2.5, True, "300"])
def test_a_read_budget_without_room_for_lines_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="read_max_tokens"):
        Offloader(max_tokens=1000, preview_tokens=20, read_max_tokens=bad)  # type: ignore[arg-type]
