//! The arguments `fill_budget` and `fill_open` share: six columns, one entry per row, and the
//! fill's options, converted with the reference's messages and lent to `fill::fill`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::borrow::Cow;

use crate::fill;
use crate::py_args::{
    beta_arg, bools_of, caps_of, check_lengths, count_arg, counts_of, float_arg, floats_of, keys_of,
};

/// The converted columns; `source` is each row's index into the options' caps and minimums.
pub struct FillRows<'a> {
    pub tokens: Vec<u64>,
    scores: Vec<f64>,
    source: Vec<u64>,
    pinned: Vec<bool>,
    deprecated: Vec<bool>,
    ids: Vec<Cow<'a, [u8]>>,
}

impl<'a> FillRows<'a> {
    /// `lists`: tokens, scores, sources, pinned, deprecated, ids (checked to be as long),
    /// `source_name` the sources' argument name in messages.
    pub fn of(lists: &'a [Vec<Bound<'_, PyAny>>], source_name: &str) -> PyResult<Self> {
        Ok(FillRows {
            tokens: counts_of(&lists[0], "tokens")?,
            scores: floats_of(&lists[1], "scores")?,
            source: counts_of(&lists[2], source_name)?,
            pinned: bools_of(&lists[3])?,
            deprecated: bools_of(&lists[4])?,
            ids: keys_of(&lists[5], "ids")?,
        })
    }

    /// The first row whose source has no cap (`caps` has `nsrc`), as `fill_budget`'s error.
    pub fn check_sources(&self, nsrc: usize, source_name: &str) -> PyResult<()> {
        match self.source.iter().position(|&s| s >= nsrc as u64) {
            Some(i) => Err(PyValueError::new_err(format!(
                "{source_name}[{i}]: no source {} (caps has {nsrc})",
                self.source[i]
            ))),
            None => Ok(()),
        }
    }

    pub fn item(&self, i: usize) -> fill::Item<'_> {
        fill::Item {
            tokens: self.tokens[i],
            score: self.scores[i],
            source: self.source[i] as usize,
            pinned: self.pinned[i],
            deprecated: self.deprecated[i],
            id: &self.ids[i],
        }
    }
}

/// The fill's options, owning the caps and minimums `fill::Options` borrows.
pub struct FillOptions {
    budget: u64,
    beta: f64,
    min_score: Option<f64>,
    pub caps: Vec<Option<u64>>,
    min_items: Vec<u64>,
    include_deprecated: bool,
}

impl FillOptions {
    /// Checked in the reference's order: budget, beta, min_score, include_deprecated, caps,
    /// the two lists' lengths, min_items.
    pub fn of(
        budget: &Bound<'_, PyAny>,
        beta: &Bound<'_, PyAny>,
        min_score: &Bound<'_, PyAny>,
        include_deprecated: &Bound<'_, PyAny>,
        cap_objs: &[Bound<'_, PyAny>],
        min_objs: &[Bound<'_, PyAny>],
    ) -> PyResult<Self> {
        let budget = count_arg("budget", budget)?;
        let beta = beta_arg(beta)?;
        let min_score = match min_score.is_none() {
            true => None,
            false => Some(float_arg("min_score", min_score)?),
        };
        let include_deprecated = include_deprecated.is_truthy()?;
        let caps = caps_of(cap_objs, "caps")?;
        check_lengths(&["caps", "min_items"], &[cap_objs, min_objs])?;
        let min_items = counts_of(min_objs, "min_items")?;
        Ok(FillOptions {
            budget,
            beta,
            min_score,
            caps,
            min_items,
            include_deprecated,
        })
    }

    pub fn options(&self) -> fill::Options<'_> {
        fill::Options {
            budget: self.budget,
            beta: self.beta,
            min_score: self.min_score,
            caps: &self.caps,
            min_items: &self.min_items,
            include_deprecated: self.include_deprecated,
        }
    }
}
