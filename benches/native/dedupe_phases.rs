//! Native dedupe alone, and its preparation (shingle sets, shared groups, short prefixes)
//! alone, and the shingling floor (shingle sets alone, all cores), over candidates read from a file: one per line, `score<TAB>pinned<TAB>history<TAB>id<TAB>text`
//! (`benches/bench_boilerplate.py --native` writes them). Best of 5, in ms and MB/s of text,
//! beside the decisions' count, so a change of algorithm is timed without the Python boundary:
//!
//!     cargo run --release --example dedupe_phases -- candidates.tsv [more.tsv ...]
use ctxsieve::dedupe::{dedupe, visit_order, Item};
use ctxsieve::dedupe_groups::shared_groups;
use ctxsieve::dedupe_index::prepare;
use ctxsieve::dedupe_scatter::shingle_chunks;
use ctxsieve::text::shingle_set;
use rayon::prelude::*;
use std::time::Instant;

#[path = "candidates_tsv.rs"]
mod candidates_tsv;
use candidates_tsv::cpu_seconds;

/// Best of `rounds`: (wall seconds, CPU seconds, result).
fn best_of<F: FnMut() -> usize>(rounds: usize, mut f: F) -> (f64, f64, usize) {
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    let mut out = 0;
    for _ in 0..rounds {
        let (t0, c0) = (Instant::now(), cpu_seconds());
        out = f();
        cpu = cpu.min(cpu_seconds() - c0);
        wall = wall.min(t0.elapsed().as_secs_f64());
    }
    (wall, cpu, out)
}

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read_to_string(&path).expect("readable UTF-8 file");
        let items: Vec<Item> = candidates_tsv::items(&data);
        let bytes: usize = items.iter().map(|it| it.text.len()).sum();
        let order = visit_order(&items);
        // the floor: shingle sets alone, on all cores, as prepare makes them
        let (floor, floor_cpu, _) = best_of(5, || {
            items.par_iter().map(|it| shingle_set(it.text).len()).sum()
        });
        let (sort, sort_cpu, _) = best_of(5, || visit_order(&items).len());
        let (chunks, chunks_cpu, _) = best_of(5, || shingle_chunks(&items, &order).chunks.len());
        let shingled = shingle_chunks(&items, &order);
        let (group, group_cpu, _) =
            best_of(5, || shared_groups(&shingled.chunks, items.len()).count());
        drop(shingled);
        let (prep, prep_cpu, _) = best_of(5, || prepare(&items, &order, 0.8).sizes.len());
        let (all, all_cpu, dups) = best_of(5, || {
            dedupe(&items, 0.8)
                .duplicate_of
                .iter()
                .filter(|&&d| d >= 0)
                .count()
        });
        println!(
            "{path}: {} items, {dups} duplicates | wall: shingles {:.1} ms, prepare {:.1} ms, dedupe {:.1} ms ({:.0} MB/s) | cpu: shingles {:.1} ms, prepare {:.1} ms, dedupe {:.1} ms ({:.0} MB/s), visit {:.1} ms",
            items.len(),
            floor * 1e3,
            prep * 1e3,
            all * 1e3,
            bytes as f64 / all / 1e6,
            floor_cpu * 1e3,
            prep_cpu * 1e3,
            all_cpu * 1e3,
            bytes as f64 / all_cpu / 1e6,
            (all_cpu - prep_cpu) * 1e3
        );
        println!(
            "    phases, wall (cpu) ms: visit order {:.1} ({:.1}), shingling into partitions {:.1} ({:.1}), grouping {:.1} ({:.1})",
            sort * 1e3,
            sort_cpu * 1e3,
            chunks * 1e3,
            chunks_cpu * 1e3,
            group * 1e3,
            group_cpu * 1e3
        );
    }
}
