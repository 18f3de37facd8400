//! The floor of a build: shingling alone (word splitting, lower-casing, xxh3 of every 5-word
//! window, distinct per text), native, over the texts of a file (one per line), one thread and
//! all threads. `benches/stages.py` writes the file and runs this; by hand:
//!
//!     cargo run --release --example shingle_floor -- texts.txt
use rayon::prelude::*;
use std::time::Instant;

fn best_of<F: FnMut() -> usize>(rounds: usize, mut f: F) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut total = 0;
    for _ in 0..rounds {
        let t0 = Instant::now();
        total = f();
        best = best.min(t0.elapsed().as_secs_f64());
    }
    (best, total)
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: shingle_floor <texts file>");
    let data = std::fs::read_to_string(&path).expect("readable UTF-8 file");
    let texts: Vec<&str> = data.lines().collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let (one, shingles) = best_of(5, || {
        texts
            .iter()
            .map(|t| ctxsieve::text::shingle_set(t).len())
            .sum()
    });
    let (all, _) = best_of(5, || {
        texts
            .par_iter()
            .map(|t| ctxsieve::text::shingle_set(t).len())
            .sum()
    });
    let threads = rayon::current_num_threads();
    println!(
        "texts {} bytes {} shingles {} | 1 thread {:.2} ms {:.0} MB/s | {} threads {:.2} ms {:.0} MB/s",
        texts.len(),
        bytes,
        shingles,
        one * 1e3,
        bytes as f64 / one / 1e6,
        threads,
        all * 1e3,
        bytes as f64 / all / 1e6
    );
}
