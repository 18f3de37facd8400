//! Near-duplicate detection over 5-word shingles: exact prefix filtering, then exact
//! verification of the candidate pairs.
//!
//! Shingling (the bulk of the work) runs on all cores with rayon; the pass over the items is
//! sequential because each decision depends on what was kept before it.
//!
//! # The filter and why it is exact
//!
//! Let `need(m)` be the least `c` in `1..=m` with `c as f64 / m as f64 >= threshold`: the same
//! float test as the verification, so "overlap >= need(min)" holds exactly when that test does
//! (the quotient grows with `c`). Order every shingle of the call by a global order fixed for the
//! call: frequency (how many items hold it) ascending, then hash. Take the item `i` being
//! visited and a kept item `k`, with `a_i`, `a_k` shingles, `o = need(min(a_i, a_k))`, and
//! suppose they match: `|S_i ∩ S_k| >= o`. Let `w` be the first shingle of `S_i ∩ S_k` in the
//! global order. The shingles of `S_x` before `w` are outside the intersection, so there are at
//! most `a_x - o` of them: `w` is within the first `a_x - o + 1` shingles of each set. `w` is
//! held by two items, so it comes after the `u_x` shingles only `x` holds (frequency 1); among
//! `x`'s shared shingles it is at position `<= a_x - o + 1 - u_x` (1-based). Two cases:
//!
//! * `a_k > a_i`: `o = need(a_i)`, so `w` is in `i`'s *short prefix*: its first
//!   `a_i - need(a_i) + 1 - u_i` shared shingles. Walking the kept holders of each of those
//!   (`held`) finds `k`.
//! * `a_k <= a_i`: `o = need(a_k)`, so `w` is in `k`'s short prefix, indexed in `prefixed` when
//!   `k` was kept, and at position `j + 1 <= a_i - need(a_k) + 1 - u_i` of `i`'s shared ones:
//!   walking `prefixed` for every shared shingle of `i`, with that bound, finds `k`.
//!
//! So every match is a candidate; each candidate is then verified by counting the exact
//! overlap. The lists are in visit order and the earliest kept match wins, so a walk stops at
//! the best match found so far (or at the item itself). Which global order is used only changes
//! the cost; rarest first keeps common shingles (a footer, a template) out of every short
//! prefix, so their long lists are never walked.
//!
//! # What lost
//!
//! * Walking every kept item holding any shared shingle of `i` (the previous index: overlaps
//!   counted per kept item, no prefixes) is quadratic when texts share shingles: 20k texts with
//!   one 15-word footer took 14 s (0.18 s without the footer), 40k 62 s.
//!   Measured on this 2-core machine under load, native, same decisions (hash of
//!   `duplicate_of` equal): 20k footer 25.6 s before, 0.21 s now (plain 0.18-0.30 s either
//!   way); 40k footer 0.45-0.52 s now, 10% template 0.36 s (plain 0.43-0.46 s). That
//!   template had 3 words changed per copy, so nearly every copy was a duplicate of the first
//!   kept one and the walk stopped there.
//! * With 4 to 6 words changed in a 150-word template, a copy lacks ~25 of the template's 146
//!   shingles, two copies share ~96-121 of them, mostly below the 117 that 0.8 needs: most
//!   copies are kept, prefix filtering prunes none of them (their short prefixes are ~5
//!   template shingles every copy holds), and each copy is verified against every kept copy,
//!   ~8M verifications for 4,000 copies at 40k. Those pairs are real candidates, so the cost
//!   went into the verification. CPU time of the visit, 40k, 10 % copies with 5 words changed
//!   (benches/native/dedupe_phases.rs, same decisions): counting the whole overlap through a
//!   per-group stamp array, 1048 ms; stopping once the threshold is out of reach, 390 ms;
//!   and a 64-bit word of groups at a time (`dedupe_blocks.rs`), 170-183 ms, against 67-73 ms
//!   for the same candidates without the template. 4 to 6 words: 617 -> 117 ms; 6: 861 -> 129.
//! * Hashing ids with xxh3 instead of SipHash in `by_id`: no measurable change (plain 40k
//!   visit 67.4 ms against 67.0), so not kept.
//! * Not built, by reasoning: pruning copies through a pivot (a kept copy) and the triangle
//!   inequality of the set difference: copies with random changes are all about equally far
//!   from any pivot, so the bound prunes nothing. Joining on the shingles a copy lacks instead
//!   of those it holds (the frequent ones turn rare): a match still needs ~21 of ~50 shared,
//!   a prefix of ~30 tokens each held by ~700 copies, as much walking as now. Pigeonhole
//!   partitions (PartEnum): the set difference allowed at 0.8 is ~58 shingles, so two copies
//!   agree on nearly every partition and every pair is a candidate anyway.
//! * Not built, by reasoning: walking each group's static member list (all items, kept or not)
//!   instead of the kept-only `held`: the dropped copies of a template sit between the kept
//!   ones, so each copy would walk past the earlier ones (quadratic in copies of a template).
//!   (With kept-only lists, an item a walk skips for its size costs one entry.)

use crate::dedupe_blocks::{Blocks, Marks};
use crate::dedupe_index::{need, prepare, Lists, Prepared, MIN_SPLIT};
pub use crate::dedupe_order::visit_order;
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Shingle hashes are already uniform 64-bit values, so one multiply is enough mixing. Not the
/// identity: hashbrown tags slots with the top 7 bits, and within one partition of
/// `shared_shingles` every key has the same top bits (the identity made every probe a false
/// match and that phase 3x slower).
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        (self.0 ^ (self.0 >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type MixMap<V> = HashMap<u64, V, BuildHasherDefault<MixHasher>>;

pub struct Item<'a> {
    pub text: &'a str,
    /// Id bytes (UTF-8, or Python's surrogatepass form); compared bytewise = by code point.
    pub id: &'a [u8],
    pub score: f64,
    pub pinned: bool,
    pub history: bool,
}

pub struct Outcome {
    /// For each item, the index of the kept item it duplicates, or -1.
    pub duplicate_of: Vec<i64>,
    pub visit_order: Vec<usize>,
}

pub fn dedupe(items: &[Item], threshold: f64) -> Outcome {
    // The call's parallel steps (a dozen) run from inside the pool: called from a thread
    // outside it (Python's), each would be sent to the pool and waited for on its own, a
    // wake-up of a worker and of the caller every time. `scope` enters the pool once (inline
    // when the caller is already a worker, as inside `py_budget::within`'s pool).
    rayon::scope(|_| dedupe_in_pool(items, threshold))
}

fn dedupe_in_pool(items: &[Item], threshold: f64) -> Outcome {
    let n = items.len();
    let order = visit_order(items);
    let Prepared {
        groups,
        sizes,
        short,
        hashes,
        id_shared,
    } = prepare(items, &order, threshold);

    // Only these items can match or be matched. One that holds no shared shingle, has an id no
    // other item has, and has words (so no content hash to compare) is kept whatever was kept
    // before it, and nothing it leaves in the indexes can match a later item: at 100k
    // candidates of bench_engine's corpus that is 3 items in 4, which cost 80 ms of a 117 ms
    // visit (an id map with SipHash, a miss on every item) and now cost nothing.
    let visited: Vec<usize> = (0..n)
        .filter(|&r| !groups.of(r).is_empty() || id_shared[r] || hashes[r].is_some())
        .collect();

    // `held[g]`: the kept items holding g; `prefixed[g]`: the kept items with g in their short
    // prefix. Both in visit order (items are kept in that order).
    let mut held = Lists::with_capacity((0..groups.count() as u32).map(|g| groups.frequency(g)));
    let mut prefix_room = vec![0u32; groups.count()];
    for &r in &visited {
        for &g in &groups.of(r)[..short[r] as usize] {
            prefix_room[g as usize] += 1;
        }
    }
    let mut prefixed = Lists::with_capacity(prefix_room.into_iter());

    // 0 for an item without shingles, which never reaches the verification
    let needs: Vec<usize> = sizes
        .par_iter()
        .with_min_len(MIN_SPLIT)
        .map(|&a| {
            if a == 0 {
                0
            } else {
                need(a as usize, threshold)
            }
        })
        .collect();
    let mut duplicate_of = vec![-1i64; n];
    let mut by_id: HashMap<&[u8], usize> = HashMap::new();
    let mut by_hash: MixMap<usize> = MixMap::default();
    // the groups of the item being visited, cleared after its visit, and the candidates
    // already verified (stamped r + 1 in visit r, so never cleared)
    let blocks = Blocks::build(&groups, n);
    let mut marks = Marks::new(groups.count());
    let mut verified = vec![0u32; n];

    for &r in &visited {
        let i = order[r];
        let it = &items[i];
        let mine = groups.of(r);
        let short_r = short[r] as usize;
        if !it.pinned {
            let mut best = usize::MAX; // a rank: the earliest kept match so far
            if id_shared[r] {
                if let Some(&k) = by_id.get(it.id) {
                    best = best.min(k);
                }
            }
            if let Some(k) = hashes[r].and_then(|h| by_hash.get(&h)) {
                best = best.min(*k);
            }
            if !mine.is_empty() {
                let stamp = r as u32 + 1;
                let a_i = sizes[r];
                let need_i = needs[r];
                let mut marked = false;
                let mut matches = |k: usize| -> bool {
                    if verified[k] == stamp {
                        return false;
                    }
                    verified[k] = stamp;
                    let theirs = groups.of(k);
                    let o = if a_i <= sizes[k] { need_i } else { needs[k] };
                    if mine.len().min(theirs.len()) < o {
                        return false; // not enough shared shingles to reach the threshold
                    }
                    if !marked {
                        marks.set(mine);
                        marked = true;
                    }
                    // overlap >= o exactly when the float test passes (see `need`)
                    marks.holds_at_least(&blocks, k, theirs, o)
                };
                let mut bound = best.min(r);
                // kept items larger than i: they hold a shingle of i's short prefix
                for &g in &mine[..short_r] {
                    for &k in held.get(g) {
                        let k = k as usize;
                        if k >= bound {
                            break;
                        }
                        if sizes[k] > a_i && matches(k) {
                            bound = k;
                            break;
                        }
                    }
                }
                // kept items no larger than i: their short prefix holds a shingle of i, at a
                // position of i that their size allows
                for (j, &g) in mine.iter().enumerate() {
                    let room = mine.len() - j;
                    for &k in prefixed.get(g) {
                        let k = k as usize;
                        if k >= bound {
                            break;
                        }
                        if sizes[k] <= a_i && needs[k] <= room && matches(k) {
                            bound = k;
                            break;
                        }
                    }
                }
                if marked {
                    marks.clear(mine);
                }
                if bound < r {
                    best = bound;
                }
            }
            if best != usize::MAX {
                duplicate_of[i] = order[best] as i64;
                continue;
            }
        }
        for &g in mine {
            held.push(g, r as u32);
        }
        for &g in &mine[..short_r] {
            prefixed.push(g, r as u32);
        }
        if id_shared[r] {
            by_id.entry(it.id).or_insert(r);
        }
        if let Some(h) = hashes[r] {
            by_hash.entry(h).or_insert(r);
        }
    }
    Outcome {
        duplicate_of,
        visit_order: order,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<'a>(text: &'a str, id: &'a str, score: f64) -> Item<'a> {
        Item {
            text,
            id: id.as_bytes(),
            score,
            pinned: false,
            history: false,
        }
    }

    #[test]
    fn best_copy_survives() {
        let long = "the refund window for the team plan is thirty days from purchase";
        let items = [
            item(long, "a", 0.2),
            item(long, "b", 0.9),
            item("shipping is free over fifty dollars", "c", 0.5),
        ];
        let out = dedupe(&items, 0.8);
        assert_eq!(out.duplicate_of, vec![1, -1, -1]);
        assert_eq!(out.visit_order, vec![1, 2, 0]);
    }

    #[test]
    fn containment_uses_the_smaller_set() {
        let big = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
        let part = "alpha beta gamma delta epsilon zeta eta";
        let items = [item(big, "big", 0.9), item(part, "part", 0.5)];
        assert_eq!(dedupe(&items, 0.8).duplicate_of, vec![-1, 0]);
    }

    #[test]
    fn history_is_exempt_and_never_kept() {
        let t = "one two three four five six seven";
        let mut h = item(t, "h", 1.0);
        h.history = true;
        let items = [h, item(t, "x", 0.5), item(t, "y", 0.4)];
        assert_eq!(dedupe(&items, 0.8).duplicate_of, vec![-1, -1, 1]);
    }

    #[test]
    fn need_is_the_least_passing_overlap() {
        assert_eq!(need(5, 0.8), 4);
        assert_eq!(need(1, 0.8), 1);
        assert_eq!(need(10, 1.0), 10);
        assert_eq!(need(3, 2.0 / 3.0), 2); // 2/3 >= 2/3 in floats too
        assert_eq!(need(7, 0.01), 1);
    }

    #[test]
    fn a_shared_footer_matches_only_through_the_bodies() {
        let footer = "see the terms of use and the privacy notice for this page";
        let a = format!("alpha beta gamma delta epsilon zeta {footer}");
        let b = format!("one two three four five six seven {footer}");
        let copy = format!("alpha beta gamma delta epsilon zeta {footer}!");
        let only = footer.to_string(); // contained in every text: a duplicate of the first kept
        let items = [
            item(&a, "a", 0.9),
            item(&b, "b", 0.8),
            item(&copy, "c", 0.7),
            item(&only, "d", 0.6),
        ];
        assert_eq!(dedupe(&items, 0.8).duplicate_of, vec![-1, -1, 0, 0]);
    }

    #[test]
    fn same_id_is_a_duplicate_and_blank_text_is_not() {
        let items = [
            item("", "a", 0.5),
            item("", "b", 0.4),
            item("something else", "a", 0.1),
        ];
        assert_eq!(dedupe(&items, 0.8).duplicate_of, vec![-1, -1, 0]);
    }
}
