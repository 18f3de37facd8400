//! Sequences of builds through one memo decide as `dedupe::dedupe` on every build: texts
//! added, removed and replaced between builds, scores changed, pinned and history items,
//! repeated ids and texts, near copies, a shared footer, a template, blank and word-less
//! texts; and with small limits, the fallbacks, eviction and index rebuilds.

use crate::dedupe::{dedupe, Item};
use crate::dedupe_memo::{Limits, Memo, Path};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const FOOTER: &str = "read the terms of use and the privacy notice before you go on";

fn text(rng: &mut Rng, template: &[String], pool: &[String]) -> String {
    let pick = rng.below(10);
    if pick == 0 && !pool.is_empty() {
        // a near copy of a text seen before
        let mut ws: Vec<String> = pool[rng.below(pool.len())]
            .split(' ')
            .map(str::to_string)
            .collect();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(ws.len());
            ws[at] = format!("c{}", rng.below(50));
        }
        return ws.join(" ");
    }
    if pick == 1 {
        let mut ws = template.to_vec();
        for _ in 0..rng.below(6) {
            let at = rng.below(ws.len());
            ws[at] = format!("t{}", rng.below(40));
        }
        return ws.join(" ");
    }
    if pick == 2 {
        return ["", "  ", "!!!", " !!! ", "?", "a"][rng.below(6)].to_string();
    }
    let n = 3 + rng.below(30);
    let body: Vec<String> = (0..n).map(|_| format!("w{}", rng.below(60))).collect();
    if rng.below(3) == 0 {
        format!("{} {FOOTER}", body.join(" "))
    } else {
        body.join(" ")
    }
}

struct Cand {
    text: String,
    id: String,
    score: f64,
    pinned: bool,
    history: bool,
}

/// Keys of the texts: xxh3, or a bad hash (a text's length mod 3) so that slots share keys.
fn key(text: &str, bad: bool) -> u64 {
    if bad {
        (text.len() % 3) as u64
    } else {
        xxhash_rust::xxh3::xxh3_64(text.as_bytes())
    }
}

fn check_sequence(seed: u64, limits: Limits, builds: usize, size: usize) -> Vec<Path> {
    let mut rng = Rng(seed * 2 + 1);
    let template: Vec<String> = (0..30).map(|j| format!("p{j}")).collect();
    let threshold = [0.8, 0.5, 1.0, 2.0 / 3.0][seed as usize % 4];
    let mut memo = Memo::new(threshold, limits);
    let mut pool: Vec<String> = Vec::new();
    let mut cands: Vec<Cand> = Vec::new();
    let mut paths = Vec::new();
    // names for `Memo::dedupe_same` on odd seeds: one per distinct text, so equal names are
    // equal texts (what the binding's str addresses promise), in place or moved
    let mut names: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for b in 0..builds {
        // churn: replace, remove, add; rescore some
        let changes = if b == 0 {
            size
        } else {
            1 + rng.below(cands.len() / 5 + 1)
        };
        for _ in 0..changes {
            let t = text(&mut rng, &template, &pool);
            pool.push(t.clone());
            let c = Cand {
                text: t,
                id: format!("i{}", rng.below(size * 2)),
                score: (rng.below(8) as f64) / 4.0,
                pinned: rng.below(12) == 0,
                history: rng.below(15) == 0,
            };
            match if b == 0 { 3 } else { rng.below(4) } {
                0 if !cands.is_empty() => {
                    let at = rng.below(cands.len());
                    cands.remove(at);
                }
                1 | 2 if !cands.is_empty() => {
                    let at = rng.below(cands.len());
                    cands[at] = c;
                }
                _ => cands.push(c),
            }
        }
        for c in cands.iter_mut() {
            if rng.below(5) == 0 {
                c.score = (rng.below(8) as f64) / 4.0;
            }
        }
        if rng.below(4) == 0 && !cands.is_empty() {
            let c = &cands[rng.below(cands.len())];
            let copy = Cand {
                text: c.text.clone(),
                id: format!("dup{b}"),
                score: c.score,
                pinned: false,
                history: false,
            };
            cands.push(copy);
        }
        let items: Vec<Item> = cands
            .iter()
            .map(|c| Item {
                text: &c.text,
                id: c.id.as_bytes(),
                score: c.score,
                pinned: c.pinned,
                history: c.history,
            })
            .collect();
        let keys: Vec<u64> = cands.iter().map(|c| key(&c.text, seed % 3 == 0)).collect();
        let want = dedupe(&items, threshold);
        let (got, path) = if seed % 2 == 1 {
            let same: Vec<usize> = cands
                .iter()
                .map(|c| {
                    let next = names.len();
                    *names.entry(c.text.clone()).or_insert(next)
                })
                .collect();
            // and the ids keyed by a bad hash (their length mod 3) on every third: keys collide
            let id_keys: Vec<u64> = cands.iter().map(|c| key(&c.id, seed % 3 == 0)).collect();
            memo.dedupe_same(&items, &keys, Some(&same), Some(&id_keys))
        } else {
            memo.dedupe(&items, &keys)
        };
        assert_eq!(
            got.duplicate_of, want.duplicate_of,
            "seed {seed} build {b} ({path:?})"
        );
        assert_eq!(got.visit_order, want.visit_order);
        paths.push(path);
        // a rebuild left waiting (`defer_rebuild`): run between builds, as the binding does,
        // or left to the next build
        if b % 2 == 0 && memo.has_rebuild_waiting() {
            memo.rebuild_waiting_now();
            assert!(!memo.has_rebuild_waiting());
        }
    }
    paths
}

#[test]
fn warm_builds_decide_as_the_cold_kernel() {
    for seed in 0..24 {
        let paths = check_sequence(seed, Limits::default(), 12, 60);
        // the first build finds every text new and runs the cold kernel; the next joins them
        assert_eq!(paths[0], Path::ColdNew);
        assert!(
            paths
                .iter()
                .all(|p| *p == Path::Warm || *p == Path::ColdNew),
            "{paths:?}"
        );
        assert!(
            paths.iter().filter(|p| **p == Path::Warm).count() >= 8,
            "{paths:?}"
        );
    }
}

#[test]
fn with_frequent_rebuilds_and_short_memory() {
    for seed in 0..24 {
        let limits = Limits {
            keep_builds: 1 + seed % 3,
            rebuild_slack: 0,
            ..Limits::default()
        };
        check_sequence(seed, limits, 12, 60);
    }
}

#[test]
fn with_rebuilds_left_waiting_between_builds() {
    let mut waited = 0;
    for seed in 0..24 {
        let limits = Limits {
            keep_builds: 1 + seed % 3,
            rebuild_slack: 0,
            defer_rebuild: true,
            ..Limits::default()
        };
        check_sequence(seed, limits.clone(), 12, 60);
        let mut memo = Memo::new(0.8, limits);
        let texts: Vec<String> = (0..120).map(|j| format!("w{j} a b c d e f g")).collect();
        for round in 0..12usize {
            let items: Vec<Item> = texts[round * 6..round * 6 + 30]
                .iter()
                .map(|t| Item {
                    text: t,
                    id: t.as_bytes(),
                    score: 1.0,
                    pinned: false,
                    history: false,
                })
                .collect();
            let keys: Vec<u64> = items.iter().map(|it| key(it.text, false)).collect();
            let (got, _) = memo.dedupe(&items, &keys);
            assert_eq!(got.duplicate_of, dedupe(&items, 0.8).duplicate_of);
            waited += usize::from(memo.has_rebuild_waiting());
        }
    }
    // a fifth of the texts new each build, no slack: rebuilds come due and wait
    assert!(waited >= 24, "{waited}");
}

#[test]
fn bounds_fall_back_to_the_cold_kernel_with_the_same_decisions() {
    let mut saw = (false, false, false);
    for seed in 0..24 {
        let limits = Limits {
            max_texts: 12 + seed as usize % 8,
            max_edges: 1 + seed as usize % 4,
            keep_builds: 2,
            rebuild_slack: 0,
            ..Limits::default()
        };
        for p in check_sequence(seed, limits, 20, 14) {
            saw.0 |= p == Path::ColdTexts;
            saw.1 |= p == Path::ColdEdges;
            saw.2 |= p == Path::ColdSkipped;
        }
    }
    assert_eq!(saw, (true, true, true));
}

#[test]
fn builds_of_mostly_new_texts_run_cold_and_join_nothing() {
    // after one query built twice (the memo filled with its 40 texts), the queries of a
    // build_many, each finding its own 40 of 160 texts (a third shared with the query
    // before): no build is mostly texts of the memo or of the last, so each runs cold and the
    // memo is left as it was (before: each joined its ~27 new texts one by one)
    let mut rng = Rng(7);
    let template: Vec<String> = (0..30).map(|j| format!("p{j}")).collect();
    let mut pool = Vec::new();
    let all: Vec<String> = (0..160)
        .map(|_| {
            let t = text(&mut rng, &template, &pool);
            pool.push(t.clone());
            t
        })
        .collect();
    let mut memo = Memo::new(0.8, Limits::default());
    for b in 0..14usize {
        let q = b.saturating_sub(2);
        let picked: Vec<&String> = (0..40).map(|j| &all[(q * 27 + j) % 160]).collect();
        let ids: Vec<String> = (0..40).map(|j| format!("i{j}")).collect();
        let items: Vec<Item> = picked
            .iter()
            .zip(&ids)
            .map(|(t, id)| Item {
                text: t,
                id: id.as_bytes(),
                score: (t.len() % 7) as f64,
                pinned: false,
                history: false,
            })
            .collect();
        let keys: Vec<u64> = picked.iter().map(|t| key(t, false)).collect();
        let (got, path) = memo.dedupe(&items, &keys);
        assert_eq!(got.duplicate_of, dedupe(&items, 0.8).duplicate_of);
        let want = [Path::ColdNew, Path::Warm, Path::Warm][b.min(2)];
        assert_eq!(path, if b > 2 { Path::ColdNew } else { want }, "build {b}");
    }
    // the fill's distinct texts joined, nothing after; texts not proposed in 3 builds forgotten
    let first: std::collections::HashSet<&String> = all[..40].iter().collect();
    assert_eq!(memo.stats.joined, first.len() as u64);
    assert!(memo.texts() < 10, "{}", memo.texts());
}

#[test]
fn new_texts_that_match_each_other_are_joined_in_the_build_that_brings_them() {
    // 200 texts the memo holds; then builds that each add 20 new texts: a few near copies of
    // one new text (matching each other, not the memo), one near copy of a memo text, the rest
    // unlike anything. Each build is warm, decides as the cold kernel, and drops a new copy
    // as a duplicate of another new text.
    let mut rng = Rng(11);
    let word = |rng: &mut Rng| format!("x{}", rng.below(5000));
    let mut texts: Vec<String> = (0..200)
        .map(|_| {
            (0..40)
                .map(|_| word(&mut rng))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let mut memo = Memo::new(0.8, Limits::default());
    let mut saw_new_pair = 0;
    for b in 0..8usize {
        if b >= 2 {
            let lead: Vec<String> = (0..40).map(|_| word(&mut rng)).collect();
            for c in 0..4 {
                let mut ws = lead.clone();
                ws[0] = format!("copy{b}x{c}"); // one shingle of 36 differs
                texts.push(ws.join(" "));
            }
            let mut near: Vec<String> =
                texts[rng.below(200)].split(' ').map(String::from).collect();
            near[3] = format!("near{b}");
            texts.push(near.join(" "));
            for _ in 0..15 {
                texts.push(
                    (0..40)
                        .map(|_| word(&mut rng))
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
        }
        let ids: Vec<String> = (0..texts.len()).map(|j| format!("i{j}")).collect();
        let items: Vec<Item> = texts
            .iter()
            .zip(&ids)
            .enumerate()
            .map(|(j, (t, id))| Item {
                text: t,
                id: id.as_bytes(),
                score: ((j * 7919) % 101) as f64,
                pinned: false,
                history: false,
            })
            .collect();
        let keys: Vec<u64> = texts.iter().map(|t| key(t, false)).collect();
        let want = dedupe(&items, 0.8);
        let (got, path) = memo.dedupe(&items, &keys);
        assert_eq!(got.duplicate_of, want.duplicate_of, "build {b}");
        if b >= 2 {
            assert_eq!(path, Path::Warm, "build {b}");
            let first_new = texts.len() - 20;
            saw_new_pair += (first_new..first_new + 4)
                .filter(|&j| got.duplicate_of[j] >= first_new as i64)
                .count();
        }
    }
    // each build's four copies: all but the earliest visited drop on a new one
    assert_eq!(saw_new_pair, 6 * 3);
}
