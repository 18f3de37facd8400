//! Near-duplicate detection over 5-word shingles with an inverted index.
//!
//! Cost is linear in the total number of shingles plus the length of the posting lists walked:
//! each visited item looks up its own shingles among the kept items only, never compares
//! against every kept item. Shingling (the bulk of the work) runs on all cores with rayon; the
//! index pass is sequential because each decision depends on what was kept before it.

use crate::text::{content_hash, shingle_set};
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

/// Visit order: pinned first, then score descending, then id, then position.
pub fn visit_order(items: &[Item]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&items[a], &items[b]);
        y.pinned
            .cmp(&x.pinned)
            .then_with(|| {
                y.score
                    .partial_cmp(&x.score)
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .then_with(|| x.id.cmp(y.id))
            .then_with(|| a.cmp(&b))
    });
    order
}

/// Number of partitions for finding shared shingles; each holds a few thousand pairs at 10k
/// items, small enough to sort in cache.
const PARTITIONS: usize = 1024;

/// The shingles that two or more items share, as groups.
///
/// `members[starts[g]..starts[g + 1]]` are the items holding shared shingle `g`, and
/// `of_item[item_starts[i]..item_starts[i + 1]]` the groups of item `i`. Only shared shingles
/// can add to an overlap and most shingles are unique, so the sequential pass walks a fraction
/// of them, over compact arrays instead of a hash map.
///
/// How it got here (dedupe of 10k items of 150 words, native): one hash map from every shingle
/// to the kept items holding it missed the cache on nearly every access (~170 ms); resolving
/// shared shingles per partition with small hash maps and then a map over the shared ones only
/// (~60 ms at 10k, but 1.1 s of 1.6 s at 100k in those two steps); now pairs are scattered into
/// partitions by the top bits of the hash, each partition is sorted in cache (in parallel), and
/// groups are handed to items with a counting sort, so nothing random touches a large table.
struct SharedGroups {
    starts: Vec<u32>,
    members: Vec<u32>,
    item_starts: Vec<u32>,
    of_item: Vec<u32>,
}

fn shared_groups(shingles: &[Vec<u64>]) -> SharedGroups {
    let bucket = |h: u64| (h >> 54) as usize; // top 10 bits
    let mut part_starts = vec![0usize; PARTITIONS + 1];
    for hs in shingles {
        for &h in hs {
            part_starts[bucket(h) + 1] += 1;
        }
    }
    for p in 0..PARTITIONS {
        part_starts[p + 1] += part_starts[p];
    }
    let mut pairs = vec![(0u64, 0u32); part_starts[PARTITIONS]];
    let mut next = part_starts.clone();
    for (i, hs) in shingles.iter().enumerate() {
        for &h in hs {
            let b = bucket(h);
            pairs[next[b]] = (h, i as u32);
            next[b] += 1;
        }
    }
    let mut parts: Vec<&mut [(u64, u32)]> = Vec::with_capacity(PARTITIONS);
    let mut rest: &mut [(u64, u32)] = &mut pairs;
    for p in 0..PARTITIONS {
        let (head, tail) = rest.split_at_mut(part_starts[p + 1] - part_starts[p]);
        parts.push(head);
        rest = tail;
    }
    // per partition: the member lists of its shared shingles, one after another, and where
    // each group starts within them
    let per_part: Vec<(Vec<u32>, Vec<u32>)> = parts
        .into_par_iter()
        .map(|part| {
            part.sort_unstable_by_key(|&(h, _)| h); // group order within a shingle does not matter
            let (mut members, mut starts) = (Vec::new(), Vec::new());
            let mut k = 0;
            while k < part.len() {
                let mut end = k + 1;
                while end < part.len() && part[end].0 == part[k].0 {
                    end += 1;
                }
                if end - k > 1 {
                    starts.push(members.len() as u32);
                    members.extend(part[k..end].iter().map(|&(_, i)| i));
                }
                k = end;
            }
            (members, starts)
        })
        .collect();
    drop(pairs);

    let mut starts: Vec<u32> = Vec::new();
    let mut members: Vec<u32> = Vec::new();
    for (part_members, part_starts) in per_part {
        let base = members.len() as u32;
        starts.extend(part_starts.iter().map(|&s| base + s));
        members.extend_from_slice(&part_members);
    }
    starts.push(members.len() as u32);

    // counting sort of (item, group) by item
    let n = shingles.len();
    let mut item_starts = vec![0u32; n + 1];
    for &m in &members {
        item_starts[m as usize + 1] += 1;
    }
    for i in 0..n {
        item_starts[i + 1] += item_starts[i];
    }
    let mut cursor = item_starts.clone();
    let mut of_item = vec![0u32; members.len()];
    for g in 0..starts.len() - 1 {
        for &m in &members[starts[g] as usize..starts[g + 1] as usize] {
            of_item[cursor[m as usize] as usize] = g as u32;
            cursor[m as usize] += 1;
        }
    }
    SharedGroups {
        starts,
        members,
        item_starts,
        of_item,
    }
}

pub fn dedupe(items: &[Item], threshold: f64) -> Outcome {
    let n = items.len();
    let order = visit_order(items);
    // Texts with equal content hashes have equal word sequences, hence equal shingle sets and
    // containment 1: for a text with words the hash match is always among its near matches.
    // So the hash is computed only for texts without words, where it is the only way to match
    // (the reference computes it for every text; the result is the same).
    let prepared: Vec<(Vec<u64>, Option<u64>)> = items
        .par_iter()
        .map(|it| {
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
    let (all_shingles, hashes): (Vec<Vec<u64>>, Vec<Option<u64>>) = prepared.into_iter().unzip();
    let groups = shared_groups(&all_shingles);
    drop(all_shingles);

    let mut duplicate_of = vec![-1i64; n];
    let mut visit_rank = vec![usize::MAX; n];
    let mut kept = vec![false; n];
    let mut by_id: HashMap<&[u8], usize> = HashMap::new();
    let mut by_hash: MixMap<usize> = MixMap::default();
    let mut overlap = vec![0u32; n];
    let mut touched: Vec<usize> = Vec::new();

    for (rank, &i) in order.iter().enumerate() {
        let it = &items[i];
        if it.history {
            continue;
        }
        if !it.pinned {
            let mut best: Option<usize> = None;
            let consider = |k: usize, best: &mut Option<usize>| {
                if best.is_none_or(|b| visit_rank[k] < visit_rank[b]) {
                    *best = Some(k);
                }
            };
            if let Some(&k) = by_id.get(it.id) {
                consider(k, &mut best);
            }
            if let Some(h) = &hashes[i] {
                if let Some(&k) = by_hash.get(h) {
                    consider(k, &mut best);
                }
            }
            let mine =
                &groups.of_item[groups.item_starts[i] as usize..groups.item_starts[i + 1] as usize];
            for &g in mine {
                let g = g as usize;
                for &k in &groups.members[groups.starts[g] as usize..groups.starts[g + 1] as usize]
                {
                    let k = k as usize;
                    // only items kept so far count: they were visited earlier
                    if kept[k] {
                        if overlap[k] == 0 {
                            touched.push(k);
                        }
                        overlap[k] += 1;
                    }
                }
            }
            for &k in &touched {
                let smaller = sizes[i].min(sizes[k]);
                if overlap[k] as f64 / smaller as f64 >= threshold {
                    consider(k, &mut best);
                }
                overlap[k] = 0;
            }
            touched.clear();
            if let Some(k) = best {
                duplicate_of[i] = k as i64;
                continue;
            }
        }
        visit_rank[i] = rank;
        kept[i] = true;
        by_id.entry(it.id).or_insert(i);
        if let Some(h) = hashes[i] {
            by_hash.entry(h).or_insert(i);
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
    fn same_id_is_a_duplicate_and_blank_text_is_not() {
        let items = [
            item("", "a", 0.5),
            item("", "b", 0.4),
            item("something else", "a", 0.1),
        ];
        assert_eq!(dedupe(&items, 0.8).duplicate_of, vec![-1, -1, 0]);
    }
}
