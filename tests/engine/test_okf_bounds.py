"""OKF front matter has a bounded cost, and one bad concept never takes the bundle with it.

The hostile bundles load in a subprocess with a deadline: before the bounds, the alias bomb held
the loader for more than 20 s, which must fail the test rather than stall the suite.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import textwrap
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import ContextEngine, OKFSource, SourceConfig
from ctxsieve.sources.okf import FRONT_MATTER_CHARS, OKFBundle, OKFConceptWarning

GOOD = "---\ntitle: Refunds\ntags: [billing]\n---\nRefunds take thirty days."


def alias_bomb(levels: int = 9, width: int = 10) -> str:
    """A few hundred bytes whose value expands to width**levels strings, its anchors under a key
    the loader accepts and never reads (superseded_by), so only the aliases cost anything."""
    rows = ["  - &a0 [" + ", ".join(["lol"] * width) + "]"]
    for k in range(1, levels + 1):
        rows.append(f"  - &a{k} [" + ", ".join([f"*a{k - 1}"] * width) + "]")
    return "superseded_by:\n" + "\n".join(rows)


def load_in_subprocess(root: str, deadline: float = 10.0) -> dict:
    code = textwrap.dedent(f"""
        import json, time, warnings
        from ctxsieve.sources.okf import OKFBundle
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                bundle = OKFBundle({root!r})
                out = {{"ids": [c.id for c in bundle.concepts], "errors": bundle.errors}}
            except BaseException as exc:
                out = {{"raised": type(exc).__name__ + ": " + str(exc)[:300]}}
        out["elapsed"] = time.perf_counter() - t0
        print(json.dumps(out))
    """)
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=deadline)
    except subprocess.TimeoutExpired:
        pytest.fail(f"loading the bundle took more than {deadline} s")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("front", "message"),
    [
        # walking the value (str(), the tags loop) expands it: 10**9 strings
        (alias_bomb() + "\ntitle: Bomb\ndescription: *a9", "YAML nodes once aliases are expanded"),
        (alias_bomb() + "\ntitle: Bomb\ntags: *a9", "YAML nodes once aliases are expanded"),
        ("title: Deep\ndescription: " + "[" * 20_000 + "]" * 20_000, "nested more than 64 levels deep"),
        ("title: Big\ndescription: " + "x" * (FRONT_MATTER_CHARS + 1), "characters, more than the"),
        ("title: Self\ntags: &t [a, *t]", "refers to a node that contains it"),
    ],
    ids=["bomb-description", "bomb-tags", "deep", "big", "recursive"],
)
def test_hostile_front_matter_is_refused_quickly_and_the_bundle_keeps_the_rest(tmp_path, front, message):
    (tmp_path / "bad.md").write_text(f"---\n{front}\n---\nbody", encoding="utf-8")
    (tmp_path / "good.md").write_text(GOOD, encoding="utf-8")
    out = load_in_subprocess(str(tmp_path))
    assert out.get("ids") == ["good"], out
    assert len(out["errors"]) == 1 and str(tmp_path / "bad.md") in out["errors"][0], out
    assert message in out["errors"][0]
    assert out["elapsed"] < 5.0, out  # was > 20 s


def test_a_yaml_datetime_review_date_is_a_date(tmp_path):
    # YAML reads "2030-06-30 10:00:00" as a datetime, which compared with a date raised
    # TypeError at every build and dropped the whole source
    later = "---\ntitle: Later\nreview_by: 2030-06-30 10:00:00\n---\nfresh"
    (tmp_path / "later.md").write_text(later, encoding="utf-8")
    past = "---\ntitle: Past\nexpires: 2020-01-02 03:04:05\n---\nold fresh"
    (tmp_path / "past.md").write_text(past, encoding="utf-8")
    bundle = OKFBundle(tmp_path, today=dt.date(2026, 1, 1))
    assert {c.id: c.due for c in bundle.concepts} == {"later": dt.date(2030, 6, 30), "past": dt.date(2020, 1, 2)}
    engine = ContextEngine([SourceConfig(OKFSource(bundle), min_items=2)], budget=500)
    window = engine.build_sync("fresh")
    assert window.trace.events == []
    assert {i.id: i.signals.stale for i in window.items} == {"later": False, "past": True}


@pytest.mark.parametrize(
    ("front", "message"),
    [
        ("title: T\n1: one\ncolour: red", "unknown front matter keys [1, 'colour']"),  # was a TypeError
        ("title: T\ndescription: {a: 1}", "description must be a string, got dict"),
        ("title: T\nid: [a, b]", "id must be a string, got list"),
        ("title: T\ntrust: [x]", "trust must be a string, got list"),
        ("title: T\ntags: [[a], b]", "tags must be a list of strings"),
    ],
)
def test_odd_front_matter_values_are_errors_naming_the_file(tmp_path, front, message):
    (tmp_path / "odd.md").write_text(f"---\n{front}\n---\nbody", encoding="utf-8")
    (tmp_path / "good.md").write_text(GOOD, encoding="utf-8")
    with pytest.warns(OKFConceptWarning) as caught:
        bundle = OKFBundle(tmp_path)
    assert [c.id for c in bundle.concepts] == ["good"]
    assert bundle.errors == [f"{tmp_path / 'odd.md'}: {message}"]
    assert str(tmp_path / "odd.md") in str(caught[0].message)


def test_a_duplicate_id_and_a_broken_index_are_left_out_too(tmp_path):
    (tmp_path / "a.md").write_text("---\ntitle: A\nid: same\n---\nfirst", encoding="utf-8")
    (tmp_path / "b.md").write_text("---\ntitle: B\nid: same\n---\nsecond", encoding="utf-8")
    (tmp_path / "index.md").write_text("---\n" + alias_bomb() + "\n---\nindex", encoding="utf-8")
    with pytest.warns(OKFConceptWarning):
        bundle = OKFBundle(tmp_path)
    assert [c.path for c in bundle.concepts] == ["a.md"]
    assert len(bundle.errors) == 2 and "'same' in a.md and b.md" in bundle.errors[0]
    assert "index.md" in bundle.errors[1]
    assert bundle.index().startswith("Knowledge base:")  # the generated index stands in


def test_front_matter_at_its_bounds_parses_in_milliseconds(tmp_path):
    # nearly the largest front matter allowed, of many small values: linear cost, well under 1 s
    n = 5000
    front = "title: Many\ntags: [" + ", ".join(f"tag{k:06d}" for k in range(n)) + "]"
    assert FRONT_MATTER_CHARS // 2 < len(front) < FRONT_MATTER_CHARS
    (tmp_path / "many.md").write_text(f"---\n{front}\n---\nbody", encoding="utf-8")
    out = load_in_subprocess(str(tmp_path))
    assert out.get("ids") == ["many"], out
    assert out["elapsed"] < 3.0, out


# -- fuzzing: random front matter ------------------------------------------------------------
# Example counts come from the project's hypothesis profiles (tests/conftest.py).

FIELDS = st.sampled_from(
    ["id", "title", "description", "tags", "trust", "status", "review_by", "expires", "superseded_by", "colour"]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
    st.dates(),
    st.datetimes(),
    st.sampled_from(["active", "draft", "deprecated", "human-reviewed", "2030-06-30", "2026-13-45"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)


@given(front=st.dictionaries(FIELDS, VALUES, max_size=8))
def test_fuzz_front_matter_never_breaks_the_bundle_or_the_build(tmp_path_factory, front):
    """Any front matter: the concept loads or is left out with an error naming its file; the
    other concept always stays; every concept that loads builds into a window."""
    import yaml

    root = tmp_path_factory.mktemp("okf")
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    (root / "fuzz.md").write_text("---\n" + yaml.safe_dump(front, allow_unicode=True) + "---\nfuzz body", "utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OKFConceptWarning)
        bundle = OKFBundle(root, today=dt.date(2026, 1, 1))
    ids = [c.path for c in bundle.concepts]
    assert "good.md" in ids
    assert ("fuzz.md" in ids) != any(str(root / "fuzz.md") in e for e in bundle.errors), bundle.errors
    engine = ContextEngine([SourceConfig(OKFSource(bundle), min_items=len(ids))], budget=10_000)
    window = engine.build_sync("refunds fuzz body")
    assert window.trace.events == [] and len(window.items) == len(ids)
