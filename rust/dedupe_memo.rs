//! A dedupe whose cost on a warm build grows with what changed, with the decisions of
//! `dedupe::dedupe` on every build (issue 15).
//!
//! Which items match is the definition's (DESIGN.md section 2): same id, or texts that match
//! (same content hash for texts without words, shingle containment `>= threshold`
//! otherwise). Whether two texts match depends on the texts alone, so the memo keeps, per
//! distinct text (keyed by the exact text, no hash stands in for it), its shingle set and the
//! complete list of memo texts it matches. A build looks up each candidate's text, shingles
//! and joins only the texts it has not seen (`dedupe_memo_join.rs`: exact prefix filtering
//! against the memo's index), forgets texts no longer proposed, and replays the greedy visit of
//! `dedupe.rs` over the neighbour lists: visit order `dedupe::visit_order`, an item drops on
//! its earliest kept match (by id, or a kept item whose text is its own or a neighbour),
//! pinned items are kept, history items are neither, all in O(items + edges).
//!
//! Bounds: at most `max_texts` distinct texts and `max_edges` matching pairs. A build that
//! would pass one runs `dedupe::dedupe` instead (the same decisions), leaves the memo as it
//! was, and counts why in `Stats`; after a build over `max_edges` (a template whose copies
//! all match each other) the next builds skip the memo, 1, 2, 4 ... 64 of them, so a workload
//! the memo cannot hold does not pay for the attempt every time.

use crate::dedupe::{dedupe, Item, Outcome};
use crate::dedupe_memo_index::{prefix_len, Index, Mix, MixMap, NONE};
use crate::dedupe_memo_join::{probe, self_join};
use crate::dedupe_memo_slots::{Slot, Slots};
use crate::dedupe_memo_visit::{same_hash_pairs, visit};
use crate::text::{content_hash, shingle_set};
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

pub struct Limits {
    /// A text costs about 4 KB of memo at 40-120 words (40 MiB at 10k texts: its text, its
    /// shingles, index links and map entries), so the default bounds the memo near 80 MiB.
    pub max_texts: usize,
    pub max_edges: usize,
    /// A text not proposed by this many consecutive builds is forgotten.
    pub keep_builds: u64,
    /// Links the index may gain (or hold of removed texts) beyond half its size before it is
    /// built anew; tests set 0 to rebuild often.
    pub rebuild_slack: usize,
    /// A build with more than this share of its distinct texts new is not joined text by
    /// text (see `Memo::dedupe`); tests set 1.0 to join every build that fits.
    pub new_share: f64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_texts: 20_000,
            max_edges: 2_000_000,
            keep_builds: 3,
            rebuild_slack: 4096,
            new_share: 0.25,
        }
    }
}

/// Counters since the memo was made (`clear` keeps them).
#[derive(Clone, Default, Debug, PartialEq)]
pub struct Stats {
    pub builds: u64,
    /// Builds decided by the memo.
    pub warm: u64,
    /// Builds that ran `dedupe::dedupe`: too many distinct texts, too many edges, skipped
    /// after an edge overflow.
    pub cold_texts: u64,
    pub cold_edges: u64,
    pub cold_skipped: u64,
    /// Builds that found most of their texts new and not repeated from the last such build.
    pub cold_new: u64,
    /// Warm builds that joined all texts anew (more than half the memo new), and index builds
    /// without a join (the order gone stale, or removed texts piling up).
    pub full_joins: u64,
    pub rebuilds: u64,
    /// Texts shingled and joined, and texts forgotten.
    pub joined: u64,
    pub evicted: u64,
}

/// Why a build ran `dedupe::dedupe` rather than the memo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Path {
    Warm,
    ColdTexts,
    ColdEdges,
    ColdSkipped,
    ColdNew,
}

pub struct Memo {
    threshold: f64,
    limits: Limits,
    slots: Slots,
    index: Index,
    generation: u64,
    backoff: u32,
    skip: u32,
    pub stats: Stats,
    /// The text keys of the last build that found most of its texts new (see `repeats`).
    recent: Option<MixMap<()>>,
    /// Tests only (`DedupeMemo._panic_next_build_for_tests`): panic halfway through a commit.
    pub panic_in_commit: bool,
}

/// A text with its key, hashed by the key alone (the key is already a hash of the text; hashing
/// the text again cost ~1 ms at 10k, ~10 ms at 100k) and compared in full.
#[derive(PartialEq, Eq)]
struct Keyed<'a>(u64, &'a str);

impl std::hash::Hash for Keyed<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0);
    }
}

/// A new text's shingles (or, without words, its content hash) and its matches.
struct New<'a> {
    text: &'a str,
    key: u64,
    set: Vec<u64>,
    chash: Option<u64>,
}

impl Memo {
    pub fn new(threshold: f64, limits: Limits) -> Memo {
        Memo {
            threshold,
            limits,
            slots: Slots::default(),
            index: Index::empty(threshold),
            generation: 0,
            backoff: 0,
            skip: 0,
            stats: Stats::default(),
            recent: None,
            panic_in_commit: false,
        }
    }

    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Forgets every text (the counters stay).
    pub fn clear(&mut self) {
        self.slots = Slots::default();
        self.index = Index::empty(self.threshold);
        self.backoff = 0;
        self.skip = 0;
        self.recent = None;
    }

    pub fn texts(&self) -> usize {
        self.slots.live
    }

    pub fn edges(&self) -> usize {
        self.slots.edges
    }

    /// `keys[i]`: a hash of `items[i].text` (any hash: a text is compared in full once found,
    /// and equal texts under two keys only cost a slot).
    pub fn dedupe(&mut self, items: &[Item], keys: &[u64]) -> (Outcome, Path) {
        self.stats.builds += 1;
        if self.skip > 0 {
            self.skip -= 1;
            self.stats.cold_skipped += 1;
            return (dedupe(items, self.threshold), Path::ColdSkipped);
        }
        self.generation += 1;
        let gen = self.generation;
        // each item's slot, or NEW | its index among the build's new texts
        const NEW: u32 = 1 << 31;
        let mut which = vec![NONE; items.len()];
        let mut news: Vec<(&str, u64)> = Vec::new();
        let mut new_of: HashMap<Keyed, u32, BuildHasherDefault<Mix>> = HashMap::default();
        let mut seen = 0usize;
        for (i, it) in items.iter().enumerate() {
            if it.history {
                continue;
            }
            which[i] = match self.slots.find(it.text, keys[i]) {
                Some(k) => {
                    let s = &mut self.slots.all[k as usize];
                    if s.last_seen != gen {
                        s.last_seen = gen;
                        seen += 1;
                    }
                    k
                }
                None => {
                    let next = news.len() as u32;
                    let at = *new_of.entry(Keyed(keys[i], it.text)).or_insert(next);
                    if at == next {
                        news.push((it.text, keys[i]));
                        if seen + news.len() > self.limits.max_texts {
                            break; // over the bound already: no need to look up the rest
                        }
                    }
                    NEW | at
                }
            };
        }
        if seen + news.len() > self.limits.max_texts || news.len() >= NEW as usize {
            self.stats.cold_texts += 1;
            return (dedupe(items, self.threshold), Path::ColdTexts);
        }
        let room = self.limits.max_texts - news.len();
        self.stats.evicted += self.slots.evict(gen, self.limits.keep_builds, room) as u64;
        // Joining new texts one by one costs several times what joining a build's texts in bulk
        // costs per text, so a build whose texts are mostly new (more than `new_share` of
        // them) is not joined that way: it runs the cold kernel, or when its texts repeat the
        // last such build's (an agent's second call), joins them all (`join_all`) and the memo
        // keeps this build's texts alone. Lost to it: joining the new texts of any build whose
        // new texts fit the memo (at most as many as it holds): with each query of a
        // build_many its own 10k of 40k candidates, every build joined ~7k texts one by one
        // (~97 ms a build, 1 thread, against 44 ms for the cold build).
        let distinct = seen + news.len();
        let full = news.len() > self.slots.live
            || news.len() as f64 > self.limits.new_share * distinct as f64;
        if full {
            if !self.repeats(items, keys) {
                self.stats.cold_new += 1;
                return (dedupe(items, self.threshold), Path::ColdNew);
            }
            // the texts this build did not propose go, so a refill costs this build's alone
            self.stats.evicted += self.slots.evict(gen, 1, usize::MAX) as u64;
        }

        let fresh: Vec<New> = news
            .par_iter()
            .map(|&(text, key)| {
                let set = shingle_set(text);
                let chash = if set.is_empty() {
                    content_hash(text)
                } else {
                    None
                };
                New {
                    text,
                    key,
                    set,
                    chash,
                }
            })
            .collect();
        let count = fresh.len() as u64;
        let base = self.slots.all.len() as u32;
        let done = if full {
            self.join_all(fresh, gen)
        } else {
            self.join_new(fresh, gen)
        };
        if done.is_none() {
            self.stats.cold_edges += 1;
            self.backoff = (self.backoff * 2).clamp(1, 64);
            self.skip = self.backoff;
            return (dedupe(items, self.threshold), Path::ColdEdges);
        }
        self.backoff = 0;
        self.stats.joined += count;
        for w in which.iter_mut() {
            if *w != NONE && *w & NEW != 0 {
                *w = base + (*w & !NEW);
            }
        }
        let out = visit(&self.slots, items, &which);
        self.maybe_rebuild();
        self.stats.warm += 1;
        (out, Path::Warm)
    }

    /// All texts (the memo's, then the new ones at the slots they will get; a removed slot
    /// has no shingles, so nothing joins it) joined anew, in parallel: the edges and an index
    /// over them. `None`, and the memo as it was, past `max_edges`.
    fn join_all(&mut self, fresh: Vec<New>, gen: u64) -> Option<()> {
        let all = &self.slots.all;
        let mut sets: Vec<&[u64]> = all.iter().map(|s| s.set.as_slice()).collect();
        sets.extend(fresh.iter().map(|n| n.set.as_slice()));
        let built = Index::build(&sets, self.threshold);
        let mut edges = self_join(&built, &sets, self.limits.max_edges)?;
        let live_hash = |s: &Slot| if s.live { s.chash } else { None };
        let chashes: Vec<Option<u64>> = all
            .iter()
            .map(live_hash)
            .chain(fresh.iter().map(|n| n.chash))
            .collect();
        edges.extend(same_hash_pairs(
            &chashes,
            self.limits.max_edges - edges.len(),
        )?);
        drop(sets);
        // commit: from here on nothing fails
        self.slots.clear_edges();
        for n in fresh {
            self.slots
                .add(Slot::new(n.text, n.key, n.set, n.chash, gen));
            self.test_panic();
        }
        self.index = built.index;
        for (a, b) in edges {
            self.slots.link(a, b);
        }
        self.stats.full_joins += 1;
        Some(())
    }

    /// Each new text added, linked into the index, and joined against the memo (the earlier
    /// new texts included). Past `max_edges`, the texts added are removed again (`None`).
    fn join_new(&mut self, fresh: Vec<New>, gen: u64) -> Option<()> {
        let base = self.slots.all.len() as u32;
        let mut room = self.limits.max_edges.saturating_sub(self.slots.edges);
        for n in fresh {
            let k = self
                .slots
                .add(Slot::new(n.text, n.key, n.set, n.chash, gen));
            self.test_panic();
            let slots = &self.slots;
            let set = slots.all[k as usize].set.as_slice();
            let ordered = self.index.insert_held(k, set);
            let mut matches = probe(&self.index, k, set, &ordered, |x| slots.live_set(x));
            if let Some(h) = n.chash {
                matches.extend(slots.with_hash(h).filter(|&x| x != k));
            }
            self.index
                .insert_prefixed(k, &ordered, prefix_len(set.len(), self.threshold));
            if matches.len() > room {
                for x in base..=k {
                    self.slots.remove(x);
                }
                return None;
            }
            room -= matches.len();
            for m in matches {
                self.slots.link(m, k);
            }
        }
        Some(())
    }

    /// Whether this build's texts repeat the last build that found them mostly new (at least
    /// `1 - new_share` of them): only then are they all joined; else this build runs
    /// `dedupe::dedupe` and remembers its texts' keys, so a one-off build (or each build of a
    /// build_many whose queries find their own candidates) never pays for filling the memo.
    fn repeats(&mut self, items: &[Item], keys: &[u64]) -> bool {
        let now: MixMap<()> = items
            .iter()
            .zip(keys)
            .filter(|(it, _)| !it.history)
            .map(|(_, &k)| (k, ()))
            .collect();
        if let Some(before) = &self.recent {
            let again = now.keys().filter(|k| before.contains_key(k)).count();
            // as many repeated as a warm build would have: a refill pays off the build after
            if again as f64 >= (1.0 - self.limits.new_share) * now.len() as f64 {
                self.recent = None;
                return true;
            }
        }
        self.recent = Some(now);
        false
    }

    fn test_panic(&mut self) {
        if std::mem::take(&mut self.panic_in_commit) {
            panic!("dedupe memo: the panic a test asked for, halfway through a commit");
        }
    }

    /// A new index over the live texts when the texts added since the last one outgrow it (their
    /// new shingles rank first in its order, which may no longer be rarest first), or removed
    /// texts still linked make up much of it.
    fn maybe_rebuild(&mut self) {
        let (built, inserted) = (self.index.built_links, self.index.inserted_links);
        let dead = self.slots.dead_links;
        let live = (built + inserted).saturating_sub(dead);
        let slack = self.limits.rebuild_slack;
        let dead_slots = self.slots.dead();
        if inserted * 2 <= built + slack
            && dead * 2 <= live + slack
            && dead_slots <= self.slots.live + slack / 4
        {
            return;
        }
        self.slots.compact();
        let sets: Vec<&[u64]> = self.slots.all.iter().map(|s| s.set.as_slice()).collect();
        self.index = Index::build(&sets, self.threshold).index;
        self.stats.rebuilds += 1;
    }
}
