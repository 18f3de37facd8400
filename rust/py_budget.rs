//! A thread budget for the kernels that run on rayon (dedupe's shingling and grouping, the
//! calibrated estimator), per calling thread.
//!
//! By default those kernels use rayon's global pool, one thread per core: right for one build
//! at a time. `ContextEngine.build_many` runs several builds at once on Python threads, and
//! then every build's kernel would spread over all cores while the other builds' Python stages
//! (which hold the GIL, the one serial resource) want a core too: more runnable threads than
//! cores, and the GIL holder slowed down by rayon workers. So a Python thread may give itself
//! a budget: its kernels then run inside a pool of that many threads of its own
//! (`rayon::ThreadPool::install`), and N builds on N threads never ask for more than the cores.
//!
//! The pool is kept in a thread-local: it lives as long as the Python thread (an executor's
//! worker), and is dropped (its threads told to exit) when the thread ends or the budget is
//! cleared. No kernel signature changes: the bindings wrap their GIL-free closure in `within`.

use std::cell::RefCell;
use std::sync::Arc;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::py_args::{count_arg, guard};

/// More threads than this is a mistake, not a budget (`kernels/threads.py` has the same bound).
const MAX_THREADS: u64 = 1024;

thread_local! {
    static POOL: RefCell<Option<Arc<rayon::ThreadPool>>> = const { RefCell::new(None) };
}

/// Runs `f` inside the calling thread's budget pool when it has one, else as it is (rayon's
/// global pool). Called with the GIL released; a panic in `f` resumes here (rayon carries it
/// across `install`), so `guard` still turns it into `InternalError`.
pub fn within<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match POOL.with(|p| p.borrow().clone()) {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// `threads`: how many threads this thread's kernels may use (>= 1), or None for all cores
/// (rayon's global pool, the default).
#[pyfunction]
#[pyo3(signature = (threads))]
pub fn set_thread_budget(threads: &Bound<'_, PyAny>) -> PyResult<()> {
    guard("set_thread_budget", || {
        let pool = if threads.is_none() {
            None
        } else {
            let n = count_arg("threads", threads)?;
            if !(1..=MAX_THREADS).contains(&n) {
                return Err(PyValueError::new_err(format!(
                    "threads: must be in [1, {MAX_THREADS}] (or None for all cores), got {n}"
                )));
            }
            let n = n as usize; // <= MAX_THREADS
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("ctxsieve-kernel-{i}"))
                .build()
                .map_err(|e| {
                    PyRuntimeError::new_err(format!("threads: cannot start {n} threads: {e}"))
                })?;
            Some(Arc::new(pool))
        };
        POOL.with(|p| *p.borrow_mut() = pool);
        Ok(())
    })
}

/// The calling thread's budget: None when its kernels use all cores.
#[pyfunction]
pub fn thread_budget() -> Option<usize> {
    POOL.with(|p| p.borrow().as_ref().map(|pool| pool.current_num_threads()))
}
