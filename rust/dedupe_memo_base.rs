//! The part of the dedupe memo's index built in bulk (`dedupe_memo_index.rs`): for the texts a
//! fill or a rebuild joins, every shingle with the slots holding it, as sorted arrays rather
//! than hash maps, and for each slot the last shingle of its short prefix in the order.
//!
//! The order is the index's (`(freq0, hash)`, `freq0` = how many texts of the build hold the
//! shingle). A shingle `s` is in slot `k`'s short prefix exactly when `(freq0(s), s) <=
//! bound[k]`, so no per-holder flag is kept; the holders of a shared shingle are sorted by
//! bound, largest first, so a walk of the slots with `s` in their prefix stops at the first
//! that has not (a footer's thousands of holders are one comparison, not a walk).
//!
//! Built without a hash table: (hash, slot) pairs scattered into partitions by the top bits,
//! each partition sorted in cache (a counting pass on the next bits, then tiny sorts), with a
//! directory on the next bits that finds a key in one or two cache lines. What it replaced
//! (10k texts of bench_engine's corpus, `memo_phases` with MEMO_FILL_PHASES=1, one thread,
//! quiet machine, CPU): one hash map entry per shingle in 256 shard maps with linked holder and
//! prefix lists, 39-41 ms, against 23-27 ms now and 23-25 ms for the whole cold kernel.
//! Lost on the way: the partitions copied end to end into one sorted array with one directory
//! (12 MB more copying, ~4 ms), a vector of shared shingles per slot (10k small vectors) and a
//! copy of each set to select its prefix from (the prefix pass 14-32 ms at load 8, one thread).

use crate::dedupe_memo_index::prefix_len;
use rayon::prelude::*;

const PARTITION_BITS: u32 = 8;
const PARTITIONS: usize = 1 << PARTITION_BITS;

/// `(freq0, hash)`: a shingle's place in the order.
pub type Key = (u32, u64);

/// `(slot, freq, hash)`: a shingle another text holds too, as a partition notes it.
type Shared = (u32, u32, u64);

#[derive(Default)]
pub struct Base {
    /// By the top bits of the shingle hash (empty when nothing was built).
    parts: Vec<Part>,
    /// Per slot of the build, the last shingle of its short prefix; `(0, 0)` for none.
    bound: Vec<Key>,
    pairs: usize,
}

/// What a bulk build gives besides the base: per slot, its shared shingles (held by another
/// text of the build) within its short prefix, in the order (what the self-join walks).
pub struct Prefixes {
    pub shared_prefix: Vec<Vec<u64>>,
}

fn partition_of(h: u64) -> usize {
    (h >> (64 - PARTITION_BITS)) as usize
}

/// One partition's shingles: sorted keys, where each one's holders start, the holders, and
/// a directory on the bits below the partition's (`dir[b]..dir[b + 1]`: the keys whose next
/// `bits` bits are `b`, about four: one cache line after the directory's).
#[derive(Default)]
struct Part {
    keys: Vec<u64>,
    starts: Vec<u32>,
    holders: Vec<u32>,
    dir: Vec<u32>,
    bits: u32,
}

impl Part {
    fn bucket(&self, s: u64) -> usize {
        ((s << PARTITION_BITS) >> (64 - self.bits)) as usize
    }

    fn index(&mut self) {
        self.starts.push(self.holders.len() as u32);
        self.bits = (usize::BITS - self.keys.len().leading_zeros())
            .saturating_sub(2)
            .clamp(1, 24);
        let buckets = 1usize << self.bits;
        self.dir = Vec::with_capacity(buckets + 1);
        let mut j = 0usize;
        for b in 0..buckets {
            while j < self.keys.len() && self.bucket(self.keys[j]) < b {
                j += 1;
            }
            self.dir.push(j as u32);
        }
        self.dir.push(self.keys.len() as u32);
    }
}

/// `pairs` sorted by hash: a counting pass on the bits below the partition's, then each bucket
/// (a handful of pairs) sorted on its own.
fn sort_partition(pairs: &mut Vec<(u64, u32)>, scratch: &mut Vec<(u64, u32)>) {
    let len = pairs.len();
    if len < 64 {
        pairs.sort_unstable();
        return;
    }
    let bits = (usize::BITS - len.leading_zeros()).min(16);
    let shift = 64 - PARTITION_BITS - bits;
    let mask = (1usize << bits) - 1;
    let bucket = |h: u64| (h >> shift) as usize & mask;
    let mut at = vec![0u32; mask + 2];
    for &(h, _) in pairs.iter() {
        at[bucket(h) + 1] += 1;
    }
    for b in 0..=mask {
        at[b + 1] += at[b];
    }
    let ends: Vec<u32> = at[1..].to_vec();
    scratch.clear();
    scratch.resize(len, (0, 0));
    for &p in pairs.iter() {
        let to = &mut at[bucket(p.0)];
        scratch[*to as usize] = p;
        *to += 1;
    }
    let mut begin = 0usize;
    for &end in &ends {
        let end = end as usize;
        if end - begin > 1 {
            scratch[begin..end].sort_unstable();
        }
        begin = end;
    }
    std::mem::swap(pairs, scratch);
}

impl Base {
    /// The base over `sets` (slot `k` holds `sets[k]`; an empty set for a free slot).
    pub fn build(sets: &[&[u64]], threshold: f64) -> (Base, Prefixes) {
        // (hash, slot) pairs by partition, per chunk of slots, then each partition gathered
        let chunk = sets
            .len()
            .div_ceil(rayon::current_num_threads() * 4)
            .max(256);
        let scattered: Vec<Vec<Vec<(u64, u32)>>> = sets
            .par_chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                let total: usize = part.iter().map(|s| s.len()).sum();
                let mut out: Vec<Vec<(u64, u32)>> = (0..PARTITIONS)
                    .map(|_| Vec::with_capacity(total / PARTITIONS * 5 / 4 + 4))
                    .collect();
                for (j, set) in part.iter().enumerate() {
                    let k = (c * chunk + j) as u32;
                    for &h in set.iter() {
                        out[partition_of(h)].push((h, k));
                    }
                }
                out
            })
            .collect();
        // each partition sorted; the shared shingles' (slot, freq, hash) noted
        let parts: Vec<(Part, Vec<Shared>)> = (0..PARTITIONS)
            .into_par_iter()
            .map_init(Vec::new, |scratch, p| {
                let mut pairs: Vec<(u64, u32)> =
                    Vec::with_capacity(scattered.iter().map(|c| c[p].len()).sum());
                for c in &scattered {
                    pairs.extend_from_slice(&c[p]);
                }
                sort_partition(&mut pairs, scratch);
                let mut part = Part {
                    keys: Vec::with_capacity(pairs.len()),
                    starts: Vec::with_capacity(pairs.len() + 1),
                    holders: Vec::with_capacity(pairs.len()),
                    ..Part::default()
                };
                let mut shared = Vec::new();
                for run in pairs.chunk_by(|x, y| x.0 == y.0) {
                    part.starts.push(part.holders.len() as u32);
                    part.keys.push(run[0].0);
                    part.holders.extend(run.iter().map(|&(_, k)| k));
                    if run.len() > 1 {
                        shared.extend(run.iter().map(|&(h, k)| (k, run.len() as u32, h)));
                    }
                }
                (part, shared)
            })
            .collect();
        drop(scattered);
        // each slot's shared shingles (a counting sort by slot: no vector per slot)
        let mut at = vec![0u32; sets.len() + 1];
        for (_, shared) in &parts {
            for &(k, _, _) in shared {
                at[k as usize + 1] += 1;
            }
        }
        for k in 0..sets.len() {
            at[k + 1] += at[k];
        }
        let mut by_slot: Vec<Key> = vec![(0, 0); at[sets.len()] as usize];
        let mut fill = at[..sets.len()].to_vec();
        for (_, shared) in &parts {
            for &(k, f, h) in shared {
                by_slot[fill[k as usize] as usize] = (f, h);
                fill[k as usize] += 1;
            }
        }
        drop(fill);
        let mut slices: Vec<&mut [Key]> = Vec::with_capacity(sets.len());
        let mut rest: &mut [Key] = &mut by_slot;
        for k in 0..sets.len() {
            let (mine, tail) = rest.split_at_mut((at[k + 1] - at[k]) as usize);
            slices.push(mine);
            rest = tail;
        }
        let (bound, shared_prefix): (Vec<Key>, Vec<Vec<u64>>) = slices
            .into_par_iter()
            .enumerate()
            .map_init(Vec::new, |scratch, (k, shared)| {
                slot_prefix(sets[k], shared, threshold, scratch)
            })
            .unzip();
        // the holders of each shared shingle by bound, largest first
        let mut parts: Vec<Part> = parts.into_iter().map(|(part, _)| part).collect();
        parts.par_iter_mut().for_each(|part| {
            part.index();
            for j in 0..part.keys.len() {
                let run = &mut part.holders[part.starts[j] as usize..part.starts[j + 1] as usize];
                if run.len() > 1 {
                    run.sort_unstable_by(|a, b| bound[*b as usize].cmp(&bound[*a as usize]));
                }
            }
        });
        let pairs = parts.iter().map(|p| p.holders.len()).sum();
        (
            Base {
                parts,
                bound,
                pairs,
            },
            Prefixes { shared_prefix },
        )
    }

    /// Shingle `s`'s index among its partition's keys, if the build held it.
    #[inline]
    pub fn find(&self, s: u64) -> Option<u32> {
        let part = self.parts.get(partition_of(s))?;
        let b = part.bucket(s);
        let (from, to) = (part.dir[b] as usize, part.dir[b + 1] as usize);
        part.keys[from..to]
            .iter()
            .position(|&k| k == s)
            .map(|at| (from + at) as u32)
    }

    /// How many texts of the build held `s` (found at `j`): its `freq0`.
    pub fn freq(&self, s: u64, j: u32) -> u32 {
        let part = &self.parts[partition_of(s)];
        part.starts[j as usize + 1] - part.starts[j as usize]
    }

    /// The slots of the build holding `s` (found at `j`), those with it in their short prefix
    /// first.
    pub fn holders(&self, s: u64, j: u32) -> &[u32] {
        let part = &self.parts[partition_of(s)];
        &part.holders[part.starts[j as usize] as usize..part.starts[j as usize + 1] as usize]
    }

    /// Whether `key` (a shingle held by slot `k` in the build) is in `k`'s short prefix.
    pub fn in_prefix(&self, k: u32, key: Key) -> bool {
        key <= self.bound[k as usize]
    }

    /// Every shingle of the build, once each.
    pub fn keys(&self) -> impl Iterator<Item = &u64> + '_ {
        self.parts.iter().flat_map(|p| p.keys.iter())
    }

    pub fn key_count(&self) -> usize {
        self.parts.iter().map(|p| p.keys.len()).sum()
    }

    pub fn pairs(&self) -> usize {
        self.pairs
    }
}

/// A slot's bound (the last shingle of its short prefix) and its shared shingles within that
/// prefix; `shared`: its shared shingles as `(freq, hash)`, in any order. A shingle held by no
/// other text has freq 1, so the slot's unique shingles come first in the order.
fn slot_prefix(
    set: &[u64],
    shared: &mut [Key],
    threshold: f64,
    scratch: &mut Vec<u64>,
) -> (Key, Vec<u64>) {
    let p = prefix_len(set.len(), threshold);
    if p == 0 {
        return ((0, 0), Vec::new());
    }
    let unique = set.len() - shared.len();
    if p <= unique {
        scratch.clear();
        if shared.is_empty() {
            scratch.extend_from_slice(set);
        } else {
            shared.sort_unstable_by_key(|&(_, h)| h);
            scratch.extend(
                set.iter()
                    .copied()
                    .filter(|&h| shared.binary_search_by_key(&h, |&(_, x)| x).is_err()),
            );
        }
        let (_, nth, _) = scratch.select_nth_unstable(p - 1);
        return ((1, *nth), Vec::new());
    }
    shared.sort_unstable();
    let take = p - unique;
    (
        shared[take - 1],
        shared[..take].iter().map(|&(_, h)| h).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holders_bounds_and_prefixes_are_the_order_s() {
        // sets sharing shingles in runs (some hashes 0 and u64::MAX), an empty set
        let mut sets: Vec<Vec<u64>> = Vec::new();
        for k in 0..300u64 {
            let n = (k * 7 % 23) as usize;
            let mut set: Vec<u64> = (0..n as u64)
                .map(|j| ((k / 3 + j) % 97).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect();
            set.sort_unstable();
            set.dedup();
            if k % 50 == 0 {
                set.push(u64::MAX - k);
            }
            sets.push(set);
        }
        let refs: Vec<&[u64]> = sets.iter().map(Vec::as_slice).collect();
        for threshold in [0.5, 0.8, 1.0] {
            let (base, prefixes) = Base::build(&refs, threshold);
            let freq = |h: u64| sets.iter().filter(|s| s.contains(&h)).count() as u32;
            for (k, set) in sets.iter().enumerate() {
                let mut keyed: Vec<Key> = set.iter().map(|&h| (freq(h), h)).collect();
                keyed.sort_unstable();
                let p = prefix_len(set.len(), threshold);
                let shared: Vec<u64> = keyed[..p].iter().filter(|x| x.0 > 1).map(|x| x.1).collect();
                assert_eq!(prefixes.shared_prefix[k], shared, "slot {k}");
                for (at, &(f, h)) in keyed.iter().enumerate() {
                    let j = base.find(h).expect("every shingle is a key");
                    assert_eq!(base.freq(h, j), f);
                    let holders = base.holders(h, j);
                    assert!(holders.contains(&(k as u32)));
                    assert_eq!(base.in_prefix(k as u32, (f, h)), at < p, "slot {k}");
                    // those with it in their prefix first
                    let flags: Vec<bool> =
                        holders.iter().map(|&x| base.in_prefix(x, (f, h))).collect();
                    assert!(flags.windows(2).all(|w| w[0] >= w[1]));
                }
            }
            assert_eq!(base.find(12345), None);
        }
    }
}
