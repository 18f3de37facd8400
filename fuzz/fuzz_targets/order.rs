//! The cache order on arbitrary items: no panic, a permutation, history last, and the stable
//! block before the session block before the volatile block.
#![no_main]

use arbitrary::Arbitrary;
use ctxsieve::order::{cache_order, Item};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Raw {
    stability: u8,
    history: bool,
    score: f64,
    source_rank: u64,
    order_key: Vec<u8>,
    id: Vec<u8>,
}

fuzz_target!(|raw: Vec<Raw>| {
    let items: Vec<Item> = raw
        .iter()
        .map(|r| Item {
            stability: r.stability % 3,
            history: r.history,
            score: if r.score.is_finite() { r.score } else { 0.0 },
            source_rank: r.source_rank,
            order_key: &r.order_key,
            id: &r.id,
        })
        .collect();
    let order = cache_order(&items);
    assert_eq!(order.len(), items.len());
    let mut seen = vec![false; items.len()];
    for &i in &order {
        assert!(!std::mem::replace(&mut seen[i], true));
    }
    // block of each position: 0, 1, 2 by stability, 3 for history; never decreasing
    let block = |i: usize| {
        if items[i].history {
            3
        } else {
            items[i].stability
        }
    };
    assert!(order.windows(2).all(|p| block(p[0]) <= block(p[1])));
});
