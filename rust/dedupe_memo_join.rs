//! Exact joins for the dedupe memo: every pair of texts whose shingle sets match
//! (`|A ∩ B| >= need(min(|A|, |B|))`, the very float test of `dedupe_index::need`), found by
//! prefix filtering over `dedupe_memo_index::Index` and verified by counting.
//!
//! Both joins rest on the argument of `dedupe.rs`: order every shingle by one total order; if
//! `A` and `B` match with `o = need(min)`, the first shingle `w` of `A ∩ B` in the order lies
//! within the first `|X| - o + 1` shingles of either set `X`, and (being shared) within the
//! first `|X| - o + 1 - u_X` of `X`'s shingles some other text holds (`u_X`: those nobody else
//! holds). So:
//!
//! * `self_join` (every text of a bulk-built index): for the pair's smaller set `K` (ties: the
//!   lower slot) `o = need(|K|)`, so `w` is in `K`'s shared short prefix; walking the holders
//!   of each of those shingles finds the other text exactly once.
//! * `probe` (a new text `I` against the index): a larger memo text `K` is found through `I`'s
//!   shared short prefix and `held`; a memo text no larger than `I` has `w` in its own short
//!   prefix (`prefixed`, indexed when it was added), at a position `j` of `I`'s shared
//!   shingles with `shared - j >= need(|K|)`.

use crate::dedupe_index::need;
use crate::dedupe_memo_index::{prefix_len, Built, Index, Ranked};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// The shingles of one set in an open-addressing table, to count another set's overlap.
pub struct Table {
    slots: Vec<u64>,
    mask: usize,
    zero: bool, // 0 marks an empty slot, so a shingle hash of 0 is tracked apart
}

impl Table {
    pub fn new(set: &[u64]) -> Table {
        let mask = (set.len() * 2).next_power_of_two().max(2) - 1;
        let mut t = Table {
            slots: vec![0; mask + 1],
            mask,
            zero: false,
        };
        for &h in set {
            if h == 0 {
                t.zero = true;
                continue;
            }
            let mut k = (h as usize) & t.mask;
            while t.slots[k] != 0 && t.slots[k] != h {
                k = (k + 1) & t.mask;
            }
            t.slots[k] = h;
        }
        t
    }

    fn contains(&self, h: u64) -> bool {
        if h == 0 {
            return self.zero;
        }
        let mut k = (h as usize) & self.mask;
        loop {
            match self.slots[k] {
                0 => return false,
                x if x == h => return true,
                _ => k = (k + 1) & self.mask,
            }
        }
    }

    /// Whether `theirs` (distinct shingles) holds at least `o` of this table's; stops as soon
    /// as the answer is known.
    pub fn holds_at_least(&self, theirs: &[u64], o: usize) -> bool {
        let (mut hits, mut left) = (0usize, theirs.len());
        for &h in theirs {
            if hits + left < o {
                return false;
            }
            left -= 1;
            if self.contains(h) {
                hits += 1;
                if hits >= o {
                    return true;
                }
            }
        }
        hits >= o
    }
}

/// Every matching pair `(k, i)` among the sets of a bulk-built index, or `None` once more
/// than `max_edges` pairs are found (the caller then gives up on the memo for this build).
pub fn self_join(built: &Built, sets: &[&[u64]], max_edges: usize) -> Option<Vec<(u32, u32)>> {
    let threshold = built.index.threshold();
    let found = AtomicUsize::new(0);
    let over = AtomicBool::new(false);
    let per: Vec<Vec<(u32, u32)>> = (0..sets.len())
        .into_par_iter()
        .map(|k| {
            let prefix = &built.shared_prefix[k];
            if prefix.is_empty() || over.load(Relaxed) {
                return Vec::new();
            }
            let a_k = sets[k].len();
            let mut cands: Vec<u32> = Vec::new();
            for &s in prefix {
                let Some(e) = built.index.get(s) else {
                    continue;
                };
                for i in built.index.held(s, e) {
                    let a_i = sets[i as usize].len();
                    if a_i > a_k || (a_i == a_k && i as usize > k) {
                        cands.push(i);
                    }
                }
            }
            if cands.is_empty() {
                return Vec::new();
            }
            cands.sort_unstable();
            cands.dedup();
            let table = Table::new(sets[k]);
            let o = need(a_k, threshold);
            let out: Vec<(u32, u32)> = cands
                .into_iter()
                .filter(|&i| table.holds_at_least(sets[i as usize], o))
                .map(|i| (k as u32, i))
                .collect();
            if found.fetch_add(out.len(), Relaxed) + out.len() > max_edges {
                over.store(true, Relaxed);
            }
            out
        })
        .collect();
    if over.load(Relaxed) {
        return None;
    }
    Some(per.into_iter().flatten().collect())
}

/// The memo texts a new text matches, among those of `index` (the new text not yet linked):
/// `ranked`, its shingles as `Index::ranked` gave them. `set_of(k)`: the set of memo text `k`,
/// `None` when it was removed.
pub fn probe<'a>(
    index: &Index,
    set: &[u64],
    ranked: &[Ranked],
    set_of: impl Fn(u32) -> Option<&'a [u64]>,
) -> Vec<u32> {
    let threshold = index.threshold();
    let a = set.len();
    // the shingles the index holds: a match's are among them, so its first shared one lies
    // within the first `shared - need + 1` of them (the argument restricted to these)
    let shared: Vec<u64> = ranked.iter().filter(|k| k.shared).map(|k| k.hash).collect();
    if shared.is_empty() {
        return Vec::new();
    }
    let mut cands: Vec<u32> = Vec::new();
    let short = prefix_len(a, threshold)
        .saturating_sub(a - shared.len())
        .min(shared.len());
    for &s in &shared[..short] {
        let Some(e) = index.get(s) else { continue };
        for k in index.held(s, e) {
            if set_of(k).is_some_and(|t| t.len() > a) {
                cands.push(k);
            }
        }
    }
    for (j, &s) in shared.iter().enumerate() {
        let room = shared.len() - j;
        let Some(e) = index.get(s) else { continue };
        for k in index.prefixed(s, e) {
            if set_of(k).is_some_and(|t| t.len() <= a && need(t.len(), threshold) <= room) {
                cands.push(k);
            }
        }
    }
    let mut matches = Vec::new();
    if !cands.is_empty() {
        cands.sort_unstable();
        cands.dedup();
        let table = Table::new(set);
        for k in cands {
            let Some(theirs) = set_of(k) else { continue };
            if table.holds_at_least(theirs, need(a.min(theirs.len()), threshold)) {
                matches.push(k);
            }
        }
    }
    matches
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::shingle_set;

    fn brute(sets: &[Vec<u64>], threshold: f64) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for k in 0..sets.len() {
            for i in k + 1..sets.len() {
                let (a, b) = (&sets[k], &sets[i]);
                if a.is_empty() || b.is_empty() {
                    continue;
                }
                let common = a.iter().filter(|h| b.contains(h)).count();
                if common as f64 / a.len().min(b.len()) as f64 >= threshold {
                    out.push((k as u32, i as u32));
                }
            }
        }
        out
    }

    fn texts() -> Vec<String> {
        let footer = "read the terms of use and the privacy notice before you go";
        let mut out = Vec::new();
        for k in 0..40u32 {
            let body: Vec<String> = (0..(8 + k % 13))
                .map(|j| format!("w{}", (k * 7 + j * 3) % 23))
                .collect();
            out.push(format!("{} {footer}", body.join(" ")));
            out.push(body.join(" "));
        }
        out.push(footer.to_string());
        out.push(String::new());
        out
    }

    #[test]
    fn self_join_and_probes_find_exactly_the_brute_force_pairs() {
        for threshold in [0.5, 0.8, 1.0, 2.0 / 3.0] {
            let sets: Vec<Vec<u64>> = texts().iter().map(|t| shingle_set(t)).collect();
            let refs: Vec<&[u64]> = sets.iter().map(Vec::as_slice).collect();
            let want = brute(&sets, threshold);
            let built = Index::build(&refs, threshold);
            let mut got = self_join(&built, &refs, usize::MAX).unwrap();
            for p in got.iter_mut() {
                *p = (p.0.min(p.1), p.0.max(p.1));
            }
            got.sort_unstable();
            assert_eq!(got, want, "self-join at {threshold}");
            assert!(
                self_join(&built, &refs, want.len().saturating_sub(1)).is_none() || want.is_empty()
            );

            // the same pairs by probing one text at a time into an index built on the first half
            let half = sets.len() / 2;
            let mut index = Index::build(&refs[..half], threshold).index;
            let mut got = Vec::new();
            for (k, i) in self_join(
                &Index::build(&refs[..half], threshold),
                &refs[..half],
                usize::MAX,
            )
            .unwrap()
            {
                got.push((k.min(i), k.max(i)));
            }
            for (i, set) in sets.iter().enumerate().skip(half) {
                let me = i as u32;
                let ranked = index.ranked(set);
                let matches = probe(&index, set, &ranked, |k| (k < me).then(|| refs[k as usize]));
                got.extend(matches.iter().map(|&k| (k, me)));
                index.insert(&[(me, &ranked)]);
            }
            got.sort_unstable();
            assert_eq!(got, want, "probes at {threshold}");
        }
    }
}
