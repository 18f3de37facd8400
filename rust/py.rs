//! PyO3 bindings: the only file that knows about Python.
//!
//! Every function converts its arguments once into owned or borrowed Rust values (validating
//! each element with the same messages, in the same order, as `kernels/reference.py`), releases
//! the GIL for the work, and converts the result back once. Strings stay borrowed from the
//! Python objects we hold references to; a string with lone surrogates (which has no UTF-8 form)
//! is re-encoded with `surrogatepass` and each surrogate becomes U+FFFD.

use std::borrow::Cow;

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::{bm25, dedupe as dd, fill, grep, order, text, unicode_tables};

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

fn items<'py>(list: &Bound<'py, PyList>) -> Vec<Bound<'py, PyAny>> {
    list.iter().collect()
}

fn check_lengths(names: &[&str], lists: &[&Bound<'_, PyList>]) -> PyResult<()> {
    let n = lists[0].len();
    for (name, list) in names[1..].iter().zip(&lists[1..]) {
        if list.len() != n {
            return Err(PyValueError::new_err(format!(
                "{name}: expected {n} items (one per {}), got {}",
                names[0],
                list.len()
            )));
        }
    }
    Ok(())
}

fn not_str(name: &str, obj: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!("{name}: expected str, got {}", type_name(obj)))
}

fn surrogatepass<'py>(s: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(s.call_method1("encode", ("utf-8", "surrogatepass"))?
        .cast_into::<PyBytes>()?)
}

/// The clean text of a str: borrowed when it is valid UTF-8, else a copy with U+FFFD.
fn text_of<'a>(obj: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Cow<'a, str>> {
    let s = obj.cast::<PyString>().map_err(|_| not_str(name, obj))?;
    match s.to_str() {
        Ok(t) => Ok(Cow::Borrowed(t)),
        Err(_) => Ok(Cow::Owned(text::decode_surrogatepass(
            surrogatepass(s)?.as_bytes(),
        ))),
    }
}

/// The bytes of a str for ordering and equality: UTF-8, or surrogatepass when needed (both
/// order like code points).
fn key_of<'a>(obj: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Cow<'a, [u8]>> {
    let s = obj.cast::<PyString>().map_err(|_| not_str(name, obj))?;
    match s.to_str() {
        Ok(t) => Ok(Cow::Borrowed(t.as_bytes())),
        Err(_) => Ok(Cow::Owned(surrogatepass(s)?.as_bytes().to_vec())),
    }
}

fn texts_of<'a>(objs: &'a [Bound<'_, PyAny>], name: &str) -> PyResult<Vec<Cow<'a, str>>> {
    objs.iter()
        .enumerate()
        .map(|(i, o)| text_of(o, &format!("{name}[{i}]")))
        .collect()
}

fn keys_of<'a>(objs: &'a [Bound<'_, PyAny>], name: &str) -> PyResult<Vec<Cow<'a, [u8]>>> {
    objs.iter()
        .enumerate()
        .map(|(i, o)| key_of(o, &format!("{name}[{i}]")))
        .collect()
}

fn float_repr(x: f64) -> &'static str {
    if x.is_nan() {
        "nan"
    } else if x > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

fn floats_of(list: &Bound<'_, PyList>, name: &str) -> PyResult<Vec<f64>> {
    let py = list.py();
    let mut out = Vec::with_capacity(list.len());
    for (i, obj) in list.iter().enumerate() {
        let f = match obj.extract::<f64>() {
            Ok(f) => f,
            Err(e) if e.is_instance_of::<PyOverflowError>(py) => {
                return Err(PyValueError::new_err(format!("{name}[{i}]: out of range")))
            }
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "{name}[{i}]: expected a number, got {}",
                    type_name(&obj)
                )))
            }
        };
        if !f.is_finite() {
            return Err(PyValueError::new_err(format!(
                "{name}[{i}]: must be finite, got {}",
                float_repr(f)
            )));
        }
        out.push(f);
    }
    Ok(out)
}

fn counts_of(list: &Bound<'_, PyList>, name: &str) -> PyResult<Vec<u64>> {
    let py = list.py();
    let mut out = Vec::with_capacity(list.len());
    for (i, obj) in list.iter().enumerate() {
        match obj.extract::<i64>() {
            Ok(n) if n < 0 => {
                return Err(PyValueError::new_err(format!(
                    "{name}[{i}]: must be >= 0, got {n}"
                )))
            }
            Ok(n) => out.push(n as u64),
            Err(e) if e.is_instance_of::<PyOverflowError>(py) => {
                let negative = obj.lt(0).unwrap_or(false);
                return Err(PyValueError::new_err(if negative {
                    format!("{name}[{i}]: must be >= 0, got {}", obj.str()?)
                } else {
                    format!("{name}[{i}]: out of range")
                }));
            }
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "{name}[{i}]: expected an int, got {}",
                    type_name(&obj)
                )))
            }
        }
    }
    Ok(out)
}

fn bools_of(list: &Bound<'_, PyList>) -> PyResult<Vec<bool>> {
    list.iter().map(|o| o.is_truthy()).collect()
}

// ---------------------------------------------------------------------------------------------

#[pyfunction]
fn estimate_tokens(texts: &Bound<'_, PyList>, bytes_per_token: f64) -> PyResult<Vec<u64>> {
    let objs = items(texts);
    let mut out = Vec::with_capacity(objs.len());
    for (i, obj) in objs.iter().enumerate() {
        let s = obj
            .cast::<PyString>()
            .map_err(|_| not_str(&format!("texts[{i}]"), obj))?;
        let len = match s.to_str() {
            Ok(t) => t.len(),
            // surrogatepass gives each lone surrogate its 3-byte form
            Err(_) => surrogatepass(s)?.as_bytes().len(),
        };
        out.push(text::estimate_tokens(len, bytes_per_token));
    }
    Ok(out)
}

#[pyfunction]
fn words(text: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    Ok(text::words(&text_of(text, "text")?))
}

#[pyfunction]
fn shingle_hashes(text: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    Ok(text::shingle_hashes(&text_of(text, "text")?))
}

#[pyfunction]
fn content_hash(text: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    Ok(text::content_hash(&text_of(text, "text")?))
}

#[pyfunction]
fn dedupe(
    py: Python<'_>,
    texts: &Bound<'_, PyList>,
    ids: &Bound<'_, PyList>,
    scores: &Bound<'_, PyList>,
    pinned: &Bound<'_, PyList>,
    history: &Bound<'_, PyList>,
    threshold: f64,
) -> PyResult<(Vec<i64>, Vec<usize>)> {
    check_lengths(
        &["texts", "ids", "scores", "pinned", "history"],
        &[texts, ids, scores, pinned, history],
    )?;
    let text_objs = items(texts);
    let id_objs = items(ids);
    let texts = texts_of(&text_objs, "texts")?;
    let ids = keys_of(&id_objs, "ids")?;
    let scores = floats_of(scores, "scores")?;
    let pinned = bools_of(pinned)?;
    let history = bools_of(history)?;
    let input: Vec<dd::Item> = (0..texts.len())
        .map(|i| dd::Item {
            text: &texts[i],
            id: &ids[i],
            score: scores[i],
            pinned: pinned[i],
            history: history[i],
        })
        .collect();
    let out = py.detach(|| dd::dedupe(&input, threshold));
    Ok((out.duplicate_of, out.visit_order))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn fill_budget(
    py: Python<'_>,
    tokens: &Bound<'_, PyList>,
    scores: &Bound<'_, PyList>,
    sources: &Bound<'_, PyList>,
    pinned: &Bound<'_, PyList>,
    deprecated: &Bound<'_, PyList>,
    ids: &Bound<'_, PyList>,
    budget: u64,
    beta: f64,
    min_score: Option<f64>,
    caps: Vec<i64>,
    min_items: Vec<u64>,
    include_deprecated: bool,
) -> PyResult<Vec<u32>> {
    check_lengths(
        &["tokens", "scores", "sources", "pinned", "deprecated", "ids"],
        &[tokens, scores, sources, pinned, deprecated, ids],
    )?;
    let tokens = counts_of(tokens, "tokens")?;
    let scores = floats_of(scores, "scores")?;
    let sources = counts_of(sources, "sources")?;
    let pinned = bools_of(pinned)?;
    let deprecated = bools_of(deprecated)?;
    let id_objs = items(ids);
    let ids = keys_of(&id_objs, "ids")?;
    let nsrc = caps.len();
    if min_items.len() != nsrc {
        return Err(PyValueError::new_err(format!(
            "min_items: expected {nsrc} items (one per caps), got {}",
            min_items.len()
        )));
    }
    if let Some(i) = sources.iter().position(|&s| s as usize >= nsrc) {
        return Err(PyValueError::new_err(format!(
            "sources[{i}]: no source {} (caps has {nsrc})",
            sources[i]
        )));
    }
    let caps: Vec<Option<u64>> = caps
        .iter()
        .map(|&c| if c < 0 { None } else { Some(c as u64) })
        .collect();
    let input: Vec<fill::Item> = (0..tokens.len())
        .map(|i| fill::Item {
            tokens: tokens[i],
            score: scores[i],
            source: sources[i] as usize,
            pinned: pinned[i],
            deprecated: deprecated[i],
            id: &ids[i],
        })
        .collect();
    let opt = fill::Options {
        budget,
        beta,
        min_score,
        caps: &caps,
        min_items: &min_items,
        include_deprecated,
    };
    // returned as ints, not a Vec<u8> (which PyO3 would turn into bytes)
    Ok(py
        .detach(|| fill::fill(&input, &opt))
        .into_iter()
        .map(u32::from)
        .collect())
}

#[pyfunction]
fn cache_order(
    py: Python<'_>,
    stability: &Bound<'_, PyList>,
    history: &Bound<'_, PyList>,
    scores: &Bound<'_, PyList>,
    source_rank: &Bound<'_, PyList>,
    order_keys: &Bound<'_, PyList>,
    ids: &Bound<'_, PyList>,
) -> PyResult<Vec<usize>> {
    check_lengths(
        &[
            "stability",
            "history",
            "scores",
            "source_rank",
            "order_keys",
            "ids",
        ],
        &[stability, history, scores, source_rank, order_keys, ids],
    )?;
    let stability = counts_of(stability, "stability")?;
    if let Some(i) = stability.iter().position(|&s| s > 2) {
        return Err(PyValueError::new_err(format!(
            "stability[{i}]: must be 0, 1 or 2, got {}",
            stability[i]
        )));
    }
    let history = bools_of(history)?;
    let scores = floats_of(scores, "scores")?;
    let ranks = counts_of(source_rank, "source_rank")?;
    let key_objs = items(order_keys);
    let keys = keys_of(&key_objs, "order_keys")?;
    let id_objs = items(ids);
    let ids = keys_of(&id_objs, "ids")?;
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
    let text = text_of(text, "text")?;
    let regex = text_of(regex, "regex")?;
    let required = text_of(required, "required")?;
    let program = grep::Program::new(&program.0, program.1).map_err(PyValueError::new_err)?;
    py.detach(|| grep::grep_lines(&text, &regex, &required, &program, confirm, max_matches))
        .map_err(PyValueError::new_err)
}

/// BM25 over the kernel's words; immutable once built, so it is safe to share across threads.
#[pyclass(frozen, name = "Bm25Index", module = "ctxsieve._native")]
struct PyBm25Index {
    inner: bm25::Bm25Index,
}

#[pymethods]
impl PyBm25Index {
    #[new]
    #[pyo3(signature = (docs, k1 = 1.2, b = 0.75))]
    fn new(py: Python<'_>, docs: &Bound<'_, PyList>, k1: f64, b: f64) -> PyResult<Self> {
        let objs = items(docs);
        let docs = texts_of(&objs, "docs")?;
        let inner = py.detach(|| bm25::Bm25Index::new(&docs, k1, b));
        Ok(PyBm25Index { inner })
    }

    fn search(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        limit: i64,
    ) -> PyResult<Vec<(usize, f64)>> {
        let query = text_of(query, "query")?;
        let limit = limit.max(0) as usize;
        Ok(py.detach(|| self.inner.search(&query, limit)))
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

// --- calibrated estimator (issue 7) ---

/// The calibrated costs, checked element by element in the order and with the messages of
/// `kernels/calibrated.py::check_costs`.
fn calibrated_costs(costs: &Bound<'_, PyList>) -> PyResult<[u64; crate::calibrated::NUM_FEATURES]> {
    if costs.len() != crate::calibrated::NUM_FEATURES {
        let err = crate::calibrated::CostError::Length(costs.len());
        return Err(PyValueError::new_err(err.to_string()));
    }
    let mut out = [0u64; crate::calibrated::NUM_FEATURES];
    for (i, obj) in costs.iter().enumerate() {
        if obj.is_instance_of::<pyo3::types::PyBool>()
            || !obj.is_instance_of::<pyo3::types::PyInt>()
        {
            return Err(PyTypeError::new_err(format!(
                "costs[{i}]: expected an int, got {}",
                type_name(&obj)
            )));
        }
        match obj.extract::<i64>() {
            Ok(c) if (0..=crate::calibrated::MAX_COST as i64).contains(&c) => out[i] = c as u64,
            // out of range, or too large for i64: the reference prints the int itself
            _ => {
                return Err(PyValueError::new_err(format!(
                    "costs[{i}]: must be in [0, {}], got {}",
                    crate::calibrated::MAX_COST,
                    obj.str()?
                )))
            }
        }
    }
    Ok(out)
}

/// The word hashes of the `known_word` feature, built once per profile.
#[pyclass(frozen, name = "KnownWords", module = "ctxsieve._native")]
struct PyKnownWords {
    inner: crate::calibrated::KnownWords,
}

#[pymethods]
impl PyKnownWords {
    #[new]
    fn new(hashes: &Bound<'_, PyAny>) -> PyResult<Self> {
        let bytes = hashes.cast::<PyBytes>().map_err(|_| {
            PyTypeError::new_err(format!(
                "known words: expected bytes, got {}",
                type_name(hashes)
            ))
        })?;
        let inner =
            crate::calibrated::KnownWords::from_le_bytes(bytes.as_bytes()).map_err(|n| {
                PyValueError::new_err(format!(
                    "known words: expected a multiple of 4 bytes (little-endian u32), got {n}"
                ))
            })?;
        Ok(Self { inner })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, h: &Bound<'_, PyAny>) -> bool {
        // ints only, as the reference: a bool or a float is never a hash
        h.is_instance_of::<pyo3::types::PyInt>()
            && !h.is_instance_of::<pyo3::types::PyBool>()
            && h.extract::<u32>().is_ok_and(|h| self.inner.contains(h))
    }
}

#[pyfunction]
#[pyo3(signature = (texts, costs, known=None))]
fn calibrated_estimate(
    py: Python<'_>,
    texts: &Bound<'_, PyList>,
    costs: &Bound<'_, PyList>,
    known: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let objs = items(texts);
    let keys = keys_of(&objs, "texts")?;
    let costs = calibrated_costs(costs)?;
    let known = match known.filter(|k| !k.is_none()) {
        None => None,
        Some(k) => Some(k.cast::<PyKnownWords>().map_err(|_| {
            PyTypeError::new_err(format!(
                "known: expected ctxsieve._native.KnownWords or None (ctxsieve.kernels.calibrated.known_words makes it), got {}",
                type_name(k)
            ))
        })?),
    };
    let known = known.map(|k| &k.get().inner);
    Ok(py.detach(|| crate::calibrated::estimate_batch(&keys, &costs, known)))
}

// --- end calibrated estimator (issue 7) ---

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("UNICODE_VERSION", unicode_tables::UNICODE_VERSION)?;
    m.add_function(wrap_pyfunction!(estimate_tokens, m)?)?;
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
    Ok(())
}
