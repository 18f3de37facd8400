//! The dedupe memo over a sequence of builds, against the cold kernel on each, without the
//! Python boundary: files of candidates, one build each, in the order given (one per line,
//! `score<TAB>pinned<TAB>history<TAB>id<TAB>text`, as `dedupe_phases` reads). Each build runs
//! the memo (`dedupe_memo::Memo`) and `dedupe::dedupe`, checks their decisions are equal, and
//! prints both times (wall and CPU of all threads), the memo's path and its counters:
//!
//!     cargo run --release --example memo_phases -- b0.tsv b1.tsv b2.tsv ...
//!
//! `MEMO_ROUNDS` (default 1) repeats the whole sequence on one memo; `MEMO_NO_COLD=1` skips the
//! cold kernel (and the check), for a profile of the memo alone.
use ctxsieve::dedupe::{dedupe, Item};
use ctxsieve::dedupe_memo::{Limits, Memo};
use std::time::Instant;
use xxhash_rust::xxh3::xxh3_64;

#[path = "candidates_tsv.rs"]
mod candidates_tsv;
use candidates_tsv::cpu_seconds;

fn timed<T>(f: impl FnOnce() -> T) -> (f64, f64, T) {
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let out = f();
    (
        t0.elapsed().as_secs_f64() * 1e3,
        (cpu_seconds() - c0) * 1e3,
        out,
    )
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    let data: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("readable UTF-8 file"))
        .collect();
    let builds: Vec<Vec<Item>> = data.iter().map(|d| candidates_tsv::items(d)).collect();
    let rounds: usize = std::env::var("MEMO_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    // `MEMO_NO_COLD=1`: the memo alone (for a profile of it), decisions unchecked
    let no_cold = std::env::var("MEMO_NO_COLD").is_ok_and(|v| v == "1");
    if std::env::var("MEMO_FILL_PHASES").is_ok_and(|v| v == "1") {
        fill_phases(&builds[0]);
        return;
    }
    let mut memo = Memo::new(0.8, Limits::default());
    for round in 0..rounds {
        for (path, items) in files.iter().zip(&builds) {
            let keys: Vec<u64> = items.iter().map(|it| xxh3_64(it.text.as_bytes())).collect();
            let (mw, mc, (got, how)) = timed(|| memo.dedupe(items, &keys));
            let (cw, cc) = if no_cold {
                (0.0, 0.0)
            } else {
                let (cw, cc, want) = timed(|| dedupe(items, 0.8));
                assert_eq!(
                    got.duplicate_of, want.duplicate_of,
                    "{path}: decisions differ"
                );
                (cw, cc)
            };
            println!(
                "{round} {path}: memo {mw:6.2} ms ({mc:6.2} cpu) {how:?} | cold {cw:6.2} ms ({cc:6.2} cpu) | texts {} edges {}",
                memo.texts(),
                memo.edges()
            );
        }
    }
    println!("{:?}", memo.stats);
}

/// The phases of a memo fill over one build's texts (each distinct text once), and the
/// cold kernel on the same items.
fn fill_phases(items: &[Item]) {
    use ctxsieve::dedupe_memo_index::Index;
    use ctxsieve::dedupe_memo_join::self_join;
    use ctxsieve::text::shingle_set;
    use rayon::prelude::*;
    for _ in 0..5 {
        let (sw, sc, sets) = timed(|| {
            items
                .par_iter()
                .map(|it| shingle_set(it.text))
                .collect::<Vec<_>>()
        });
        let refs: Vec<&[u64]> = sets.iter().map(Vec::as_slice).collect();
        let (bw, bc, built) = timed(|| Index::build(&refs, 0.8));
        let (jw, jc, edges) = timed(|| self_join(&built, &refs, usize::MAX).unwrap().len());
        let (dw, dc, _) = timed(|| drop(built));
        let (cw, cc, _) = timed(|| dedupe(items, 0.8));
        println!(
            "fill phases, wall (cpu) ms: shingles {sw:.1} ({sc:.1}), index {bw:.1} ({bc:.1}), self-join {jw:.1} ({jc:.1}) {edges} edges, drop {dw:.1} ({dc:.1}) | cold kernel {cw:.1} ({cc:.1})"
        );
    }
}
