//! What a dedupe call prepares before its visit: shingle sets, the shared shingles as groups
//! (`dedupe_groups.rs`), each item's groups in the global rarity order that prefix filtering
//! needs, and each item's short prefix (see `dedupe.rs` for the filter and its proof).
//!
//! Items are labelled by visit rank, so every per-group list built from them is in visit order.

use crate::dedupe::Item;
use crate::dedupe_groups::{shared_groups, Groups};
use crate::dedupe_scatter::shingle_chunks;
use rayon::prelude::*;

/// Lists per group filled during the visit: `push(g, r)` appends rank `r` to group `g`'s list,
/// whose room was counted beforehand, so appending never allocates and each list stays in
/// visit order.
pub struct Lists {
    /// `(start, end)` of each group's list: one cache line serves both
    bounds: Vec<[u32; 2]>,
    items: Vec<u32>,
}

impl Lists {
    /// `capacity[g]` is the most entries group `g` will get.
    pub fn with_capacity(capacity: impl Iterator<Item = u32>) -> Lists {
        let mut total = 0u32;
        let bounds: Vec<[u32; 2]> = capacity
            .map(|c| {
                let at = total;
                total += c;
                [at, at]
            })
            .collect();
        Lists {
            bounds,
            items: vec![0; total as usize],
        }
    }

    pub fn push(&mut self, g: u32, r: u32) {
        let at = &mut self.bounds[g as usize][1];
        self.items[*at as usize] = r;
        *at += 1;
    }

    pub fn get(&self, g: u32) -> &[u32] {
        let [a, b] = self.bounds[g as usize];
        &self.items[a as usize..b as usize]
    }
}

/// The fewest items a per-item parallel step of a call gives one task: below it the step runs
/// on one thread, as splitting it would cost more (a task each, and a sleeping worker woken)
/// than its work at ~1k items.
pub const MIN_SPLIT: usize = 4096;

/// The least overlap `c` in `1..=m` with `c / m >= threshold`, by the very float test the
/// verification uses (so no rounding of `threshold * m` can make the two disagree).
pub fn need(m: usize, threshold: f64) -> usize {
    let meets = |c: usize| c as f64 / m as f64 >= threshold;
    let mut c = ((threshold * m as f64).ceil() as usize).clamp(1, m);
    while c > 1 && meets(c - 1) {
        c -= 1;
    }
    while c < m && !meets(c) {
        c += 1;
    }
    c
}

/// What the visit needs of every item, by visit rank.
pub struct Prepared {
    pub groups: Groups,
    /// Number of distinct shingles.
    pub sizes: Vec<u32>,
    /// Length of the short prefix among the item's shared shingles.
    pub short: Vec<u32>,
    /// Content hash, for texts without words only.
    pub hashes: Vec<Option<u64>>,
    /// Whether another item (history aside) may have the same id: their id hashes are equal.
    /// An item whose id hash no other item has can match nobody by id.
    pub id_shared: Vec<bool>,
}

pub fn prepare(items: &[Item], order: &[usize], threshold: f64) -> Prepared {
    let n = order.len();
    let shingled = shingle_chunks(items, order);
    let groups = shared_groups(&shingled.chunks, n);
    drop(shingled.chunks);
    let sizes = shingled.sizes;
    let short = (0..n)
        .into_par_iter()
        .with_min_len(MIN_SPLIT)
        .map(|r| {
            let (a, shared) = (sizes[r] as usize, groups.of(r).len());
            if shared == 0 {
                return 0;
            }
            let unique = a - shared;
            (a - need(a, threshold) + 1)
                .saturating_sub(unique)
                .min(shared) as u32
        })
        .collect();
    let id_shared = shared_ids(&shingled.ids);
    Prepared {
        groups,
        sizes,
        short,
        hashes: shingled.hashes,
        id_shared,
    }
}

/// By rank: whether the item's id hash is also another (not history) item's.
fn shared_ids(ids: &[Option<u64>]) -> Vec<bool> {
    let mut sorted: Vec<u64> = ids.iter().flatten().copied().collect();
    if sorted.len() < MIN_SPLIT {
        sorted.sort_unstable();
    } else {
        sorted.par_sort_unstable();
    }
    let mut repeated: Vec<u64> = sorted
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    repeated.dedup();
    if repeated.is_empty() {
        return vec![false; ids.len()];
    }
    ids.iter()
        .map(|id| id.is_some_and(|h| repeated.binary_search(&h).is_ok()))
        .collect()
}
