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
use crate::dedupe_memo_index::{Index, Mix, MixMap, Ranked, NONE};
use crate::dedupe_memo_join::{probe, self_join};
use crate::dedupe_memo_slots::{Slot, Slots};
use crate::dedupe_memo_visit::{same_hash_pairs, visit};
use crate::text::{content_hash, shingle_set};
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

#[derive(Clone)]
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
    /// A rebuild a build finds due is left waiting (`Memo::has_rebuild_waiting`) rather than
    /// run before the build returns: the Python binding runs it on a pool thread, off the
    /// build's path. A waiting rebuild still runs first thing in the next build.
    pub defer_rebuild: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_texts: 20_000,
            max_edges: 2_000_000,
            keep_builds: 3,
            rebuild_slack: 4096,
            new_share: 0.25,
            defer_rebuild: false,
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
    /// The index is due to be built anew (`Limits::defer_rebuild`).
    rebuild_waiting: bool,
    /// The last warm build's slot of each item (NONE for history) and the caller's identity of
    /// each item's text (`dedupe_same`); empty after any other build, a rebuild (which
    /// renumbers the slots) or `clear`.
    last_which: Vec<u32>,
    last_same: Vec<usize>,
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
            rebuild_waiting: false,
            last_which: Vec::new(),
            last_same: Vec::new(),
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
        self.rebuild_waiting = false;
        self.forget_same();
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
        self.dedupe_same(items, keys, None, None)
    }

    fn forget_same(&mut self) {
        self.last_which = Vec::new();
        self.last_same = Vec::new();
    }

    /// `dedupe`, told which texts are the very ones of the last build: `same[i]` names
    /// `items[i].text` (the binding passes the address of its Python str, and keeps those strs
    /// alive until the next call, so an address is never another text's). An item whose name
    /// is the one at its position in the last warm build takes that build's slot for it
    /// without the key lookup and the full compare; any other is found as in `dedupe`.
    ///
    /// Why: finding the 10k texts of a warm-95 % build compared each in full against the
    /// memo's copy, both mostly out of cache after the Python stages (memcmp alone ~1.6 ms of
    /// a ~10 ms call inside `stages.py --warm`'s builds, perf). `id_keys`: a hash of each id
    /// that equal ids share, for the visit (`visit`), else xxh3 of each.
    pub fn dedupe_same(
        &mut self,
        items: &[Item],
        keys: &[u64],
        same: Option<&[usize]>,
        id_keys: Option<&[u64]>,
    ) -> (Outcome, Path) {
        self.rebuild_waiting_now(); // before the hints are read: it renumbers the slots
        let last_which = std::mem::take(&mut self.last_which);
        let last_same = std::mem::take(&mut self.last_same);
        let out = self.dedupe_hinted(items, keys, (same, id_keys), &last_which, &last_same);
        if let (Some(same), Path::Warm) = (same, out.1) {
            self.last_same = same.to_vec();
        } else {
            self.last_which = Vec::new();
        }
        out
    }

    fn dedupe_hinted(
        &mut self,
        items: &[Item],
        keys: &[u64],
        (same, id_keys): (Option<&[usize]>, Option<&[u64]>),
        last_which: &[u32],
        last_same: &[usize],
    ) -> (Outcome, Path) {
        self.stats.builds += 1;
        self.rebuild_waiting_now();
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
        // the slot an item's text had in the last warm build, when the caller names it the same
        let hint = |slots: &Slots, i: usize| -> Option<u32> {
            let same = same?;
            if i >= last_same.len() || i >= last_which.len() || same[i] != last_same[i] {
                return None;
            }
            let k = last_which[i];
            let s = slots.all.get(k as usize)?;
            (s.live && s.key == keys[i]).then_some(k)
        };
        for (i, it) in items.iter().enumerate() {
            if it.history {
                continue;
            }
            let found = hint(&self.slots, i).or_else(|| self.slots.find(it.text, keys[i]));
            which[i] = match found {
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
        let out = visit(&self.slots, items, &which, id_keys);
        self.last_which = which;
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

    /// The new texts joined against the memo and against each other, then added and linked
    /// into the index. Each new text is ranked and probed against the memo in parallel (the
    /// index read only), the new texts are joined among themselves in bulk (`self_join` over
    /// an index of their own: any one order of the shingles is exact), and the index takes
    /// their links shard by shard. Past `max_edges`, nothing changes (`None`).
    ///
    /// What it replaced: each new text linked, probed and joined in turn on one thread.
    /// `memo_phases` over 40 consecutive warm builds of bench_steady's 10k (5 % new, ~480 new
    /// texts a build; medians of the 38 warm builds, alternating binaries): the join went from
    /// 5-8 ms to 2.5-3.5 ms wall, of which probing 0.8 ms (3 ms before `Seen`); the memo's
    /// call from 10.6 to 8.6 ms wall with CPU unchanged (9.0 ms) on a quiet core, and from 16.4
    /// to 12.0 ms wall, 15.0 to 11.2 ms CPU, with the other core busy (fewer cache misses).
    /// The new texts joined in bulk among themselves, all of them, cost 1-1.4 ms more a build
    /// (`join_among` picks out those that share a shingle first).
    fn join_new(&mut self, fresh: Vec<New>, gen: u64) -> Option<()> {
        let base = self.slots.all.len() as u32;
        let room = self.limits.max_edges.saturating_sub(self.slots.edges);
        let (index, slots) = (&self.index, &self.slots);
        let probed: Vec<(Vec<Ranked>, Vec<u32>)> = fresh
            .par_iter()
            .map(|n| {
                let ranked = index.ranked(&n.set);
                let matches = probe(index, &n.set, &ranked, |x| slots.live_set(x));
                (ranked, matches)
            })
            .collect();
        // (memo slot, batch position) and (batch, batch) pairs
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (i, (_, matches)) in probed.iter().enumerate() {
            edges.extend(matches.iter().map(|&m| (m, base + i as u32)));
        }
        if edges.len() <= room {
            let among = join_among(&fresh, self.threshold, room - edges.len())?;
            edges.extend(among.into_iter().map(|(a, b)| (base + a, base + b)));
        }
        // texts without words match the live ones and the earlier new ones of their hash
        let mut hashed: MixMap<Vec<u32>> = MixMap::default();
        for (i, n) in fresh.iter().enumerate() {
            if let Some(h) = n.chash {
                let earlier = hashed.entry(h).or_default();
                edges.extend(slots.with_hash(h).map(|x| (x, base + i as u32)));
                edges.extend(earlier.iter().map(|&j| (base + j, base + i as u32)));
                earlier.push(i as u32);
            }
        }
        if edges.len() > room {
            return None;
        }
        // commit: from here on nothing fails
        for n in fresh {
            self.slots
                .add(Slot::new(n.text, n.key, n.set, n.chash, gen));
            self.test_panic();
        }
        for (a, b) in edges {
            self.slots.link(a, b);
        }
        let texts: Vec<(u32, &[Ranked])> = probed
            .iter()
            .enumerate()
            .map(|(i, (ranked, _))| (base + i as u32, ranked.as_slice()))
            .collect();
        self.index.insert(&texts);
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

    /// Whether the index is due to be built anew: the texts added since the last one outgrow
    /// it (their new shingles rank first in its order, which may no longer be rarest first),
    /// or removed texts still linked make up much of it. (Rebuilding half as often, at twice
    /// these bounds, lost: 2 rebuilds in 80 warm builds of bench_steady's 10k instead of 7,
    /// and the mean memo call 14.1 ms CPU against 13.9, each build slower as the index aged.)
    fn rebuild_due(&self) -> bool {
        let (built, inserted) = (self.index.built_links, self.index.inserted_links);
        let dead = self.slots.dead_links;
        let live = (built + inserted).saturating_sub(dead);
        let slack = self.limits.rebuild_slack;
        let dead_slots = self.slots.dead();
        inserted * 2 > built + slack
            || dead * 2 > live + slack
            || dead_slots > self.slots.live + slack / 4
    }

    fn maybe_rebuild(&mut self) {
        if !self.rebuild_due() {
            return;
        }
        if self.limits.defer_rebuild {
            self.rebuild_waiting = true;
            return;
        }
        self.rebuild();
    }

    fn rebuild(&mut self) {
        self.rebuild_waiting = false;
        self.forget_same(); // compact renumbers the slots
        self.slots.compact();
        let sets: Vec<&[u64]> = self.slots.all.iter().map(|s| s.set.as_slice()).collect();
        self.index = Index::build(&sets, self.threshold).index;
        self.stats.rebuilds += 1;
    }

    /// With `Limits::defer_rebuild`: whether the last build left the index due to be built
    /// anew, for the caller to run `rebuild_waiting_now` off the build's path.
    pub fn has_rebuild_waiting(&self) -> bool {
        self.rebuild_waiting
    }

    /// The rebuild the last build left (`has_rebuild_waiting`), now; nothing when none waits.
    pub fn rebuild_waiting_now(&mut self) {
        if self.rebuild_waiting {
            self.rebuild();
        }
    }
}

/// Every matching pair among a build's new texts (positions in `fresh`), `None` past `max`.
/// Only texts that share a shingle with another new text can match one, and a build's new
/// texts mostly share none: those are picked out by one pass over a table of the batch's
/// shingles, and only they are joined in bulk (`self_join` over an index of their own; any
/// one order of the shingles is exact). Joining all of them in bulk cost ~1-1.4 ms of a
/// build with ~480 new texts that shared nothing (`memo_phases`, bench_steady's 10k).
fn join_among(fresh: &[New], threshold: f64, max: usize) -> Option<Vec<(u32, u32)>> {
    let total: usize = fresh.iter().map(|n| n.set.len()).sum();
    // each shingle's first holder, or NONE once a second text holds it
    let mut first: MixMap<u32> = MixMap::with_capacity_and_hasher(total, Default::default());
    for (i, n) in fresh.iter().enumerate() {
        for &h in &n.set {
            let at = first.entry(h).or_insert(i as u32);
            if *at != i as u32 {
                *at = NONE;
            }
        }
    }
    let sharing: Vec<u32> = (0..fresh.len() as u32)
        .filter(|&i| {
            fresh[i as usize]
                .set
                .iter()
                .any(|h| first.get(h) == Some(&NONE))
        })
        .collect();
    if sharing.len() < 2 {
        return Some(Vec::new());
    }
    let sets: Vec<&[u64]> = sharing
        .iter()
        .map(|&i| fresh[i as usize].set.as_slice())
        .collect();
    let built = Index::build(&sets, threshold);
    let pairs = self_join(&built, &sets, max)?;
    Some(
        pairs
            .into_iter()
            .map(|(a, b)| (sharing[a as usize], sharing[b as usize]))
            .collect(),
    )
}
