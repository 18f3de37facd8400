//! The arguments `dedupe` and `DedupeMemo.dedupe` share: five lists, one entry per candidate,
//! converted once (with the reference's messages) and lent to the kernels as `dedupe::Item`s.

use pyo3::prelude::*;
use std::borrow::Cow;

use crate::dedupe::Item;
use crate::py_args::{bools_of, floats_of, keys_of, snapshot_lists, texts_of};

/// The names of the list arguments, in the order the reference checks them.
const NAMES: [&str; 5] = ["texts", "ids", "scores", "pinned", "history"];

/// The lists snapshotted and their lengths checked; `DedupeArgs::of` converts them.
pub fn dedupe_lists<'py>(objs: [&Bound<'py, PyAny>; 5]) -> PyResult<Vec<Vec<Bound<'py, PyAny>>>> {
    snapshot_lists(&NAMES, &objs)
}

/// The converted lists, borrowing their strings from the snapshot where they are UTF-8.
pub struct DedupeArgs<'a> {
    texts: Vec<Cow<'a, str>>,
    ids: Vec<Cow<'a, [u8]>>,
    scores: Vec<f64>,
    pinned: Vec<bool>,
    history: Vec<bool>,
}

impl<'a> DedupeArgs<'a> {
    pub fn of(lists: &'a [Vec<Bound<'_, PyAny>>]) -> PyResult<Self> {
        Ok(DedupeArgs {
            texts: texts_of(&lists[0], NAMES[0])?,
            ids: keys_of(&lists[1], NAMES[1])?,
            scores: floats_of(&lists[2], NAMES[2])?,
            pinned: bools_of(&lists[3])?,
            history: bools_of(&lists[4])?,
        })
    }

    pub fn items(&self) -> Vec<Item<'_>> {
        (0..self.texts.len())
            .map(|i| Item {
                text: &self.texts[i],
                id: &self.ids[i],
                score: self.scores[i],
                pinned: self.pinned[i],
                history: self.history[i],
            })
            .collect()
    }
}
