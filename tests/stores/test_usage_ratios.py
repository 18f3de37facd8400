"""The usage-ratio state (``UsageRatioStore``) on SQLite, Redis and PostgreSQL alike: exact round
trips, the window, identities kept as given, atomic merges from many workers, and two
conversations on one store converging on one factor."""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from conftest import Target

import ctxsieve
from ctxsieve import Conversation
from ctxsieve.errors import ConfigError
from ctxsieve.stores import StoreUnavailableError, UsageRatioStore, open_store
from ctxsieve.tokenizers import UsageCalibrator
from ctxsieve.tokenizers.usage_ratios import MAX_NAME

EST = "calibrated:o200k"


def test_implements_the_protocol(store: Any) -> None:
    assert isinstance(store, UsageRatioStore)


def test_merge_keeps_the_window_the_count_and_the_latest_time(store: Any) -> None:
    assert store.load_usage_ratios(EST, "m") is None
    s = store.merge_usage_ratios(EST, "m", [1.1, 0.1 + 0.2], window=3, now=50.0)
    assert (s.ratios, s.samples, s.updated) == ((1.1, 0.30000000000000004), 2, 50.0)  # exact floats
    s = store.merge_usage_ratios(EST, "m", [1.2, 1.3], window=3, now=40.0)  # a worker whose clock is behind
    assert (s.ratios, s.samples, s.updated) == ((0.30000000000000004, 1.2, 1.3), 4, 50.0)
    assert store.load_usage_ratios(EST, "m") == s
    s = store.merge_usage_ratios(EST, "m", [1.0] * 5, window=2, now=60.0)  # a smaller window cuts
    assert (s.ratios, s.samples, s.updated) == ((1.0, 1.0), 9, 60.0)
    assert store.load_usage_ratios(EST, "other") is None and store.load_usage_ratios("bytes/3", "m") is None


NAMES = [
    "claude-sonnet-4-5",
    "模型/量子-7B",
    "عربى",
    "😀 model",
    "nul\x00inside",
    "lone \ud800 surrogate",
    '["a", "b"]',
    "m" * MAX_NAME,
    unicodedata.normalize("NFC", "café"),
    unicodedata.normalize("NFD", "café"),  # another identity: never normalised into the first
    "Café",
]


def test_names_are_identities_kept_exactly(store: Any) -> None:
    for i, name in enumerate(NAMES):
        store.merge_usage_ratios(EST, name, [1.0 + i / 100], window=4, now=1.0)
        store.merge_usage_ratios(name, "model", [2.0 + i / 100], window=4, now=1.0)  # as an estimator
    for i, name in enumerate(NAMES):
        got = store.load_usage_ratios(EST, name)
        assert got is not None and got.model == name and got.ratios == (1.0 + i / 100,), repr(name[:20])
        got = store.load_usage_ratios(name, "model")
        assert got is not None and got.estimator == name and got.ratios == (2.0 + i / 100,)
    # a pair is its two names, not their concatenation
    store.merge_usage_ratios("a", "b c", [3.0], window=4, now=1.0)
    assert store.load_usage_ratios("a b", "c") is None


@pytest.mark.parametrize(
    ("estimator", "model", "message"),
    [
        (EST, "", "model name must be a non-empty str, got ''"),
        ("", "m", "estimator name must be a non-empty str"),
        (EST, None, "model name must be a non-empty str, got None"),
        (EST, "m" * (MAX_NAME + 1), f"model name is {MAX_NAME + 1} characters, at most {MAX_NAME}"),
    ],
)
def test_names_that_cannot_be_identities_are_refused(store: Any, estimator: Any, model: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        store.merge_usage_ratios(estimator, model, [1.0], window=4, now=1.0)
    with pytest.raises(ConfigError, match=message):
        store.load_usage_ratios(estimator, model)


@pytest.mark.parametrize(
    ("ratios", "window", "message"),
    [
        ([1.0, math.nan], 4, r"ratio 1 must be a finite number > 0, got nan"),
        ([0.0], 4, r"ratio 0 must be a finite number > 0, got 0.0"),
        ([-1.2], 4, r"ratio 0 must be a finite number > 0"),
        ([True], 4, r"ratio 0 must be a finite number > 0, got True"),
        ([1.0], 0, r"window must be an int in \[1, 4096\], got 0"),
    ],
)
def test_bad_ratios_are_refused_and_nothing_is_stored(store: Any, ratios: Any, window: int, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        store.merge_usage_ratios(EST, "m", ratios, window=window, now=1.0)
    assert store.load_usage_ratios(EST, "m") is None


def test_concurrent_merges_from_many_workers_all_count(target: Target) -> None:
    # each worker its own connection; a read-modify-write that is not atomic loses samples
    workers, each = 4, 25
    stores = [target.open() for _ in range(workers)]
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(each):
                stores[k].merge_usage_ratios(EST, "shared", [1.0 + k / 10 + i / 1000], window=200, now=float(i))
        except BaseException as exc:  # reported below, with the test's assertion
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    state = stores[0].load_usage_ratios(EST, "shared")
    assert state is not None and state.samples == workers * each
    assert sorted(state.ratios) == sorted(1.0 + k / 10 + i / 1000 for k in range(workers) for i in range(each))
    for k in range(workers):  # each worker's own samples stay in its order
        mine = [r for r in state.ratios if int((r - 1.0) * 10 + 1e-9) == k]
        assert len(mine) == each and mine == sorted(mine)
    for s in stores:
        s.close()


def _worker(target: Target, conv_id: str) -> tuple[Conversation, UsageCalibrator, Any]:
    store = target.open()
    cal = UsageCalibrator(store, max_age=0, min_prompt_tokens=500)
    return (
        Conversation(
            system="You answer from the tool results.", model="fleet-model", calibrator=cal, conversation_id=conv_id
        ),
        cal,
        store,
    )


def test_two_workers_sharing_a_store_converge_on_one_factor(target: Target) -> None:
    # two conversations in two workers, each with its own connection and calibrator; the
    # provider counts 13 % over the estimate for one and 8 % for the other
    (a, cal_a, sa), (b, cal_b, sb) = _worker(target, "worker-a"), _worker(target, "worker-b")
    for turn in range(6):
        for conv, over in ((a, 1.13), (b, 1.08)):
            conv.add_user(f"turn {turn}: " + '{"id": 123456789, "path": "/srv/app/x.py"} ' * 80)
            call = conv.prepare()
            usage = {"prompt_tokens": math.ceil(call.prompt_tokens * over), "completion_tokens": 5}
            conv.record_response({"role": "assistant", "content": "noted"}, usage=usage)
    fa = cal_a.calibration(str(a.estimator.name), "fleet-model")
    fb = cal_b.calibration(str(b.estimator.name), "fleet-model")
    assert fa == fb and fa.samples == 12 and fa.window == 12
    # the second-largest of all twelve ratios, whichever worker reported it
    assert fa.factor == pytest.approx(1.13, abs=0.002)
    # and both admit the next call against the same calibrated limit
    for conv in (a, b):
        conv.add_user("next")
    la, lb = a.prepare().limit, b.prepare().limit
    assert la.tokens == lb.tokens < a.limits.input_ceiling and "usage calibration" in (la.note or "")
    sa.close()
    sb.close()


# a worker process: a calibrator on the store, learning 20 calls whose provider counts 1.0x-1.19x
_WORKER = """
import sys
from ctxsieve.stores import open_store
from ctxsieve.tokenizers import UsageCalibrator
url, ns, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = open_store(url) if ns == "-" else open_store(url, namespace=ns)
cal = UsageCalibrator(store, max_age=0)
for i in range(20):
    assert cal.observe("bytes/3", "fleet", 10_000, 10_000 + 100 * k + 5 * i).learnt
store.close()
"""


def test_worker_processes_share_one_window(target: Target) -> None:
    target.open().close()  # the schema first, as a deployment's first worker makes it
    env = dict(os.environ, PYTHONPATH=str(Path(ctxsieve.__file__).resolve().parents[1]))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, target.url, target.namespace or "-", str(k)],
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for k in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    store = target.open()
    state = store.load_usage_ratios("bytes/3", "fleet")
    assert state is not None and state.samples == 60 and len(state.ratios) == 32
    # every worker now applies the second-largest ratio of the fleet's last 32
    assert UsageCalibrator(store).calibration("bytes/3", "fleet").factor == sorted(state.ratios)[-2]
    store.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_redis_going_down_keeps_the_last_factor_and_the_samples(tmp_path: Path, redis_server: str) -> None:
    port = _free_port()
    args = [redis_server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--dir", str(tmp_path)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                store = open_store(f"redis://127.0.0.1:{port}/0", connect_timeout=1)
                break
            except StoreUnavailableError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        cal = UsageCalibrator(store, max_age=0)
        for _ in range(3):
            cal.observe(EST, "m", 10_000, 11_000)
        assert cal.calibration(EST, "m").factor == pytest.approx(1.1)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert cal.calibration(EST, "m").factor == pytest.approx(1.1)  # the last factor read
    assert cal.observe(EST, "m", 10_000, 12_000).learnt  # learnt, owed to the store
    report = cal.report()
    assert report["pending"] == 1
    assert any("store read failed" in n and f"127.0.0.1:{port}" in n for n in report["notes"])
    assert any("store write failed, 1 samples pending" in n for n in report["notes"])
