//! What a dedupe call prepares before its visit: shingle sets, the shared shingles as groups
//! (`dedupe_groups.rs`), each item's groups in the global rarity order that prefix filtering
//! needs, and each item's short prefix (see `dedupe.rs` for the filter and its proof).
//!
//! Items are labelled by visit rank, so every per-group list built from them is in visit order.

use crate::dedupe::Item;
use crate::dedupe_groups::{shared_groups, Groups};
use crate::text::{content_hash, shingle_set};
use rayon::prelude::*;

/// Lists per group filled during the visit: `push(g, r)` appends rank `r` to group `g`'s list,
/// whose room was counted beforehand, so appending never allocates and each list stays in
/// visit order.
pub struct Lists {
    starts: Vec<u32>,
    fill: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    /// `capacity[g]` is the most entries group `g` will get.
    pub fn with_capacity(capacity: impl Iterator<Item = u32>) -> Lists {
        let mut starts = vec![0u32];
        for c in capacity {
            starts.push(starts[starts.len() - 1] + c);
        }
        let total = starts[starts.len() - 1] as usize;
        Lists {
            fill: starts[..starts.len() - 1].to_vec(),
            starts,
            items: vec![0; total],
        }
    }

    pub fn push(&mut self, g: u32, r: u32) {
        let at = &mut self.fill[g as usize];
        self.items[*at as usize] = r;
        *at += 1;
    }

    pub fn get(&self, g: u32) -> &[u32] {
        &self.items[self.starts[g as usize] as usize..self.fill[g as usize] as usize]
    }
}

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
    pub sizes: Vec<usize>,
    /// Length of the short prefix among the item's shared shingles.
    pub short: Vec<usize>,
    /// Content hash, for texts without words only.
    pub hashes: Vec<Option<u64>>,
}

pub fn prepare(items: &[Item], order: &[usize], threshold: f64) -> Prepared {
    // Texts with equal content hashes have equal word sequences, hence equal shingle sets and
    // containment 1: for a text with words the hash match is always among its near matches.
    // So the hash is computed only for texts without words, where it is the only way to match
    // (the reference computes it for every text; the result is the same).
    let prepared: Vec<(Vec<u64>, Option<u64>)> = order
        .par_iter()
        .map(|&i| {
            let it = &items[i];
            if it.history {
                return (Vec::new(), None);
            }
            let shingles = shingle_set(it.text);
            let chash = if shingles.is_empty() {
                content_hash(it.text)
            } else {
                None
            };
            (shingles, chash)
        })
        .collect();
    let sizes: Vec<usize> = prepared.iter().map(|p| p.0.len()).collect();
    let (shingles, hashes): (Vec<Vec<u64>>, Vec<Option<u64>>) = prepared.into_iter().unzip();
    let groups = shared_groups(&shingles);
    drop(shingles);
    let short = (0..sizes.len())
        .map(|r| {
            let (a, shared) = (sizes[r], groups.of(r).len());
            if shared == 0 {
                return 0;
            }
            let unique = a - shared;
            (a - need(a, threshold) + 1)
                .saturating_sub(unique)
                .min(shared)
        })
        .collect();
    Prepared {
        groups,
        sizes,
        short,
        hashes,
    }
}
