"""Properties of the retention plan every backend follows (``ctxsieve.stores.retention.plan``):
exempt items never go, every prunable item past ``max_age`` goes, and a size cut takes the
oldest prunable items first and stops as soon as the rest fits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.stores import StoredItem
from ctxsieve.stores.retention import Retention, plan

NOW = 1_000_000.0

items = st.lists(
    st.builds(
        StoredItem,
        kind=st.sampled_from(["blob", "snapshot", "record"]),
        collection=st.sampled_from(["history", "memory", "notes"]),
        id=st.text("abc", min_size=1, max_size=3),
        created=st.floats(NOW - 100, NOW, allow_nan=False),
        bytes=st.integers(0, 50),
    ),
    max_size=30,
    unique_by=lambda i: (i.kind, i.collection, i.id),
)
retentions = st.builds(
    Retention,
    max_age=st.none() | st.floats(1, 120),
    max_bytes=st.none() | st.integers(0, 800),
    exempt=st.sampled_from([frozenset({"memory"}), frozenset(), frozenset({"memory", "notes"})]),
)


def _key(i: StoredItem) -> tuple[str, str, str]:
    return (i.kind, i.collection, i.id)


@given(items, retentions)
def test_plan_keeps_what_it_must_and_takes_the_oldest_first(listed: list[StoredItem], retention: Retention) -> None:
    doomed, total, after = plan(listed, retention, NOW)
    gone = {_key(i) for i in doomed}
    assert len(gone) == len(doomed)  # nothing is deleted twice
    assert total == sum(i.bytes for i in listed) and after == total - sum(i.bytes for i in doomed)
    kept = [i for i in listed if _key(i) not in gone]
    # exempt collections are never touched, by age or size
    assert all(retention.prunable(i) for i in doomed)
    if retention.max_age is not None:
        cutoff = NOW - retention.max_age
        assert not [i for i in kept if retention.prunable(i) and i.created < cutoff]
        by_size = [i for i in doomed if i.created >= cutoff]
    else:
        by_size = list(doomed)
    if retention.max_bytes is None:
        assert by_size == []
        return
    prunable_kept = [i for i in kept if retention.prunable(i)]
    if after > retention.max_bytes:
        assert prunable_kept == []  # still over: only exempt items are left
    if by_size:
        # the size cut took the oldest: nothing kept and prunable is older than what it took
        newest_taken = max((i.created, i.kind, i.collection, i.id) for i in by_size)
        assert all((i.created, i.kind, i.collection, i.id) > newest_taken for i in prunable_kept)
        # and it stopped as soon as the rest fit: before the last one taken, it was still over
        last = max(by_size, key=lambda i: (i.created, i.kind, i.collection, i.id))
        assert after + last.bytes > retention.max_bytes
