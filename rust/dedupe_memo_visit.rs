//! The dedupe memo's visit (`dedupe_memo.rs`): `dedupe::dedupe`'s greedy pass replayed over
//! the memo's neighbour lists, in O(items + edges); and the pairs of word-less texts that match
//! by content hash.
//!
//! An item's match among the kept items is the earliest kept one with its id, its own text
//! (when that text matches itself: it has shingles or a content hash), or a text it matches;
//! `first_kept[t]` is the visit rank of the first kept item with text `t`, so the earliest
//! kept match is a minimum over the item's neighbour list.

use crate::dedupe::{visit_order, Item, Outcome};
use crate::dedupe_memo_index::{Mix, MixMap};
use crate::dedupe_memo_slots::Slots;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use xxhash_rust::xxh3::xxh3_64;

/// An id with its key, hashed by the key alone and compared in full.
#[derive(PartialEq, Eq)]
struct IdKeyed<'a>(u64, &'a [u8]);

impl std::hash::Hash for IdKeyed<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0);
    }
}

/// The greedy visit of `dedupe::dedupe` over the neighbour lists. `id_keys[i]`: a hash of
/// `items[i].id` that equal ids share (the binding passes Python's str hash, which each str
/// caches), else xxh3 of each id here.
///
/// What the given keys replaced: xxh3 of each id twice (the lookup, then the insert) inside the
/// visit, reading every id's bytes again out of cache: ~1.3 ms of a warm-95 % 10k build's
/// memo call (perf of `stages.py --warm`'s builds, `Hash for &[u8]` with TextHasher).
pub fn visit(slots: &Slots, items: &[Item], which: &[u32], id_keys: Option<&[u64]>) -> Outcome {
    let order = visit_order(items);
    let mut first_kept = vec![usize::MAX; slots.all.len()];
    let own: Vec<u64>;
    let id_keys = match id_keys {
        Some(k) if k.len() == items.len() => k,
        _ => {
            own = items.iter().map(|it| xxh3_64(it.id)).collect();
            &own
        }
    };
    // sized for every item: growing it rehashed ~4 % of an all-known 10k call's time
    let mut by_id: HashMap<IdKeyed, usize, BuildHasherDefault<Mix>> =
        HashMap::with_capacity_and_hasher(items.len(), BuildHasherDefault::default());
    let mut duplicate_of = vec![-1i64; items.len()];
    for (r, &i) in order.iter().enumerate() {
        let it = &items[i];
        if it.history {
            continue;
        }
        let k = which[i] as usize;
        let slot = &slots.all[k];
        if !it.pinned {
            let mut best = by_id
                .get(&IdKeyed(id_keys[i], it.id))
                .copied()
                .unwrap_or(usize::MAX);
            if slot.matches_itself() {
                best = best.min(first_kept[k]);
            }
            for &u in &slot.nbrs {
                best = best.min(first_kept[u as usize]);
            }
            if best != usize::MAX {
                duplicate_of[i] = order[best] as i64;
                continue;
            }
        }
        if first_kept[k] == usize::MAX {
            first_kept[k] = r;
        }
        by_id.entry(IdKeyed(id_keys[i], it.id)).or_insert(r);
    }
    Outcome {
        duplicate_of,
        visit_order: order,
    }
}

/// Every pair of texts without words with one content hash; `None` past `max` pairs.
pub fn same_hash_pairs(chashes: &[Option<u64>], max: usize) -> Option<Vec<(u32, u32)>> {
    let mut by: MixMap<Vec<u32>> = MixMap::default();
    for (k, h) in chashes.iter().enumerate() {
        if let Some(h) = h {
            by.entry(*h).or_default().push(k as u32);
        }
    }
    let pairs: usize = by.values().map(|ks| ks.len() * (ks.len() - 1) / 2).sum();
    if pairs > max {
        return None;
    }
    let mut out = Vec::with_capacity(pairs);
    for ks in by.values() {
        for (j, &a) in ks.iter().enumerate() {
            out.extend(ks[j + 1..].iter().map(|&b| (a, b)));
        }
    }
    Some(out)
}
