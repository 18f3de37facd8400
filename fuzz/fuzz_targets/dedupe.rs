//! Near-duplicate detection on arbitrary items: no panic, the visit order is a permutation,
//! pinned and history items are never dropped, every drop points at a kept, visited-earlier item.
#![no_main]

use arbitrary::Arbitrary;
use ctxsieve::dedupe::{dedupe, Item};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Raw {
    text: String,
    id: Vec<u8>,
    score: f64,
    pinned: bool,
    history: bool,
}

fuzz_target!(|input: (Vec<Raw>, u8)| {
    let (raw, t) = input;
    // the bindings refuse non-finite scores and thresholds outside (0, 1]
    let threshold = (f64::from(t) + 1.0) / 256.0;
    let items: Vec<Item> = raw
        .iter()
        .map(|r| Item {
            text: &r.text,
            id: &r.id,
            score: if r.score.is_finite() { r.score } else { 0.0 },
            pinned: r.pinned,
            history: r.history,
        })
        .collect();
    let out = dedupe(&items, threshold);
    let n = items.len();
    assert_eq!(out.duplicate_of.len(), n);
    let mut seen = vec![false; n];
    let mut rank = vec![0; n];
    for (r, &i) in out.visit_order.iter().enumerate() {
        assert!(!std::mem::replace(&mut seen[i], true), "visited twice");
        rank[i] = r;
    }
    assert!(seen.iter().all(|&s| s));
    for (i, &k) in out.duplicate_of.iter().enumerate() {
        if k < 0 {
            continue;
        }
        let k = k as usize;
        assert!(
            !items[i].pinned && !items[i].history,
            "a protected item was dropped"
        );
        assert_eq!(
            out.duplicate_of[k], -1,
            "dropped in favour of a dropped item"
        );
        assert!(!items[k].history && rank[k] < rank[i]);
    }
});
