//! The memo's inverted index over the shingles of its texts (`dedupe_memo.rs`), for joining a
//! new text exactly against every text the memo holds (`dedupe_memo_join.rs`).
//!
//! Per shingle it keeps `held` (every memo text holding it) and `prefixed` (the memo texts
//! holding it in their short prefix), as linked lists in an arena, in shards by the top bits of
//! the hash so that a bulk build runs one small map per shard in cache, on all cores.
//!
//! # The order, fixed for the index's lifetime
//!
//! Prefix filtering is exact for any total order of the shingles that every set in the join is
//! sorted by (`dedupe.rs` carries the proof); the order only sets the cost. Here it is
//! `(freq0, hash)`, where `freq0` is how many texts held the shingle when the index was built
//! (frozen), and 0 for a shingle first seen after that. An entry is never removed before the
//! next build, so a shingle's key never changes and every text's prefix, computed when it was
//! added, stays a prefix in the one order. Rarest first keeps a footer's or template's shingles
//! out of the short prefixes; a shingle that turns common after the build (a new footer) ranks
//! first, which costs walking, never exactness: `dedupe_memo.rs` rebuilds when the texts added
//! since the build, or the removed ones still linked, grow large.
//!
//! Removed texts are not unlinked (a footer's list would be walked for each); walks skip them
//! by the memo's `live` flags, and the next build drops them.

use crate::dedupe_index::need;
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

pub const NONE: u32 = u32::MAX;
const SHARD_BITS: u32 = 8;
const SHARDS: usize = 1 << SHARD_BITS;

/// Shingle hashes are uniform 64-bit values: one multiply mixes enough (not the identity:
/// within a shard every key has the same top bits, which hashbrown uses as slot tags).
#[derive(Default)]
pub struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        (self.0 ^ (self.0 >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub type MixMap<V> = HashMap<u64, V, BuildHasherDefault<Mix>>;

#[derive(Clone, Copy)]
pub struct Entry {
    pub freq0: u32,
    held: u32,
    prefixed: u32,
}

#[derive(Clone, Copy)]
struct Link {
    slot: u32,
    next: u32,
}

#[derive(Default)]
struct Shard {
    map: MixMap<Entry>,
    links: Vec<Link>,
}

pub struct Index {
    shards: Vec<Shard>,
    threshold: f64,
    /// Links made by the build, and by inserts since.
    pub built_links: usize,
    pub inserted_links: usize,
}

fn shard_of(s: u64) -> usize {
    (s >> (64 - SHARD_BITS)) as usize
}

/// The length of a set's short prefix in its own order: `a - need(a) + 1`.
pub fn prefix_len(a: usize, threshold: f64) -> usize {
    if a == 0 {
        0
    } else {
        a - need(a, threshold) + 1
    }
}

/// What a bulk build returns besides the index: per slot, its shared shingles (held by
/// another text of the build) within its short prefix, in the order: what the self-join walks.
pub struct Built {
    pub index: Index,
    pub shared_prefix: Vec<Vec<u64>>,
}

impl Index {
    pub fn empty(threshold: f64) -> Index {
        Index {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
            threshold,
            built_links: 0,
            inserted_links: 0,
        }
    }

    /// An index over `sets` (slot `k` holds `sets[k]`; an empty set for a free slot), with
    /// `freq0` the build's own counts.
    pub fn build(sets: &[&[u64]], threshold: f64) -> Built {
        let mut starts = Vec::with_capacity(sets.len() + 1);
        starts.push(0usize);
        for s in sets {
            starts.push(starts[starts.len() - 1] + s.len());
        }
        let total = starts[sets.len()];
        // (shingle, slot, position in the flat array of all sets), scattered by shard
        let mut part = vec![0usize; SHARDS + 1];
        for s in sets {
            for &h in s.iter() {
                part[shard_of(h) + 1] += 1;
            }
        }
        for p in 0..SHARDS {
            part[p + 1] += part[p];
        }
        let mut fill = part[..SHARDS].to_vec();
        let mut pairs = vec![(0u64, 0u32, 0u32); total];
        for (k, s) in sets.iter().enumerate() {
            for (j, &h) in s.iter().enumerate() {
                let at = &mut fill[shard_of(h)];
                pairs[*at] = (h, k as u32, (starts[k] + j) as u32);
                *at += 1;
            }
        }
        // each shard's pairs sorted by hash (in cache): a run is one shingle and its holders
        let mut pieces: Vec<&mut [(u64, u32, u32)]> = Vec::with_capacity(SHARDS);
        let mut rest: &mut [(u64, u32, u32)] = &mut pairs;
        for p in 0..SHARDS {
            let (piece, tail) = rest.split_at_mut(part[p + 1] - part[p]);
            pieces.push(piece);
            rest = tail;
        }
        let freq: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
        pieces.par_iter_mut().for_each(|piece| {
            piece.sort_unstable_by_key(|p| p.0);
            for run in piece.chunk_by(|x, y| x.0 == y.0) {
                for &(_, _, at) in run {
                    freq[at as usize].store(run.len() as u32, Relaxed);
                }
            }
        });
        // each set's short prefix in the order, and the shared part of it
        let in_prefix: Vec<AtomicBool> = (0..total).map(|_| AtomicBool::new(false)).collect();
        let shared_prefix: Vec<Vec<u64>> = (0..sets.len())
            .into_par_iter()
            .map(|k| {
                let set = sets[k];
                let len = prefix_len(set.len(), threshold);
                if len == 0 {
                    return Vec::new();
                }
                let mut keyed: Vec<(u32, u64, u32)> = (0..set.len())
                    .map(|j| {
                        let at = starts[k] + j;
                        (freq[at].load(Relaxed), set[j], at as u32)
                    })
                    .collect();
                keyed.select_nth_unstable(len - 1);
                keyed.truncate(len);
                keyed.sort_unstable();
                let mut shared = Vec::new();
                for &(f, h, at) in &keyed {
                    in_prefix[at as usize].store(true, Relaxed);
                    if f >= 2 {
                        shared.push(h);
                    }
                }
                shared
            })
            .collect();
        // one map entry per shingle, its holders linked in a row
        let shards: Vec<Shard> = pieces
            .par_iter()
            .map(|piece| {
                let mut shard = Shard {
                    map: MixMap::with_capacity_and_hasher(piece.len(), Default::default()),
                    links: Vec::with_capacity(piece.len() + piece.len() / 4),
                };
                for run in piece.chunk_by(|x, y| x.0 == y.0) {
                    let mut e = Entry {
                        freq0: run.len() as u32,
                        held: NONE,
                        prefixed: NONE,
                    };
                    for &(_, k, at) in run {
                        let next = shard.links.len() as u32;
                        shard.links.push(Link {
                            slot: k,
                            next: e.held,
                        });
                        e.held = next;
                        if in_prefix[at as usize].load(Relaxed) {
                            shard.links.push(Link {
                                slot: k,
                                next: e.prefixed,
                            });
                            e.prefixed = next + 1;
                        }
                    }
                    shard.map.insert(run[0].0, e);
                }
                shard
            })
            .collect();
        let built_links = shards.iter().map(|s| s.links.len()).sum();
        Built {
            index: Index {
                shards,
                threshold,
                built_links,
                inserted_links: 0,
            },
            shared_prefix,
        }
    }

    pub fn get(&self, s: u64) -> Option<Entry> {
        self.shards[shard_of(s)].map.get(&s).copied()
    }

    /// The slots holding `s` (live or not), in no particular order.
    pub fn held(&self, s: u64, e: Entry) -> Walk<'_> {
        Walk {
            links: &self.shards[shard_of(s)].links,
            at: e.held,
        }
    }

    /// The slots with `s` in their short prefix (live or not).
    pub fn prefixed(&self, s: u64, e: Entry) -> Walk<'_> {
        Walk {
            links: &self.shards[shard_of(s)].links,
            at: e.prefixed,
        }
    }

    /// Links slot `slot` as a holder of each shingle of `set`; returns the set in the order,
    /// each shingle as `(freq0, hash, another slot holds it too)`. One map access a shingle:
    /// what the probe needs is read while linking.
    pub fn insert_held(&mut self, slot: u32, set: &[u64]) -> Vec<(u32, u64, bool)> {
        let mut keyed = Vec::with_capacity(set.len());
        for &h in set {
            let shard = &mut self.shards[shard_of(h)];
            let at = shard.links.len() as u32;
            let e = shard.map.entry(h).or_insert(Entry {
                freq0: 0,
                held: NONE,
                prefixed: NONE,
            });
            keyed.push((e.freq0, h, e.held != NONE));
            shard.links.push(Link { slot, next: e.held });
            e.held = at;
        }
        self.inserted_links += set.len();
        keyed.sort_unstable();
        keyed
    }

    /// Links slot `slot` as having the first `prefix` shingles of `ordered` (from
    /// `insert_held`) in its short prefix.
    pub fn insert_prefixed(&mut self, slot: u32, ordered: &[(u32, u64, bool)], prefix: usize) {
        for &(_, h, _) in &ordered[..prefix.min(ordered.len())] {
            let shard = &mut self.shards[shard_of(h)];
            let at = shard.links.len() as u32;
            if let Some(e) = shard.map.get_mut(&h) {
                shard.links.push(Link {
                    slot,
                    next: e.prefixed,
                });
                e.prefixed = at;
            }
        }
        self.inserted_links += prefix.min(ordered.len());
    }

    pub fn threshold(&self) -> f64 {
        self.threshold
    }
}

pub struct Walk<'a> {
    links: &'a [Link],
    at: u32,
}

impl Iterator for Walk<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.at == NONE {
            return None;
        }
        let l = self.links[self.at as usize];
        self.at = l.next;
        Some(l.slot)
    }
}
