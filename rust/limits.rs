//! The kernels' numeric limits: the same values as `python/ctxsieve/kernels/limits.py`, which
//! documents them (a test holds the two equal through the constants the native module exports).

/// The largest token count, budget, cap, minimum or search limit: `i64::MAX`. Sums of counts
/// are kept in `u128`, so no total can wrap or saturate into a wrong comparison.
pub const MAX_COUNT: u64 = i64::MAX as u64;

/// The largest `beta` of the budget fill: `max(tokens, 1) ^ beta` stays finite for every count
/// up to `MAX_COUNT` (2^63^16 = 2^1008 < f64::MAX).
pub const MAX_BETA: f64 = 16.0;

/// An estimate capped at `MAX_COUNT`: every estimate is a valid token count.
pub fn saturate(n: u128) -> u64 {
    n.min(MAX_COUNT as u128) as u64
}

/// `ceil(x)` of a non-negative float estimate, capped at `MAX_COUNT` (`MAX_COUNT as f64` rounds
/// up to 2^63, so every float at or above it is out of range).
pub fn saturate_f64(x: f64) -> u64 {
    let c = x.ceil();
    if c >= MAX_COUNT as f64 {
        MAX_COUNT
    } else {
        c as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturation_is_exact_below_the_limit() {
        assert_eq!(saturate(u128::MAX), MAX_COUNT);
        assert_eq!(saturate(MAX_COUNT as u128), MAX_COUNT);
        assert_eq!(saturate(5), 5);
        assert_eq!(saturate_f64(f64::INFINITY), MAX_COUNT);
        assert_eq!(saturate_f64(9.223_372_036_854_776e18), MAX_COUNT);
        assert_eq!(
            saturate_f64(9.223_372_036_854_775e18),
            9_223_372_036_854_774_784
        );
        assert_eq!(
            saturate_f64(9.223_372_036_854_774e18),
            9_223_372_036_854_773_760
        );
        assert_eq!(saturate_f64(2.1), 3);
        assert_eq!(saturate_f64(0.0), 0);
    }

    #[test]
    fn the_densest_beta_stays_finite() {
        assert!((MAX_COUNT as f64).powf(MAX_BETA).is_finite());
    }
}
