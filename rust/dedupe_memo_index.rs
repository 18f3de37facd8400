//! The memo's inverted index over the shingles of its texts (`dedupe_memo.rs`), for joining a
//! new text exactly against every text the memo holds (`dedupe_memo_join.rs`).
//!
//! Two parts: the base (`dedupe_memo_base.rs`), the texts of the last bulk build (a fill or a
//! rebuild) as sorted arrays, each shingle with its holders, and a slot's short prefix told by
//! a bound; and the texts added since, per shingle `held` (the slots holding it) and
//! `prefixed` (those holding it in their short prefix) as linked lists in an arena, in shards
//! by the top bits of the hash. A walk reads the base's holders, then the lists.
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
use crate::dedupe_memo_base::{Base, Key};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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

/// A shingle as the index knows it: its key in the base (`NONE` when the last bulk build did
/// not see it) and `freq0`, and the heads of its lists of slots added since (`NONE`: empty).
#[derive(Clone, Copy)]
pub struct Entry {
    pub freq0: u32,
    base: u32,
    held: u32,
    prefixed: u32,
}

#[derive(Clone, Copy)]
struct Link {
    slot: u32,
    next: u32,
}

/// The shingles of the slots added since the last bulk build (their map entries also carry
/// the base's key, so a shingle is looked up in the base once).
#[derive(Default)]
struct Shard {
    map: MixMap<Entry>,
    links: Vec<Link>,
}

/// The base (`dedupe_memo_base.rs`: the texts of the last bulk build, sorted arrays) and the
/// slots added since (linked lists in sharded maps).
pub struct Index {
    base: Base,
    shards: Vec<Shard>,
    threshold: f64,
    /// The base's (shingle, slot) pairs, and links added since.
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

/// What a bulk build returns besides the index: per slot, its shared shingles (held by another
/// text of the build) within its short prefix, in the order: what the self-join walks.
pub struct Built {
    pub index: Index,
    pub shared_prefix: Vec<Vec<u64>>,
}

impl Index {
    pub fn empty(threshold: f64) -> Index {
        Index {
            base: Base::default(),
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
            threshold,
            built_links: 0,
            inserted_links: 0,
        }
    }

    /// An index over `sets` (slot `k` holds `sets[k]`; an empty set for a free slot), with
    /// `freq0` the build's own counts.
    pub fn build(sets: &[&[u64]], threshold: f64) -> Built {
        let (base, prefixes) = Base::build(sets, threshold);
        let mut index = Index::empty(threshold);
        index.built_links = base.pairs();
        index.base = base;
        Built {
            index,
            shared_prefix: prefixes.shared_prefix,
        }
    }

    pub fn get(&self, s: u64) -> Option<Entry> {
        if let Some(e) = self.shards[shard_of(s)].map.get(&s) {
            return Some(*e);
        }
        let j = self.base.find(s)?;
        Some(Entry {
            freq0: self.base.freq(s, j),
            base: j,
            held: NONE,
            prefixed: NONE,
        })
    }

    /// The slots holding `s` (live or not), in no particular order.
    pub fn held(&self, s: u64, e: Entry) -> Walk<'_> {
        let base = if e.base == NONE {
            &[][..]
        } else {
            self.base.holders(s, e.base)
        };
        Walk {
            base,
            stop: None,
            links: &self.shards[shard_of(s)].links,
            at: e.held,
        }
    }

    /// The slots with `s` in their short prefix (live or not).
    pub fn prefixed(&self, s: u64, e: Entry) -> Walk<'_> {
        let base = if e.base == NONE {
            &[][..]
        } else {
            self.base.holders(s, e.base)
        };
        Walk {
            base,
            stop: Some((&self.base, (e.freq0, s))),
            links: &self.shards[shard_of(s)].links,
            at: e.prefixed,
        }
    }

    /// Links slot `slot` as a holder of each shingle of `set`; returns the set in the order,
    /// each shingle as `(freq0, hash, another slot holds it too)`. One map access a shingle
    /// (and a base lookup the first time the maps see it): what the probe needs is read while
    /// linking.
    pub fn insert_held(&mut self, slot: u32, set: &[u64]) -> Vec<(u32, u64, bool)> {
        let mut keyed = Vec::with_capacity(set.len());
        for &h in set {
            let base = &self.base;
            let shard = &mut self.shards[shard_of(h)];
            let at = shard.links.len() as u32;
            let e = shard.map.entry(h).or_insert_with(|| {
                let j = base.find(h).unwrap_or(NONE);
                Entry {
                    freq0: if j == NONE { 0 } else { base.freq(h, j) },
                    base: j,
                    held: NONE,
                    prefixed: NONE,
                }
            });
            keyed.push((e.freq0, h, e.held != NONE || e.base != NONE));
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
    /// The base's holders first; with `stop`, only while the shingle is in their prefix
    /// (they are sorted by bound, largest first).
    base: &'a [u32],
    stop: Option<(&'a Base, Key)>,
    links: &'a [Link],
    at: u32,
}

impl Iterator for Walk<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if let Some((&k, rest)) = self.base.split_first() {
            match self.stop {
                Some((base, key)) if !base.in_prefix(k, key) => self.base = &[],
                _ => {
                    self.base = rest;
                    return Some(k);
                }
            }
        }
        if self.at == NONE {
            return None;
        }
        let l = self.links[self.at as usize];
        self.at = l.next;
        Some(l.slot)
    }
}
