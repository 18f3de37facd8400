//! PyO3 binding of the dedupe memo (`rust/dedupe_memo.rs`) as `ctxsieve._native.DedupeMemo`:
//! the same arguments, checks and result as `dedupe`, on a memo the engine keeps across builds.
//!
//! Builds of one engine may run at once (`build_many`): the memo sits behind a lock, and a
//! build that finds it taken runs `dedupe::dedupe` (the same decisions) rather than wait. A
//! panic inside the memo empties it before the panic goes on (as `InternalError`, `guard`), so
//! no build ever sees a half-updated memo; a poisoned lock is emptied the same way.
//!
//! A rebuild of the memo's index that a build finds due (every ten or so warm builds with 5 %
//! of the texts new; 30-60 ms at 10k texts, as much as a cold build) runs on a pool thread
//! once the build has returned (`start_rebuild`, which the engine calls then), between the
//! agent's calls rather than in one of them. A build
//! that comes while it runs waits for it (not the cold kernel: the rebuild ends sooner; at most
//! `REBUILD_WAIT`), and one that comes before it started runs it first. A panic in it empties
//! the memo, as above.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use crate::dedupe::{dedupe, Item};
use crate::dedupe_memo::{Limits, Memo, Path};
use crate::py_args::{count_arg, float_arg, guard};
use crate::py_budget::within;
use crate::py_dedupe_args::{dedupe_lists, DedupeArgs};

#[pyclass(frozen, name = "DedupeMemo", module = "ctxsieve._native")]
pub struct PyDedupeMemo {
    shared: Arc<Shared>,
    threshold: f64,
    /// Builds that found the memo taken.
    busy: AtomicU64,
    panic_next: AtomicBool,
}

/// How long a build waits for a rebuild that holds the memo before it runs the cold kernel.
const REBUILD_WAIT: Duration = Duration::from_secs(2);

/// What a build and the rebuild it left for a pool thread share.
struct Shared {
    memo: Mutex<Memo>,
    /// A rebuild is waiting for or holding the lock.
    rebuilding: AtomicBool,
    /// Memos emptied after a panic.
    resets: AtomicU64,
    /// Rebuilds the pool thread ran (the others, a build ran first).
    rebuilds_after: AtomicU64,
    /// The text strs of the last build the memo ran, kept alive so that the addresses it was
    /// given (`Memo::dedupe_same`) name those strs and no other until the next build; replaced
    /// only while `memo` is held, so it always covers them.
    held: Mutex<Vec<Py<PyAny>>>,
}

impl Shared {
    /// The lock, waiting for it; a poisoned one is emptied first.
    fn lock(&self) -> MutexGuard<'_, Memo> {
        match self.memo.lock() {
            Ok(m) => m,
            Err(p) => self.emptied(p.into_inner()),
        }
    }

    fn emptied<'a>(&'a self, mut m: MutexGuard<'a, Memo>) -> MutexGuard<'a, Memo> {
        m.clear();
        self.memo.clear_poison();
        self.resets.fetch_add(1, Relaxed);
        m
    }

    /// The lock once the rebuild holding it has ended; `None` when another build holds it, or
    /// past `REBUILD_WAIT` (a rebuild at `max_texts` takes ~0.1 s; the bound keeps a build from
    /// hanging on a lock whose holder is gone, as after a fork).
    fn after_rebuild(&self) -> Option<MutexGuard<'_, Memo>> {
        let start = Instant::now();
        loop {
            match self.memo.try_lock() {
                Ok(m) => return Some(m),
                Err(TryLockError::Poisoned(p)) => return Some(self.emptied(p.into_inner())),
                Err(TryLockError::WouldBlock) => {
                    if !self.rebuilding.load(Relaxed) || start.elapsed() > REBUILD_WAIT {
                        return None;
                    }
                    std::thread::sleep(Duration::from_micros(100));
                }
            }
        }
    }

    /// The waiting rebuild, on a pool thread: a panic empties the memo (no build sees a
    /// half-built index) and goes no further (nobody is there to catch it).
    fn rebuild(&self) {
        let mut m = self.lock();
        if m.has_rebuild_waiting() {
            self.rebuilds_after.fetch_add(1, Relaxed);
        }
        if catch_unwind(AssertUnwindSafe(|| m.rebuild_waiting_now())).is_err() {
            m.clear();
            self.resets.fetch_add(1, Relaxed);
        }
        self.rebuilding.store(false, Relaxed);
    }
}

fn at_least_one(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    let n = count_arg(name, obj)?;
    if n == 0 {
        return Err(PyValueError::new_err(format!(
            "{name}: must be at least 1, got 0"
        )));
    }
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

#[pymethods]
impl PyDedupeMemo {
    #[new]
    #[pyo3(signature = (threshold, *, max_texts = None, max_edges = None, keep_builds = None))]
    fn new(
        threshold: &Bound<'_, PyAny>,
        max_texts: Option<&Bound<'_, PyAny>>,
        max_edges: Option<&Bound<'_, PyAny>>,
        keep_builds: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        guard("DedupeMemo", || {
            let threshold = float_arg("threshold", threshold)?;
            if !(threshold > 0.0 && threshold <= 1.0) {
                return Err(PyValueError::new_err("threshold: must be in (0, 1]"));
            }
            let mut limits = Limits {
                defer_rebuild: true,
                ..Limits::default()
            };
            if let Some(v) = max_texts {
                limits.max_texts = at_least_one("max_texts", v)?.min(1 << 30);
            }
            if let Some(v) = max_edges {
                limits.max_edges = at_least_one("max_edges", v)?;
            }
            if let Some(v) = keep_builds {
                limits.keep_builds = at_least_one("keep_builds", v)? as u64;
            }
            Ok(PyDedupeMemo {
                shared: Arc::new(Shared {
                    memo: Mutex::new(Memo::new(threshold, limits)),
                    rebuilding: AtomicBool::new(false),
                    resets: AtomicU64::new(0),
                    rebuilds_after: AtomicU64::new(0),
                    held: Mutex::new(Vec::new()),
                }),
                threshold,
                busy: AtomicU64::new(0),
                panic_next: AtomicBool::new(false),
            })
        })
    }

    #[getter]
    fn threshold(&self) -> f64 {
        self.threshold
    }

    /// `(duplicate_of, visit_order, path)`: `dedupe`'s result, and "warm" when the memo
    /// decided, else why `dedupe::dedupe` did ("new", "texts", "edges", "skipped", "busy").
    fn dedupe(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        ids: &Bound<'_, PyAny>,
        scores: &Bound<'_, PyAny>,
        pinned: &Bound<'_, PyAny>,
        history: &Bound<'_, PyAny>,
    ) -> PyResult<(Vec<i64>, Vec<usize>, &'static str)> {
        guard("DedupeMemo.dedupe", || {
            let lists = dedupe_lists([texts, ids, scores, pinned, history])?;
            let args = DedupeArgs::of(&lists)?;
            // the memo's keys: Python's str hash, which each str caches (see dedupe_memo_slots)
            let keys = lists[0]
                .iter()
                .map(|o| o.hash().map(|h| h as u64))
                .collect::<PyResult<Vec<u64>>>()?;
            // the ids' keys for the visit: Python's str hash too, only when every id is an
            // exact str (a subclass may hash otherwise: equal ids must share a key); the bytes
            // the visit compares are surrogatepass, one to one with the strs
            let id_keys = if lists[1]
                .iter()
                .all(|o| o.is_exact_instance_of::<PyString>())
            {
                Some(
                    lists[1]
                        .iter()
                        .map(|o| o.hash().map(|h| h as u64))
                        .collect::<PyResult<Vec<u64>>>()?,
                )
            } else {
                None
            };
            let input = args.items();
            // each text's identity for the memo (`Memo::dedupe_same`), and the strs behind it
            let same: Vec<usize> = lists[0].iter().map(|o| o.as_ptr() as usize).collect();
            let held: Vec<Py<PyAny>> = lists[0].iter().map(|o| o.clone().unbind()).collect();
            let (out, path, released) =
                py.detach(|| within(|| self.run(&input, &keys, &same, id_keys.as_deref(), held)));
            drop(released); // the last build's strs, let go with the GIL held
            let path = match path {
                None => "busy",
                Some(Path::Warm) => "warm",
                Some(Path::ColdTexts) => "texts",
                Some(Path::ColdEdges) => "edges",
                Some(Path::ColdSkipped) => "skipped",
                Some(Path::ColdNew) => "new",
            };
            Ok((out.duplicate_of, out.visit_order, path))
        })
    }

    /// Starts the rebuild of the index the last build left waiting, if any, on a pool thread;
    /// the engine calls it once its build has returned its window (`ContextEngine._complete`).
    /// A rebuild nobody starts runs first thing in the next build.
    ///
    /// What it replaced: the build spawned the rebuild as soon as the memo's call returned, so
    /// it ran beside the rest of that same build (the fill, the trace): `stages.py --warm` at
    /// 10k counted its 25-40 ms of CPU into those stages (select 2.97 ms and "the rest" 4.56 a
    /// build, means of 21, against 1.85 and 1.52 in cold builds), and on the 2 shared cores the
    /// build's own Python ran slower beside it (select 4.5-6.8 ms wall in the builds that
    /// spawned one, 1.8-2.2 in the others).
    fn start_rebuild(&self) {
        let shared = &self.shared;
        let waiting = match shared.memo.try_lock() {
            Ok(m) => m.has_rebuild_waiting(),
            // a build or rebuild holds it (it runs a waiting rebuild itself), or a panic
            // poisoned it (the next build empties it)
            Err(_) => false,
        };
        if waiting && !shared.rebuilding.swap(true, Relaxed) {
            let shared = Arc::clone(shared);
            rayon::spawn(move || shared.rebuild());
        }
    }

    /// Forgets every text (waits for a build or rebuild that holds the memo); the counters
    /// stay.
    fn clear(&self, py: Python<'_>) {
        py.detach(|| self.shared.lock().clear())
    }

    /// The counters (`dedupe_memo::Stats`, plus `busy`, `resets` and `rebuilds_after_build`,
    /// those of `rebuilds` a pool thread ran) and the memo's size now.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let (s, texts, edges) = py.detach(|| {
            let m = self.shared.lock();
            (m.stats.clone(), m.texts(), m.edges())
        });
        for (k, v) in [
            ("builds", s.builds),
            ("warm", s.warm),
            ("cold_texts", s.cold_texts),
            ("cold_edges", s.cold_edges),
            ("cold_skipped", s.cold_skipped),
            ("cold_new", s.cold_new),
            ("full_joins", s.full_joins),
            ("rebuilds", s.rebuilds),
            ("joined", s.joined),
            ("evicted", s.evicted),
            ("busy", self.busy.load(Relaxed)),
            ("resets", self.shared.resets.load(Relaxed)),
            (
                "rebuilds_after_build",
                self.shared.rebuilds_after.load(Relaxed),
            ),
            ("texts", texts as u64),
            ("edges", edges as u64),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        py.detach(|| self.shared.lock().texts())
    }

    /// Makes the next build that takes the memo panic in the middle of updating it, so a test
    /// can check the memo is emptied rather than left half-updated.
    fn _panic_next_build_for_tests(&self) {
        self.panic_next.store(true, Relaxed);
    }
}

impl PyDedupeMemo {
    /// The memo's result, or `dedupe::dedupe`'s with `None` when another build holds it.
    /// `held`: the strs `same` names, kept until the next build that runs the memo, which hands
    /// them back (the third element) for the caller to drop with the GIL.
    fn run(
        &self,
        input: &[Item],
        keys: &[u64],
        same: &[usize],
        id_keys: Option<&[u64]>,
        held: Vec<Py<PyAny>>,
    ) -> (crate::dedupe::Outcome, Option<Path>, Vec<Py<PyAny>>) {
        let shared = &self.shared;
        let mut m = match shared.memo.try_lock() {
            Ok(m) => m,
            Err(TryLockError::Poisoned(p)) => shared.emptied(p.into_inner()),
            Err(TryLockError::WouldBlock) => match shared.after_rebuild() {
                Some(m) => m,
                None => {
                    self.busy.fetch_add(1, Relaxed);
                    return (dedupe(input, self.threshold), None, held);
                }
            },
        };
        if self.panic_next.swap(false, Relaxed) {
            m.panic_in_commit = true;
        }
        match catch_unwind(AssertUnwindSafe(|| {
            m.dedupe_same(input, keys, Some(same), id_keys)
        })) {
            Ok((out, path)) => {
                // swapped while the memo is held: `held` always covers the memo's addresses
                let mut h = shared.held.lock().unwrap_or_else(|p| p.into_inner());
                let released = std::mem::replace(&mut *h, held);
                (out, Some(path), released)
            }
            Err(payload) => {
                m.clear();
                shared.resets.fetch_add(1, Relaxed);
                drop(m);
                resume_unwind(payload)
            }
        }
    }
}
