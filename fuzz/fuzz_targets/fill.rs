//! The budget fill on arbitrary counts (any u64, beyond the bindings' MAX_COUNT): no panic or
//! overflow; pinned items stay in; without pinned items the included tokens never exceed the
//! budget, and with no minimums no source exceeds its cap.
#![no_main]

use arbitrary::Arbitrary;
use ctxsieve::fill::{fill, Item, Options, BUDGET, MIN_ITEMS, PINNED, SELECTED};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Raw {
    tokens: u64,
    score: f64,
    source: u8,
    pinned: bool,
    deprecated: bool,
    id: Vec<u8>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    items: Vec<Raw>,
    budget: u64,
    beta: u8,
    min_score: Option<f64>,
    caps: Vec<Option<u64>>,
    min_items: Vec<u64>,
    include_deprecated: bool,
}

fuzz_target!(|input: Input| {
    let nsrc = input.caps.len().clamp(1, 8);
    let caps: Vec<Option<u64>> = (0..nsrc)
        .map(|s| input.caps.get(s).copied().flatten())
        .collect();
    let mins: Vec<u64> = (0..nsrc)
        .map(|s| input.min_items.get(s).copied().unwrap_or(0))
        .collect();
    let items: Vec<Item> = input
        .items
        .iter()
        .map(|r| Item {
            tokens: r.tokens,
            score: if r.score.is_finite() { r.score } else { 0.0 },
            source: r.source as usize % nsrc,
            pinned: r.pinned,
            deprecated: r.deprecated,
            id: &r.id,
        })
        .collect();
    let opt = Options {
        budget: input.budget,
        beta: f64::from(input.beta) / 16.0, // [0, 16): the bindings allow [0, MAX_BETA]
        min_score: input.min_score,
        caps: &caps,
        min_items: &mins,
        include_deprecated: input.include_deprecated,
    };
    let reasons = fill(&items, &opt);
    assert_eq!(reasons.len(), items.len());
    let included = |r: u8| r == PINNED || r == MIN_ITEMS || r == SELECTED;
    let mut used: u128 = 0;
    let mut src_used = vec![0u128; nsrc];
    for (it, &r) in items.iter().zip(&reasons) {
        assert!(r <= BUDGET);
        assert_eq!(it.pinned, r == PINNED);
        if included(r) {
            used += u128::from(it.tokens);
            src_used[it.source] += u128::from(it.tokens);
        }
    }
    if items.iter().all(|it| !it.pinned) {
        assert!(
            used <= u128::from(input.budget),
            "{used} > {}",
            input.budget
        );
        if mins.iter().all(|&m| m == 0) {
            for (s, cap) in caps.iter().enumerate() {
                if let Some(cap) = cap {
                    assert!(src_used[s] <= u128::from(*cap));
                }
            }
        }
    }
});
