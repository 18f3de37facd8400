//! PyO3 glue of the calibrated estimator (issue 7): cost checks, `KnownWords`, the batch call.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::calibrated::{cost_path, CostError, Costs, MAX_BOUNDS, MAX_COST, NUM_FEATURES};
use crate::py_args::{guard, keys_of, snapshot, type_name};

/// The calibrated costs: one vector of `NUM_FEATURES` ints, or a list of 1 to `MAX_BOUNDS`
/// such vectors (the estimate is the smallest), checked element by element in the order and
/// with the messages of `kernels/calibrated.py::check_costs`.
fn calibrated_costs(costs: &Bound<'_, PyAny>) -> PyResult<Vec<Costs>> {
    let items = snapshot("costs", costs)?;
    let nested = items
        .first()
        .is_some_and(|v| v.is_instance_of::<pyo3::types::PyList>());
    if !nested {
        return Ok(vec![cost_vector(&items, None)?]);
    }
    if items.len() > MAX_BOUNDS {
        return Err(PyValueError::new_err(
            CostError::Bounds(items.len()).to_string(),
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for (b, v) in items.iter().enumerate() {
        let at = cost_path(Some(b));
        let v = snapshot(&at, v).map_err(|_| {
            PyTypeError::new_err(format!(
                "{at}: expected a list of {NUM_FEATURES} ints (a cost vector for each bound), got {}",
                type_name(v)
            ))
        })?;
        out.push(cost_vector(&v, Some(b))?);
    }
    Ok(out)
}

fn cost_vector(items: &[Bound<'_, PyAny>], bound: Option<usize>) -> PyResult<Costs> {
    if items.len() != NUM_FEATURES {
        let err = CostError::Length {
            bound,
            n: items.len(),
        };
        return Err(PyValueError::new_err(err.to_string()));
    }
    let at = cost_path(bound);
    let mut out = [0u64; NUM_FEATURES];
    for (i, obj) in items.iter().enumerate() {
        if obj.is_instance_of::<pyo3::types::PyBool>()
            || !obj.is_instance_of::<pyo3::types::PyInt>()
        {
            return Err(PyTypeError::new_err(format!(
                "{at}[{i}]: expected an int, got {}",
                type_name(obj)
            )));
        }
        match obj.extract::<i64>() {
            Ok(c) if (0..=MAX_COST as i64).contains(&c) => out[i] = c as u64,
            // out of range, or too large for i64: the reference prints the int itself
            _ => {
                return Err(PyValueError::new_err(format!(
                    "{at}[{i}]: must be in [0, {MAX_COST}], got {}",
                    obj.str()?
                )))
            }
        }
    }
    Ok(out)
}

/// The word hashes of the `known_word` feature, built once per profile.
#[pyclass(frozen, name = "KnownWords", module = "ctxsieve._native")]
pub struct PyKnownWords {
    inner: crate::calibrated::KnownWords,
}

#[pymethods]
impl PyKnownWords {
    #[new]
    #[pyo3(signature = (hashes, char_extra=None, digit_group=None, punct_pairs=None, cjk_pairs=None, cjk_tokens=None))]
    fn new(
        hashes: &Bound<'_, PyAny>,
        char_extra: Option<&Bound<'_, PyAny>>,
        digit_group: Option<&Bound<'_, PyAny>>,
        punct_pairs: Option<&Bound<'_, PyAny>>,
        cjk_pairs: Option<&Bound<'_, PyAny>>,
        cjk_tokens: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
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
        // the reference's order and wording: char_extra first, then digit_group
        let extra = match char_extra.filter(|e| !e.is_none()) {
            None => None,
            Some(e) => Some(e.cast::<PyBytes>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "known words: char_extra: expected bytes or None, got {}",
                    type_name(e)
                ))
            })?),
        };
        if let Some(e) = &extra {
            let n = e.as_bytes().len();
            if n != crate::calibrated::EXTRA_TABLE_BYTES {
                let err = crate::calibrated::TableError::ExtraLength(n);
                return Err(PyValueError::new_err(err.to_string()));
            }
        }
        let group: i128 = match digit_group.filter(|g| !g.is_none()) {
            None => 0,
            Some(g)
                if g.is_instance_of::<pyo3::types::PyBool>()
                    || !g.is_instance_of::<pyo3::types::PyInt>() =>
            {
                return Err(PyTypeError::new_err(format!(
                    "known words: digit_group: expected an int, got {}",
                    type_name(g)
                )))
            }
            Some(g) => match g.extract::<i128>() {
                Ok(v) if (0..=i128::from(crate::calibrated::MAX_DIGIT_GROUP)).contains(&v) => v,
                // out of range, or too large for i128: the reference prints the int itself
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "known words: digit_group: must be in [0, {}], got {}",
                        crate::calibrated::MAX_DIGIT_GROUP,
                        g.str()?
                    )))
                }
            },
        };
        let pairs = match punct_pairs.filter(|p| !p.is_none()) {
            None => None,
            Some(p) => Some(p.cast::<PyBytes>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "known words: punct_pairs: expected bytes or None, got {}",
                    type_name(p)
                ))
            })?),
        };
        let piece_pairs = match cjk_pairs.filter(|p| !p.is_none()) {
            None => None,
            Some(p) => Some(p.cast::<PyBytes>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "known words: cjk_pairs: expected bytes or None, got {}",
                    type_name(p)
                ))
            })?),
        };
        let inner = inner
            .with_tables(
                extra.as_ref().map(|e| e.as_bytes()),
                group,
                pairs.as_ref().map(|p| p.as_bytes()),
                piece_pairs.as_ref().map(|p| p.as_bytes()),
            )
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        // after every other table, as the reference checks it
        let inner = match cjk_tokens.filter(|t| !t.is_none()) {
            None => inner,
            Some(t) => {
                let t = t.cast::<PyBytes>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "known words: cjk_tokens: expected bytes or None, got {}",
                        type_name(t)
                    ))
                })?;
                inner
                    .with_piece_tokens(t.as_bytes())
                    .map_err(|e| PyValueError::new_err(e.to_string()))?
            }
        };
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
pub fn calibrated_estimate(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    costs: &Bound<'_, PyAny>,
    known: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    // the reference's own wording for a texts argument that is not a list
    let objs = snapshot("texts", texts).map_err(|_| {
        PyTypeError::new_err(format!(
            "texts: expected a list of str, got {}",
            type_name(texts)
        ))
    })?;
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
    guard("calibrated_estimate", || {
        // inside the thread's budget (py_budget.rs): a build_many worker's estimates stay on its cores
        Ok(py.detach(|| {
            crate::py_budget::within(|| crate::calibrated::estimate_batch(&keys, &costs, known))
        }))
    })
}
