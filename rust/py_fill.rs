//! The engine's fill over a build's own columns (`kernels.build.fill_open`, issue 15): the
//! ScoredKnapsack fill of `fill_budget` (`fill::fill`) over the rows not decided yet, each
//! row's reason written into the build's `reasons` list, the included rows returned. It
//! replaces, for the built-in policy only, six compressed column copies (the policy's `Pool`),
//! the source names' coding, the reasons as strings and their checks, and the included rows'
//! search: `select` at 10k 5.3 -> 2.1 ms CPU (load 8; stages/select.py has the other sizes).

use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::fill;
use crate::py_args::{guard, snapshot, snapshot_lists};
use crate::py_fill_args::{FillOptions, FillRows};

/// `tokens`, `scores`, `ranks` (a source number per row, the index into `caps`/`min_items`),
/// `pinned`, `deprecated`, `ids` and `reasons` are the build's columns; a row is filled when
/// its `reasons[i]` is None (any other value: decided already, left as it is) and gets
/// `names[code]` (`kernels.FILL_REASONS`) written there. Checks and messages are
/// `fill_budget`'s, every row's elements checked, in the same order; the pinned rows over the
/// budget are the caller's to refuse before the call.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn fill_open(
    py: Python<'_>,
    tokens: &Bound<'_, PyAny>,
    scores: &Bound<'_, PyAny>,
    ranks: &Bound<'_, PyAny>,
    pinned: &Bound<'_, PyAny>,
    deprecated: &Bound<'_, PyAny>,
    ids: &Bound<'_, PyAny>,
    reasons: &Bound<'_, PyAny>,
    names: &Bound<'_, PyAny>,
    budget: &Bound<'_, PyAny>,
    beta: &Bound<'_, PyAny>,
    min_score: &Bound<'_, PyAny>,
    caps: &Bound<'_, PyAny>,
    min_items: &Bound<'_, PyAny>,
    include_deprecated: &Bound<'_, PyAny>,
) -> PyResult<Vec<usize>> {
    guard("fill_open", || {
        let cols = [
            "tokens",
            "scores",
            "ranks",
            "pinned",
            "deprecated",
            "ids",
            "reasons",
        ];
        let objs = [tokens, scores, ranks, pinned, deprecated, ids, reasons];
        let lists = snapshot_lists(&cols, &objs)?;
        let names = snapshot("names", names)?;
        let cap_objs = snapshot("caps", caps)?;
        let min_objs = snapshot("min_items", min_items)?;
        let rows = FillRows::of(&lists, "ranks")?;
        let opts = FillOptions::of(
            budget,
            beta,
            min_score,
            include_deprecated,
            &cap_objs,
            &min_objs,
        )?;
        rows.check_sources(opts.caps.len(), "ranks")?;
        if names.len() != usize::from(fill::BUDGET) + 1 {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "names: expected {} reason names, got {}",
                fill::BUDGET + 1,
                names.len()
            )));
        }
        let open: Vec<usize> = (0..rows.tokens.len())
            .filter(|&i| lists[6][i].is_none())
            .collect();
        let input: Vec<fill::Item> = open.iter().map(|&i| rows.item(i)).collect();
        let opt = opts.options();
        let codes = py.detach(|| fill::fill(&input, &opt));
        // written into the caller's list itself (a converted element's own code could have
        // resized it meanwhile: set_item then raises IndexError, as the reference's write does)
        let out = reasons.cast::<PyList>()?;
        let mut included = Vec::new();
        for (&i, &code) in open.iter().zip(&codes) {
            out.set_item(i, &names[usize::from(code)])?;
            if code <= fill::SELECTED {
                included.push(i);
            }
        }
        Ok(included)
    })
}
