//! The texts of the dedupe memo (`dedupe_memo.rs`): one slot per distinct text, keyed by the
//! exact text, with its shingle set, its content hash when it has no words, and the slots of
//! the texts it matches (both ways: an edge is in both lists).
//!
//! A text is found by a hash the caller gives with it (the binding passes Python's own str
//! hash, which a str caches: hashing the 3 MB of a 10k build's texts with xxh3 each build was
//! ~18 % of a warm dedupe), then compared in full, so equal hashes never stand in for equal
//! texts. Two slots may hold one text under two hashes (a str with lone surrogates and one with
//! U+FFFD in their place convert to one Rust string); they are then two texts that match each
//! other like any identical pair, so the decisions do not change.
//!
//! A removed slot keeps its number (the index still links it, and walks skip it) until
//! `compact` renumbers the live ones, which only an index build follows.

use crate::dedupe_memo_index::{MixMap, NONE};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Hashes text and id keys with one xxh3 call per write (the default SipHash took ~3 ms for
/// the 3 MB of text of a 10k build).
#[derive(Default)]
pub struct TextHasher(u64);

impl Hasher for TextHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxh3_64_with_seed(bytes, self.0);
    }
    /// A slice's length prefix (`Hash for [u8]` writes it before the bytes) goes into the seed
    /// of the xxh3 call that follows rather than through one of its own: half the calls for
    /// the ids of a visit (~4 % of an all-known 10k memo call).
    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub type TextHash = BuildHasherDefault<TextHasher>;

pub struct Slot {
    pub text: Arc<str>,
    pub key: u64,
    /// The next slot whose key is `key`, or NONE.
    next: u32,
    pub set: Vec<u64>,
    pub chash: Option<u64>,
    pub nbrs: Vec<u32>,
    pub last_seen: u64,
    pub live: bool,
}

impl Slot {
    pub fn new(text: &str, key: u64, set: Vec<u64>, chash: Option<u64>, gen: u64) -> Slot {
        Slot {
            text: Arc::from(text),
            key,
            next: NONE,
            set,
            chash,
            nbrs: Vec::new(),
            last_seen: gen,
            live: true,
        }
    }

    /// Two items with this text match each other: it has shingles (containment 1) or, without
    /// words, a content hash. A blank text matches nothing.
    pub fn matches_itself(&self) -> bool {
        !self.set.is_empty() || self.chash.is_some()
    }
}

#[derive(Default)]
pub struct Slots {
    pub all: Vec<Slot>,
    /// The first slot of each key (the rest follow `Slot::next`).
    by_key: MixMap<u32>,
    by_hash: MixMap<Vec<u32>>,
    pub live: usize,
    pub edges: usize,
    /// Index links (about one a shingle) of removed slots since the last compaction.
    pub dead_links: usize,
}

impl Slots {
    pub fn find(&self, text: &str, key: u64) -> Option<u32> {
        let mut at = self.by_key.get(&key).copied().unwrap_or(NONE);
        while at != NONE {
            let s = &self.all[at as usize];
            if &*s.text == text {
                return Some(at);
            }
            at = s.next;
        }
        None
    }

    pub fn add(&mut self, mut slot: Slot) -> u32 {
        let k = self.all.len() as u32;
        slot.next = self.by_key.insert(slot.key, k).unwrap_or(NONE);
        if let Some(h) = slot.chash {
            self.by_hash.entry(h).or_default().push(k);
        }
        self.all.push(slot);
        self.live += 1;
        k
    }

    pub fn live_set(&self, k: u32) -> Option<&[u64]> {
        let s = &self.all[k as usize];
        s.live.then_some(s.set.as_slice())
    }

    /// The live slots without words whose content hash is `h`.
    pub fn with_hash(&self, h: u64) -> impl Iterator<Item = u32> + '_ {
        self.by_hash.get(&h).into_iter().flatten().copied()
    }

    pub fn link(&mut self, a: u32, b: u32) {
        self.all[a as usize].nbrs.push(b);
        self.all[b as usize].nbrs.push(a);
        self.edges += 1;
    }

    pub fn clear_edges(&mut self) {
        for s in self.all.iter_mut() {
            s.nbrs = Vec::new();
        }
        self.edges = 0;
    }

    /// Forgets the texts no build proposed in the last `keep` builds (the current one is
    /// `gen`), then the least recently proposed until at most `room` are left (never one
    /// this build proposed). Returns how many were forgotten.
    pub fn evict(&mut self, gen: u64, keep: u64, room: usize) -> usize {
        let mut stale: Vec<(u64, u32)> = Vec::new();
        let mut gone = 0;
        for k in 0..self.all.len() {
            let s = &self.all[k];
            if !s.live || s.last_seen == gen {
                continue;
            }
            if s.last_seen + keep <= gen {
                self.remove(k as u32);
                gone += 1;
            } else {
                stale.push((s.last_seen, k as u32));
            }
        }
        if self.live > room {
            stale.sort_unstable();
            for &(_, k) in stale.iter().take(self.live - room) {
                self.remove(k);
                gone += 1;
            }
        }
        gone
    }

    pub fn remove(&mut self, k: u32) {
        let s = &mut self.all[k as usize];
        s.live = false;
        let nbrs = std::mem::take(&mut s.nbrs);
        self.dead_links += s.set.len();
        s.set = Vec::new();
        s.text = Arc::from("");
        let (key, next, chash) = (s.key, s.next, s.chash);
        self.unlink(key, k, next);
        if let Some(h) = chash {
            if let Some(list) = self.by_hash.get_mut(&h) {
                list.retain(|&x| x != k);
                if list.is_empty() {
                    self.by_hash.remove(&h);
                }
            }
        }
        self.edges -= nbrs.len();
        for u in nbrs {
            let theirs = &mut self.all[u as usize].nbrs;
            if let Some(at) = theirs.iter().position(|&x| x == k) {
                theirs.swap_remove(at);
            }
        }
        self.live -= 1;
    }

    fn unlink(&mut self, key: u64, k: u32, next: u32) {
        let head = self.by_key.get(&key).copied().unwrap_or(NONE);
        if head == k {
            if next == NONE {
                self.by_key.remove(&key);
            } else {
                self.by_key.insert(key, next);
            }
            return;
        }
        let mut at = head;
        while at != NONE {
            let s = &mut self.all[at as usize];
            if s.next == k {
                s.next = next;
                return;
            }
            at = s.next;
        }
    }

    /// Renumbers the live slots `0..live` in their order; the index must be built anew after.
    pub fn compact(&mut self) {
        let mut to = vec![u32::MAX; self.all.len()];
        let mut n = 0u32;
        for (k, s) in self.all.iter().enumerate() {
            if s.live {
                to[k] = n;
                n += 1;
            }
        }
        let old = std::mem::take(&mut self.all);
        self.all = old.into_iter().filter(|s| s.live).collect();
        for s in self.all.iter_mut() {
            for u in s.nbrs.iter_mut() {
                *u = to[*u as usize];
            }
        }
        for v in self.by_key.values_mut() {
            *v = to[*v as usize];
        }
        for s in self.all.iter_mut() {
            if s.next != NONE {
                s.next = to[s.next as usize];
            }
        }
        for list in self.by_hash.values_mut() {
            for v in list.iter_mut() {
                *v = to[*v as usize];
            }
        }
        self.dead_links = 0;
    }

    pub fn dead(&self) -> usize {
        self.all.len() - self.live
    }
}
