//! The calibrated estimator on arbitrary bytes (the bindings pass UTF-8 or surrogatepass
//! bytes; anything else must not panic either) and costs: no panic or overflow, at most
//! MAX_COUNT, a batch equals its texts one by one, an empty text costs 0.
#![no_main]

use ctxsieve::calibrated::{estimate, estimate_batch, KnownWords, MAX_COST, NUM_FEATURES};
use ctxsieve::limits::MAX_COUNT;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Vec<Vec<u8>>, [u32; NUM_FEATURES], Vec<u8>)| {
    let (texts, raw_costs, known) = input;
    let costs: [u64; NUM_FEATURES] = raw_costs.map(|c| u64::from(c) % (MAX_COST + 1));
    let known = KnownWords::from_le_bytes(&known[..known.len() / 4 * 4]).ok();
    let batch = estimate_batch(&texts, &costs, known.as_ref());
    assert_eq!(batch.len(), texts.len());
    for (t, &e) in texts.iter().zip(&batch) {
        assert_eq!(e, estimate(t, &costs, known.as_ref()));
        assert!(e <= MAX_COUNT);
        if t.is_empty() {
            assert_eq!(e, 0);
        }
    }
});
