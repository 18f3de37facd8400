//! What the native benches share: candidates read from the TSV files
//! `benches/bench_boilerplate.py --native` writes (one per line,
//! `score<TAB>pinned<TAB>history<TAB>id<TAB>text`), and the CPU time of every thread, which on
//! a loaded machine tells more than wall time. Included by each example with `#[path]`.
use ctxsieve::dedupe::Item;

/// CPU time of every thread of this process, in seconds (Linux `/proc/self/task/*/schedstat`).
pub fn cpu_seconds() -> f64 {
    let mut ns = 0u64;
    for task in std::fs::read_dir("/proc/self/task").expect("Linux /proc") {
        let stat =
            std::fs::read_to_string(task.unwrap().path().join("schedstat")).unwrap_or_default();
        ns += stat
            .split(' ')
            .next()
            .and_then(|f| f.parse().ok())
            .unwrap_or(0);
    }
    ns as f64 * 1e-9
}

/// The candidates of one file's text, borrowing from it.
pub fn items(data: &str) -> Vec<Item<'_>> {
    data.lines()
        .map(|line| {
            let f: Vec<&str> = line.splitn(5, '\t').collect();
            assert_eq!(f.len(), 5, "score, pinned, history, id, text");
            Item {
                score: f[0].parse().expect("a float score"),
                pinned: f[1] == "1",
                history: f[2] == "1",
                id: f[3].as_bytes(),
                text: f[4],
            }
        })
        .collect()
}
