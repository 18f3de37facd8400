//! Argument conversion for the PyO3 bindings: the element and option checks of
//! `kernels/reference.py` and `kernels/limits.py`, with the same messages in the same order.
//!
//! Every list argument is first snapshotted into an owned `Vec` of references (`snapshot`):
//! converting an element may run Python code (`__float__`, `__bool__`, `__index__`) that
//! mutates the caller's lists, and a length checked before that conversion would no longer hold
//! (issue 12, finding 11: indexing a shrunken list panicked across the boundary).

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PyString};

use crate::limits::{MAX_BETA, MAX_COUNT};
use crate::text;

pyo3::create_exception!(
    _native,
    InternalError,
    PyRuntimeError,
    "A bug in the native kernels (a Rust panic), raised instead of crossing the boundary."
);

/// Runs a binding's body, turning a panic into `InternalError` (an `Exception`, unlike PyO3's
/// `PanicException`, so `except Exception` handlers and servers keep working).
pub fn guard<T>(name: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(InternalError::new_err(format!(
            "ctxsieve._native.{name}: internal error, please report it: {msg}"
        )))
    })
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// The elements of a list argument, copied before any of them is converted.
pub fn snapshot<'py>(name: &str, obj: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let list = obj.cast::<PyList>().map_err(|_| {
        PyTypeError::new_err(format!("{name}: expected a list, got {}", type_name(obj)))
    })?;
    Ok(list.iter().collect())
}

/// Each list argument snapshotted, in order, then checked to have the first one's length
/// (the reference's order of checks: every argument is a list, then the lengths agree).
pub fn snapshot_lists<'py>(
    names: &[&str],
    objs: &[&Bound<'py, PyAny>],
) -> PyResult<Vec<Vec<Bound<'py, PyAny>>>> {
    let lists = objs
        .iter()
        .zip(names)
        .map(|(l, n)| snapshot(n, l))
        .collect::<PyResult<Vec<_>>>()?;
    let refs: Vec<&[Bound<'_, PyAny>]> = lists.iter().map(Vec::as_slice).collect();
    check_lengths(names, &refs)?;
    Ok(lists)
}

pub fn check_lengths(names: &[&str], lists: &[&[Bound<'_, PyAny>]]) -> PyResult<()> {
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

fn float_repr(x: f64) -> &'static str {
    if x.is_nan() {
        "nan"
    } else if x > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// Python's `repr` of a float, for messages that quote one.
fn py_repr(py: Python<'_>, x: f64) -> String {
    PyFloat::new(py, x)
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| x.to_string())
}

/// `PyFloat_AsDouble`: a TypeError becomes ours, an OverflowError "out of range", any other
/// error raised by the object's own `__float__` propagates unchanged (as in the reference).
pub fn float_arg(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    let py = obj.py();
    obj.extract::<f64>().map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(py) {
            PyValueError::new_err(format!("{name}: out of range"))
        } else if e.is_instance_of::<PyTypeError>(py) {
            PyTypeError::new_err(format!("{name}: expected a number, got {}", type_name(obj)))
        } else {
            e
        }
    })
}

pub fn floats_of(objs: &[Bound<'_, PyAny>], name: &str) -> PyResult<Vec<f64>> {
    let mut out = Vec::with_capacity(objs.len());
    for (i, obj) in objs.iter().enumerate() {
        // an exact float runs no Python code and needs no name unless it fails: the name's
        // format! per element cost more than the conversion (about 1 ms of a 10k build)
        if let Ok(f) = obj.cast_exact::<PyFloat>() {
            let f = f.value();
            if f.is_finite() {
                out.push(f);
                continue;
            }
        }
        let f = float_arg(&format!("{name}[{i}]"), obj)?;
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

pub fn positive_arg(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    let f = float_arg(name, obj)?;
    if !(f.is_finite() && f > 0.0) {
        return Err(PyValueError::new_err(format!(
            "{name}: must be a positive finite number, got {}",
            py_repr(obj.py(), f)
        )));
    }
    Ok(f)
}

pub fn beta_arg(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    let f = float_arg("beta", obj)?;
    if !(0.0..=MAX_BETA).contains(&f) {
        return Err(PyValueError::new_err(format!(
            "beta: must be a number in [0, {MAX_BETA}], got {}",
            py_repr(obj.py(), f)
        )));
    }
    Ok(f)
}

/// An int as i64, or `Err(text)` with its decimal text when it does not fit, or a TypeError
/// naming `name`. Ints are read through `__index__` (numpy ints, bools as 0 and 1).
fn int_value(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Result<i64, String>> {
    let py = obj.py();
    match obj.extract::<i64>() {
        Ok(n) => Ok(Ok(n)),
        Err(e) if e.is_instance_of::<PyOverflowError>(py) => {
            // the exact value, for the message: `operator.index`, then int's own __str__
            let n = py.import("operator")?.call_method1("index", (obj,))?;
            let text = py
                .get_type::<pyo3::types::PyInt>()
                .call_method1("__repr__", (&n,))?;
            Ok(Err(text.to_string()))
        }
        Err(e) if e.is_instance_of::<PyTypeError>(py) => Err(PyTypeError::new_err(format!(
            "{name}: expected an int, got {}",
            type_name(obj)
        ))),
        Err(e) => Err(e),
    }
}

/// An int in `[lowest, MAX_COUNT]`; `what` explains `lowest` in the message.
fn bounded(name: &str, obj: &Bound<'_, PyAny>, lowest: i64, what: &str) -> PyResult<i64> {
    let n = match int_value(name, obj)? {
        Ok(n) => n,
        Err(text) if text.starts_with('-') => {
            return Err(PyValueError::new_err(format!(
                "{name}: must be >= {lowest}{what}, got {text}"
            )))
        }
        Err(text) => {
            return Err(PyValueError::new_err(format!(
                "{name}: must be <= {MAX_COUNT}, got {text}"
            )))
        }
    };
    if n < lowest {
        return Err(PyValueError::new_err(format!(
            "{name}: must be >= {lowest}{what}, got {n}"
        )));
    }
    Ok(n) // an i64 is never above MAX_COUNT
}

/// A count option (budget, limit): an int in `[0, MAX_COUNT]`, never a bool.
pub fn count_arg(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected an int, got bool"
        )));
    }
    Ok(bounded(name, obj, 0, "")? as u64)
}

pub fn counts_of(objs: &[Bound<'_, PyAny>], name: &str) -> PyResult<Vec<u64>> {
    objs.iter()
        .enumerate()
        .map(|(i, o)| {
            // an exact int runs no Python code: its name is made only for a message
            if let Some(n) = o
                .cast_exact::<PyInt>()
                .ok()
                .and_then(|n| n.extract::<u64>().ok())
            {
                if n <= MAX_COUNT {
                    return Ok(n);
                }
            }
            Ok(bounded(&format!("{name}[{i}]"), o, 0, "")? as u64)
        })
        .collect()
}

/// Token caps per source: -1 for none, else a count.
pub fn caps_of(objs: &[Bound<'_, PyAny>], name: &str) -> PyResult<Vec<Option<u64>>> {
    objs.iter()
        .enumerate()
        .map(|(i, o)| {
            let n = bounded(&format!("{name}[{i}]"), o, -1, " (-1 for no cap)")?;
            Ok((n >= 0).then_some(n as u64))
        })
        .collect()
}

pub fn bools_of(objs: &[Bound<'_, PyAny>]) -> PyResult<Vec<bool>> {
    objs.iter().map(|o| o.is_truthy()).collect()
}

// --- strings: borrowed when valid UTF-8; lone surrogates via surrogatepass ---

pub fn not_str(name: &str, obj: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!("{name}: expected str, got {}", type_name(obj)))
}

pub fn surrogatepass<'py>(s: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(s.call_method1("encode", ("utf-8", "surrogatepass"))?
        .cast_into::<PyBytes>()?)
}

/// The clean text of a str: borrowed when it is valid UTF-8, else a copy with U+FFFD.
pub fn text_of<'a>(obj: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Cow<'a, str>> {
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
pub fn key_of<'a>(obj: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Cow<'a, [u8]>> {
    let s = obj.cast::<PyString>().map_err(|_| not_str(name, obj))?;
    match s.to_str() {
        Ok(t) => Ok(Cow::Borrowed(t.as_bytes())),
        Err(_) => Ok(Cow::Owned(surrogatepass(s)?.as_bytes().to_vec())),
    }
}

pub fn texts_of<'a>(objs: &'a [Bound<'_, PyAny>], name: &str) -> PyResult<Vec<Cow<'a, str>>> {
    objs.iter()
        .enumerate()
        .map(|(i, o)| match o.cast::<PyString>().map(|s| s.to_str()) {
            Ok(Ok(t)) => Ok(Cow::Borrowed(t)), // the common case, without formatting a name
            _ => text_of(o, &format!("{name}[{i}]")),
        })
        .collect()
}

pub fn keys_of<'a>(objs: &'a [Bound<'_, PyAny>], name: &str) -> PyResult<Vec<Cow<'a, [u8]>>> {
    objs.iter()
        .enumerate()
        .map(|(i, o)| match o.cast::<PyString>().map(|s| s.to_str()) {
            Ok(Ok(t)) => Ok(Cow::Borrowed(t.as_bytes())),
            _ => key_of(o, &format!("{name}[{i}]")),
        })
        .collect()
}
