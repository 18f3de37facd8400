//! PyO3 bindings: the only file that knows about Python (with `py_args.rs`, its conversions).
//!
//! Every function snapshots its list arguments, converts them once into owned or borrowed Rust
//! values (validating each element with the same messages, in the same order, as
//! `kernels/reference.py`), releases the GIL for the work, and converts the result back once.
//! Each body runs inside `guard`, so a panic reaches Python as `InternalError`. Strings stay borrowed from the
//! Python objects we hold references to; a string with lone surrogates (which has no UTF-8 form)
//! is re-encoded with `surrogatepass` and each surrogate becomes U+FFFD.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::py_args::{
    bools_of, check_lengths, count_arg, counts_of, float_arg, floats_of, guard, keys_of, not_str,
    positive_arg, snapshot, snapshot_lists, surrogatepass, text_of, texts_of, InternalError,
};
use crate::py_budget::within;
use crate::py_calibrated::{calibrated_estimate, PyKnownWords};
use crate::py_dedupe_args::{dedupe_lists, DedupeArgs};
use crate::py_fill_args::{FillOptions, FillRows};
use crate::{bm25, dedupe as dd, fill, grep, order, text, unicode_tables};

// ---------------------------------------------------------------------------------------------

#[pyfunction]
fn estimate_tokens(
    texts: &Bound<'_, PyAny>,
    bytes_per_token: &Bound<'_, PyAny>,
) -> PyResult<Vec<u64>> {
    guard("estimate_tokens", || {
        let objs = snapshot("texts", texts)?;
        let mut lens = Vec::with_capacity(objs.len());
        for (i, obj) in objs.iter().enumerate() {
            let s = obj
                .cast::<PyString>()
                .map_err(|_| not_str(&format!("texts[{i}]"), obj))?;
            lens.push(match s.to_str() {
                Ok(t) => t.len(),
                // surrogatepass gives each lone surrogate its 3-byte form
                Err(_) => surrogatepass(s)?.as_bytes().len(),
            });
        }
        let bpt = positive_arg("bytes_per_token", bytes_per_token)?;
        Ok(lens
            .into_iter()
            .map(|n| text::estimate_tokens(n, bpt))
            .collect())
    })
}

#[pyfunction]
fn words(text: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    guard("words", || Ok(text::words(&text_of(text, "text")?)))
}

#[pyfunction]
fn shingle_hashes(text: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    guard("shingle_hashes", || {
        Ok(text::shingle_hashes(&text_of(text, "text")?))
    })
}

#[pyfunction]
fn content_hash(text: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    guard("content_hash", || {
        Ok(text::content_hash(&text_of(text, "text")?))
    })
}

#[pyfunction]
fn dedupe(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    ids: &Bound<'_, PyAny>,
    scores: &Bound<'_, PyAny>,
    pinned: &Bound<'_, PyAny>,
    history: &Bound<'_, PyAny>,
    threshold: &Bound<'_, PyAny>,
) -> PyResult<(Vec<i64>, Vec<usize>)> {
    guard("dedupe", || {
        let threshold = float_arg("threshold", threshold)?;
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(PyValueError::new_err("threshold: must be in (0, 1]"));
        }
        let lists = dedupe_lists([texts, ids, scores, pinned, history])?;
        let args = DedupeArgs::of(&lists)?;
        let input = args.items();
        let out = py.detach(|| within(|| dd::dedupe(&input, threshold)));
        Ok((out.duplicate_of, out.visit_order))
    })
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (tokens, scores, sources, pinned, deprecated, ids, budget, beta, min_score, caps, min_items, include_deprecated))]
fn fill_budget(
    py: Python<'_>,
    tokens: &Bound<'_, PyAny>,
    scores: &Bound<'_, PyAny>,
    sources: &Bound<'_, PyAny>,
    pinned: &Bound<'_, PyAny>,
    deprecated: &Bound<'_, PyAny>,
    ids: &Bound<'_, PyAny>,
    budget: &Bound<'_, PyAny>,
    beta: &Bound<'_, PyAny>,
    min_score: &Bound<'_, PyAny>,
    caps: &Bound<'_, PyAny>,
    min_items: &Bound<'_, PyAny>,
    include_deprecated: &Bound<'_, PyAny>,
) -> PyResult<Vec<u32>> {
    guard("fill_budget", || {
        // the reference's order of checks: lists, lengths, elements, options, sources
        let names = ["tokens", "scores", "sources", "pinned", "deprecated", "ids"];
        let lists = [tokens, scores, sources, pinned, deprecated, ids]
            .iter()
            .zip(names)
            .map(|(l, n)| snapshot(n, l))
            .collect::<PyResult<Vec<_>>>()?;
        let cap_objs = snapshot("caps", caps)?;
        let min_objs = snapshot("min_items", min_items)?;
        let refs: Vec<&[Bound<'_, PyAny>]> = lists.iter().map(Vec::as_slice).collect();
        check_lengths(&names, &refs)?;
        let rows = FillRows::of(&lists, "sources")?;
        let opts = FillOptions::of(
            budget,
            beta,
            min_score,
            include_deprecated,
            &cap_objs,
            &min_objs,
        )?;
        rows.check_sources(opts.caps.len(), "sources")?;
        let input: Vec<fill::Item> = (0..rows.tokens.len()).map(|i| rows.item(i)).collect();
        let opt = opts.options();
        // returned as ints, not a Vec<u8> (which PyO3 would turn into bytes)
        Ok(py
            .detach(|| fill::fill(&input, &opt))
            .into_iter()
            .map(u32::from)
            .collect())
    })
}

#[pyfunction]
fn cache_order(
    py: Python<'_>,
    stability: &Bound<'_, PyAny>,
    history: &Bound<'_, PyAny>,
    scores: &Bound<'_, PyAny>,
    source_rank: &Bound<'_, PyAny>,
    order_keys: &Bound<'_, PyAny>,
    ids: &Bound<'_, PyAny>,
) -> PyResult<Vec<usize>> {
    guard("cache_order", || {
        let names = [
            "stability",
            "history",
            "scores",
            "source_rank",
            "order_keys",
            "ids",
        ];
        let lists = snapshot_lists(
            &names,
            &[stability, history, scores, source_rank, order_keys, ids],
        )?;
        let stability = counts_of(&lists[0], "stability")?;
        if let Some(i) = stability.iter().position(|&s| s > 2) {
            return Err(PyValueError::new_err(format!(
                "stability[{i}]: must be 0, 1 or 2, got {}",
                stability[i]
            )));
        }
        let history = bools_of(&lists[1])?;
        let scores = floats_of(&lists[2], "scores")?;
        let ranks = counts_of(&lists[3], "source_rank")?;
        let keys = keys_of(&lists[4], "order_keys")?;
        let ids = keys_of(&lists[5], "ids")?;
        let input: Vec<order::Item> = (0..stability.len())
            .map(|i| order::Item {
                stability: stability[i] as u8,
                history: history[i],
                score: scores[i],
                source_rank: ranks[i],
                order_key: &keys[i],
                id: &ids[i],
            })
            .collect();
        Ok(py.detach(|| order::cache_order(&input)))
    })
}

/// A grep program as `kernels/grep_program.py` sends it: (instructions, classes).
type RawProgram = (Vec<(u8, u32, u32)>, Vec<Vec<(u32, u32)>>);

/// `regex`, `required` and `program` come from `kernels.grep_program` (the dialect is parsed
/// in Python); `confirm`: the program decides every line the regex matched.
#[pyfunction]
fn grep_lines(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    regex: &Bound<'_, PyAny>,
    required: &Bound<'_, PyAny>,
    program: RawProgram,
    confirm: bool,
    max_matches: usize,
) -> PyResult<Vec<usize>> {
    guard("grep_lines", || {
        let text = text_of(text, "text")?;
        let regex = text_of(regex, "regex")?;
        let required = text_of(required, "required")?;
        let program = grep::Program::new(&program.0, program.1).map_err(PyValueError::new_err)?;
        py.detach(|| grep::grep_lines(&text, &regex, &required, &program, confirm, max_matches))
            .map_err(PyValueError::new_err)
    })
}

/// BM25 over the kernel's words; immutable once built, so it is safe to share across threads.
#[pyclass(frozen, name = "Bm25Index", module = "ctxsieve._native")]
struct PyBm25Index {
    inner: bm25::Bm25Index,
}

#[pymethods]
impl PyBm25Index {
    #[new]
    #[pyo3(signature = (docs, k1 = None, b = None))]
    fn new(
        py: Python<'_>,
        docs: &Bound<'_, PyAny>,
        k1: Option<&Bound<'_, PyAny>>,
        b: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        guard("Bm25Index", || {
            let objs = snapshot("docs", docs)?;
            let docs = texts_of(&objs, "docs")?;
            let k1 = k1.map_or(Ok(1.2), |k| positive_arg("k1", k))?;
            let b = b.map_or(Ok(0.75), |b| float_arg("b", b))?;
            if !(0.0..=1.0).contains(&b) {
                return Err(PyValueError::new_err(format!(
                    "b: must be a number in [0, 1], got {}",
                    pyo3::types::PyFloat::new(py, b).repr()?
                )));
            }
            let inner = py.detach(|| bm25::Bm25Index::new(&docs, k1, b));
            Ok(PyBm25Index { inner })
        })
    }

    fn search(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        limit: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(usize, f64)>> {
        guard("Bm25Index.search", || {
            let query = text_of(query, "query")?;
            // usize::MAX on a 32-bit target: a limit above the result count changes nothing
            let limit = usize::try_from(count_arg("limit", limit)?).unwrap_or(usize::MAX);
            Ok(py.detach(|| self.inner.search(&query, limit)))
        })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

/// Panics inside `guard`, so a test can check that a Rust panic reaches Python as
/// `InternalError` (an `Exception`) and not as PyO3's `PanicException` (a `BaseException`).
#[pyfunction]
fn _panic_for_tests(message: &str) -> PyResult<()> {
    guard("_panic_for_tests", || -> PyResult<()> {
        panic!("{message}")
    })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("UNICODE_VERSION", unicode_tables::UNICODE_VERSION)?;
    m.add("MAX_COUNT", crate::limits::MAX_COUNT)?;
    m.add("MAX_BETA", crate::limits::MAX_BETA)?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add_function(wrap_pyfunction!(estimate_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(words, m)?)?;
    m.add_function(wrap_pyfunction!(shingle_hashes, m)?)?;
    m.add_function(wrap_pyfunction!(content_hash, m)?)?;
    m.add_function(wrap_pyfunction!(dedupe, m)?)?;
    m.add_function(wrap_pyfunction!(fill_budget, m)?)?;
    m.add_function(wrap_pyfunction!(cache_order, m)?)?;
    m.add_function(wrap_pyfunction!(grep_lines, m)?)?;
    m.add_class::<PyBm25Index>()?;
    m.add_function(wrap_pyfunction!(calibrated_estimate, m)?)?; // issue 7
    m.add_class::<PyKnownWords>()?; // issue 7
    m.add_function(wrap_pyfunction!(crate::py_build::wrapper_texts, m)?)?; // issue 15
    m.add_function(wrap_pyfunction!(crate::py_build::block_costs, m)?)?; // issue 15
    m.add_function(wrap_pyfunction!(crate::py_build::calibrate_scores, m)?)?; // issue 15
    m.add_function(wrap_pyfunction!(crate::py_fill::fill_open, m)?)?; // issue 15
    m.add_function(wrap_pyfunction!(crate::py_budget::set_thread_budget, m)?)?; // issue 15
    m.add_function(wrap_pyfunction!(crate::py_budget::thread_budget, m)?)?; // issue 15
    m.add_class::<crate::py_dedupe_memo::PyDedupeMemo>()?; // issue 15
    Ok(())
}
