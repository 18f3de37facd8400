//! The calibrated estimator alone, one thread, over texts and a profile's tables in files that
//! `benches/native/calibrated_tables.py` writes: the harness for callgrind's instructions per
//! pass and for timings without the Python boundary. By hand:
//!
//!     cargo run --profile profiling --example calibrated_pass -- DIR PROFILE CORPUS PASSES
//!
//! `DIR/CORPUS.bin` holds the texts (each a little-endian u32 length and its bytes);
//! `DIR/PROFILE.{costs,known,extra,pairs,cjkpairs,cjktokens,group}` the profile's cost vectors
//! (38 little-endian u64 each, one after another: its bounds), known-word hashes and tables (a missing file: no table). It prints the
//! sum of the estimates (to compare builds) and the best pass's MB/s.
use ctxsieve::calibrated::{estimate, Costs, KnownWords, NUM_FEATURES};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, profile, corpus, passes] = &args[..] else {
        panic!("usage: calibrated_pass DIR PROFILE CORPUS PASSES");
    };
    let passes: usize = passes.parse().expect("PASSES: a number");
    let read = |ext: &str| std::fs::read(format!("{dir}/{profile}.{ext}")).ok();
    let data = std::fs::read(format!("{dir}/{corpus}.bin")).expect("corpus file");
    let mut texts = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let n = u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        texts.push(&data[at + 4..at + 4 + n]);
        at += 4 + n;
    }
    let bounds: Vec<Costs> = read("costs")
        .unwrap()
        .chunks_exact(8 * NUM_FEATURES)
        .map(|v| {
            let mut costs = [0u64; NUM_FEATURES];
            for (c, b) in costs.iter_mut().zip(v.chunks_exact(8)) {
                *c = u64::from_le_bytes(b.try_into().unwrap());
            }
            costs
        })
        .collect();
    let group: i128 = String::from_utf8(read("group").unwrap())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mut known = KnownWords::from_le_bytes(&read("known").unwrap_or_default())
        .unwrap()
        .with_tables(
            read("extra").as_deref(),
            group,
            read("pairs").as_deref(),
            read("cjkpairs").as_deref(),
        )
        .unwrap();
    if let Some(t) = read("cjktokens") {
        known = known.with_piece_tokens(&t).unwrap();
    }
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let mut best = f64::INFINITY;
    let mut sum = 0;
    for _ in 0..passes {
        let t0 = Instant::now();
        sum = texts
            .iter()
            .map(|t| estimate(t, &bounds, Some(&known)))
            .sum::<u64>();
        best = best.min(t0.elapsed().as_secs_f64());
    }
    println!(
        "{profile} {corpus}: {} texts, {bytes} bytes, estimates sum {sum}, {:.0} MB/s",
        texts.len(),
        bytes as f64 / best / 1e6
    );
}
