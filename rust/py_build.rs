//! PyO3 bindings of the build path's own kernels (`rust/wrap.rs`, `rust/scores.rs`), beside the general kernels
//! of `py.rs`; the same rules: snapshot, check elements with the reference's messages, never
//! panic across the boundary (`guard`).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};

use crate::py_args::{
    check_lengths, count_arg, counts_of, float_arg, floats_of, guard, not_str, positive_arg,
    snapshot, snapshot_lists, surrogatepass, type_name,
};
use crate::{scores, text, wrap};

/// The str of `obj` when it is one with a UTF-8 form; `Ok(None)` for a str with lone
/// surrogates (the caller leaves that candidate to the reference), else the reference's error.
fn str_of<'a>(obj: &'a Bound<'_, PyAny>, name: &str, i: usize) -> PyResult<Option<&'a str>> {
    let s = obj
        .cast::<PyString>()
        .map_err(|_| not_str(&format!("{name}[{i}]"), obj))?;
    Ok(s.to_str().ok())
}

/// A citation: `Some(None)` for None, `Some(Some(text))` for a str, `None` for a str with lone
/// surrogates (no UTF-8 form); anything else is a TypeError naming `citations[i]`.
fn citation_of<'a>(c: &'a Bound<'_, PyAny>, i: usize) -> PyResult<Option<Option<&'a str>>> {
    if c.is_none() {
        Ok(Some(None))
    } else if c.is_instance_of::<PyString>() {
        Ok(str_of(c, "citations", i)?.map(Some))
    } else {
        Err(PyTypeError::new_err(format!(
            "citations[{i}]: expected str or None, got {}",
            type_name(c)
        )))
    }
}

/// For each candidate, its block wrapper and separator (`wrap::wrapper_text`), or None where
/// an attribute has lone surrogates (no UTF-8 form): `kernels.build` makes those in Python, so
/// the text is the same code points the renderer writes.
#[pyfunction]
pub fn wrapper_texts(
    py: Python<'_>,
    ids: &Bound<'_, PyAny>,
    sources: &Bound<'_, PyAny>,
    kinds: &Bound<'_, PyAny>,
    citations: &Bound<'_, PyAny>,
) -> PyResult<Vec<Option<Py<PyString>>>> {
    guard("wrapper_texts", || {
        let names = ["ids", "sources", "kinds", "citations"];
        let lists = snapshot_lists(&names, &[ids, sources, kinds, citations])?;
        let mut out = Vec::with_capacity(lists[0].len());
        let (ids, sources, kinds, cites) = (&lists[0], &lists[1], &lists[2], &lists[3]);
        for (i, c) in cites.iter().enumerate() {
            let id = str_of(&ids[i], "ids", i)?;
            let source = str_of(&sources[i], "sources", i)?;
            let kind = str_of(&kinds[i], "kinds", i)?;
            let citation = citation_of(c, i)?;
            out.push(match (id, source, kind, citation) {
                (Some(id), Some(source), Some(kind), Some(citation)) => {
                    let text = wrap::wrapper_text(id, source, kind, citation);
                    Some(PyString::new(py, &text).unbind())
                }
                _ => None,
            });
        }
        Ok(out)
    })
}

/// The str of the last object seen in a column, kept while the next element is that object.
#[derive(Default)]
struct Repeated<'a> {
    ptr: Option<*mut pyo3::ffi::PyObject>,
    text: Option<&'a str>,
}

impl<'a> Repeated<'a> {
    fn get(
        &mut self,
        obj: &'a Bound<'_, PyAny>,
        name: &str,
        i: usize,
    ) -> PyResult<Option<&'a str>> {
        if self.ptr != Some(obj.as_ptr()) {
            self.text = str_of(obj, name, i)?;
            self.ptr = Some(obj.as_ptr());
        }
        Ok(self.text)
    }
}

/// A token count given by a source: None (estimate it) or a count option's int.
fn given_of(obj: &Bound<'_, PyAny>, i: usize) -> PyResult<Option<u64>> {
    if obj.is_none() {
        return Ok(None);
    }
    // an exact int runs no Python code: its name is made only for a message
    if let Some(n) = obj
        .cast_exact::<PyInt>()
        .ok()
        .and_then(|n| n.extract::<u64>().ok())
    {
        if n <= crate::limits::MAX_COUNT {
            return Ok(Some(n));
        }
    }
    count_arg(&format!("tokens[{i}]"), obj).map(Some)
}

/// For each candidate, its content's estimate (or its given count) plus the estimate of its
/// wrapper and separator, with the `bytes/<n>` estimator (`text::estimate_tokens`): the
/// wrapper is written into one reused buffer and only its length is read, so no wrapper text
/// is made. None where an attribute has lone surrogates (`kernels.build` makes those in Python).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn block_costs(
    texts: &Bound<'_, PyAny>,
    tokens: &Bound<'_, PyAny>,
    ids: &Bound<'_, PyAny>,
    sources: &Bound<'_, PyAny>,
    kinds: &Bound<'_, PyAny>,
    citations: &Bound<'_, PyAny>,
    bytes_per_token: &Bound<'_, PyAny>,
) -> PyResult<Vec<Option<u64>>> {
    guard("block_costs", || {
        let bpt = positive_arg("bytes_per_token", bytes_per_token)?;
        let names = ["texts", "tokens", "ids", "sources", "kinds", "citations"];
        let lists = snapshot_lists(&names, &[texts, tokens, ids, sources, kinds, citations])?;
        let mut out = Vec::with_capacity(lists[0].len());
        // sources and kinds are a few objects repeated over the build: each length is read
        // once per run of the same object (a pointer compare), not once per candidate
        let (mut last_source, mut last_kind) = (Repeated::default(), Repeated::default());
        for (i, t) in lists[0].iter().enumerate() {
            let s = t
                .cast::<PyString>()
                .map_err(|_| not_str(&format!("texts[{i}]"), t))?;
            let content = match given_of(&lists[1][i], i)? {
                Some(n) => n,
                None => {
                    let len = match s.to_str() {
                        Ok(t) => t.len(),
                        // surrogatepass gives each lone surrogate its 3-byte form
                        Err(_) => surrogatepass(s)?.as_bytes().len(),
                    };
                    text::estimate_tokens(len, bpt)
                }
            };
            let id = str_of(&lists[2][i], "ids", i)?;
            let source = last_source.get(&lists[3][i], "sources", i)?;
            let kind = last_kind.get(&lists[4][i], "kinds", i)?;
            let c = &lists[5][i];
            let citation = citation_of(c, i)?;
            out.push(match (id, source, kind, citation) {
                (Some(id), Some(source), Some(kind), Some(citation)) => {
                    let len = wrap::wrapper_len(id, source, kind, citation);
                    Some(content + text::estimate_tokens(len, bpt))
                }
                _ => None,
            });
        }
        Ok(out)
    })
}

/// A list of small codes, each below `limit`.
fn codes_of(objs: &[Bound<'_, PyAny>], name: &str, limit: u64) -> PyResult<Vec<u64>> {
    let codes = counts_of(objs, name)?;
    if let Some(i) = codes.iter().position(|&c| c >= limit) {
        return Err(PyValueError::new_err(format!(
            "{name}[{i}]: must be below {limit}, got {}",
            codes[i]
        )));
    }
    Ok(codes)
}

/// Every candidate's calibrated score (`scores::calibrate`): `modes[r]` (the codes of
/// `kernels.build.MODE_CODES`, zscore excluded) and `weights[r]` belong to the source of rank
/// `r`; `marked[k]` is an item with signal bits `masks[k]` (1 stale, 2 human-reviewed).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn calibrate_scores(
    py: Python<'_>,
    raw: &Bound<'_, PyAny>,
    source_rank: &Bound<'_, PyAny>,
    modes: &Bound<'_, PyAny>,
    weights: &Bound<'_, PyAny>,
    marked: &Bound<'_, PyAny>,
    masks: &Bound<'_, PyAny>,
    stale_factor: &Bound<'_, PyAny>,
    reviewed_factor: &Bound<'_, PyAny>,
) -> PyResult<Vec<f64>> {
    guard("calibrate_scores", || {
        let names = ["raw", "source_rank", "modes", "weights", "marked", "masks"];
        let lists = [raw, source_rank, modes, weights, marked, masks]
            .iter()
            .zip(names)
            .map(|(l, n)| snapshot(n, l))
            .collect::<PyResult<Vec<_>>>()?;
        check_lengths(&names[..2], &[&lists[0], &lists[1]])?;
        check_lengths(&names[2..4], &[&lists[2], &lists[3]])?;
        check_lengths(&names[4..], &[&lists[4], &lists[5]])?;
        let raw = floats_of(&lists[0], "raw")?;
        let nsrc = lists[2].len() as u64;
        let ranks = codes_of(&lists[1], "source_rank", nsrc)?;
        let modes = codes_of(&lists[2], "modes", u64::from(scores::RAW) + 1)?;
        let weights = floats_of(&lists[3], "weights")?;
        let marked = codes_of(&lists[4], "marked", raw.len() as u64)?;
        let masks = codes_of(&lists[5], "masks", 4)?;
        let stale_factor = float_arg("stale_factor", stale_factor)?;
        let reviewed_factor = float_arg("reviewed_factor", reviewed_factor)?;
        let ranks: Vec<usize> = ranks.into_iter().map(|r| r as usize).collect();
        let modes: Vec<u8> = modes.into_iter().map(|m| m as u8).collect();
        let marks: Vec<(usize, u8)> = marked
            .into_iter()
            .zip(masks)
            .map(|(i, m)| (i as usize, m as u8))
            .collect();
        let opt = scores::Options {
            modes: &modes,
            weights: &weights,
            marks: &marks,
            stale_factor,
            reviewed_factor,
        };
        Ok(py.detach(|| scores::calibrate(&raw, &ranks, &opt)))
    })
}
