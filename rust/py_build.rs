//! PyO3 bindings of the build path's own kernels (`rust/wrap.rs`), beside the general kernels
//! of `py.rs`; the same rules: snapshot, check elements with the reference's messages, never
//! panic across the boundary (`guard`).

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::py_args::{check_lengths, guard, not_str, snapshot, type_name};
use crate::wrap;

/// The str of `obj` when it is one with a UTF-8 form; `Ok(None)` for a str with lone
/// surrogates (the caller leaves that candidate to the reference), else the reference's error.
fn str_of<'a>(obj: &'a Bound<'_, PyAny>, name: &str, i: usize) -> PyResult<Option<&'a str>> {
    let s = obj
        .cast::<PyString>()
        .map_err(|_| not_str(&format!("{name}[{i}]"), obj))?;
    Ok(s.to_str().ok())
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
        let lists = [ids, sources, kinds, citations]
            .iter()
            .zip(names)
            .map(|(l, n)| snapshot(n, l))
            .collect::<PyResult<Vec<_>>>()?;
        let refs: Vec<&[Bound<'_, PyAny>]> = lists.iter().map(Vec::as_slice).collect();
        check_lengths(&names, &refs)?;
        let mut out = Vec::with_capacity(lists[0].len());
        let (ids, sources, kinds, cites) = (&lists[0], &lists[1], &lists[2], &lists[3]);
        for (i, c) in cites.iter().enumerate() {
            let id = str_of(&ids[i], "ids", i)?;
            let source = str_of(&sources[i], "sources", i)?;
            let kind = str_of(&kinds[i], "kinds", i)?;
            let citation = if c.is_none() {
                Some(None)
            } else if c.is_instance_of::<PyString>() {
                str_of(c, "citations", i)?.map(Some)
            } else {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "citations[{i}]: expected str or None, got {}",
                    type_name(c)
                )));
            };
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
