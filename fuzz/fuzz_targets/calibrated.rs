//! The calibrated estimator on arbitrary bytes (the bindings pass UTF-8 or surrogatepass
//! bytes; anything else must not panic either) and costs: no panic or overflow, at most
//! MAX_COUNT, a batch equals its texts one by one, an empty text costs 0, two bounds estimate
//! the smaller of their estimates.
#![no_main]

use ctxsieve::calibrated::{estimate, estimate_batch, KnownWords, MAX_COST, NUM_FEATURES};
use ctxsieve::limits::MAX_COUNT;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Vec<Vec<u8>>, [u32; NUM_FEATURES], [u32; NUM_FEATURES], Vec<u8>)| {
    let (texts, raw_a, raw_b, known) = input;
    let a: [u64; NUM_FEATURES] = raw_a.map(|c| u64::from(c) % (MAX_COST + 1));
    let b: [u64; NUM_FEATURES] = raw_b.map(|c| u64::from(c) % (MAX_COST + 1));
    let known = KnownWords::from_le_bytes(&known[..known.len() / 4 * 4]).ok();
    let batch = estimate_batch(&texts, &[a, b], known.as_ref());
    assert_eq!(batch.len(), texts.len());
    for (t, &e) in texts.iter().zip(&batch) {
        let (ea, eb) = (estimate(t, &[a], known.as_ref()), estimate(t, &[b], known.as_ref()));
        assert_eq!(e, ea.min(eb));
        assert!(e <= MAX_COUNT);
        if t.is_empty() {
            assert_eq!(e, 0);
        }
    }
});
