//! Calibration of one build's raw scores, every source in one pass (`stages/calibrate.py`; the
//! spec is `calibrate_scores` in `kernels/build_reference.py`, over the numpy functions the
//! stage always used).
//!
//! Per source: `rank` (`1 - r/n`, ties share the best rank), `minmax`, `blend` (their mean)
//! or `raw`, times the source's weight; then each marked item's signals: stale, then
//! human-reviewed, each a factor. Every step is the same IEEE operation numpy performs
//! element-wise, so the results are bit-identical. `zscore` is not here: numpy's mean and std
//! sum pairwise and its `exp` is its own SIMD routine, so the stage computes those sources with
//! numpy and passes their values as `raw`.
//!
//! Native because the numpy version cost ~15 numpy calls per source per build (about 0.3 ms of
//! a 1k build, CPU time) and a Python loop over the marked items.

pub const RANK: u8 = 0;
pub const MINMAX: u8 = 1;
pub const BLEND: u8 = 2;
pub const RAW: u8 = 3;

/// Signal bits of a marked item: stale, human-reviewed.
pub const STALE: u8 = 1;
pub const REVIEWED: u8 = 2;

/// `1 - r/n` for each value, where `r` is the 0-based position of the first value equal to it
/// in the values sorted descending (numpy's stable argsort of `-a`).
fn rank_into(values: &[f64], out: &mut [f64]) {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    // stable, so equal values keep their order; only the start of each run is read anyway
    order.sort_by(|&x, &y| {
        values[y]
            .partial_cmp(&values[x])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut first = 0usize;
    for p in 0..n {
        if p > 0 && values[order[p]] != values[order[p - 1]] {
            first = p;
        }
        out[order[p]] = 1.0 - first as f64 / n as f64;
    }
}

fn minmax_into(values: &[f64], out: &mut [f64]) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (o, &v) in out.iter_mut().zip(values) {
        *o = if hi == lo { 1.0 } else { (v - lo) / (hi - lo) };
    }
}

/// One source's normalised values.
pub fn normalise(values: &[f64], mode: u8) -> Vec<f64> {
    let mut out = vec![0.0; values.len()];
    if values.is_empty() {
        return out;
    }
    match mode {
        RANK => rank_into(values, &mut out),
        MINMAX => minmax_into(values, &mut out),
        BLEND => {
            let mut mm = vec![0.0; values.len()];
            rank_into(values, &mut out);
            minmax_into(values, &mut mm);
            for (o, m) in out.iter_mut().zip(mm) {
                *o = (*o + m) / 2.0;
            }
        }
        _ => out.copy_from_slice(values),
    }
    out
}

pub struct Options<'a> {
    /// Per source index: its mode and its weight.
    pub modes: &'a [u8],
    pub weights: &'a [f64],
    /// `(item, signal bits)` of the items that carry a signal, and the two factors.
    pub marks: &'a [(usize, u8)],
    pub stale_factor: f64,
    pub reviewed_factor: f64,
}

/// The calibrated score of every item; `source[i]` indexes `opt.modes` and `opt.weights`.
/// The caller checks that every source index and mark is in range.
pub fn calibrate(raw: &[f64], source: &[usize], opt: &Options) -> Vec<f64> {
    let nsrc = opt.modes.len();
    // members of each source in candidate order, by a counting pass
    let mut starts = vec![0usize; nsrc + 1];
    for &s in source {
        starts[s + 1] += 1;
    }
    for s in 0..nsrc {
        starts[s + 1] += starts[s];
    }
    let mut fill = starts.clone();
    let mut members = vec![0usize; source.len()];
    for (i, &s) in source.iter().enumerate() {
        members[fill[s]] = i;
        fill[s] += 1;
    }
    let mut out = vec![0.0; raw.len()];
    let mut values = Vec::new();
    for s in 0..nsrc {
        let idx = &members[starts[s]..starts[s + 1]];
        if idx.is_empty() {
            continue;
        }
        values.clear();
        values.extend(idx.iter().map(|&i| raw[i]));
        let w = opt.weights[s];
        for (&i, v) in idx.iter().zip(normalise(&values, opt.modes[s])) {
            // + 0.0: a zero is +0.0 (numpy's min and max pick either zero, by SIMD lane, so
            // minmax's sign of zero is not reproducible; no comparison tells them apart)
            out[i] = v * w + 0.0;
        }
    }
    for &(i, bits) in opt.marks {
        if bits & STALE != 0 {
            out[i] *= opt.stale_factor;
        }
        if bits & REVIEWED != 0 {
            out[i] *= opt.reviewed_factor;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_ties_share_the_best_rank() {
        assert_eq!(
            normalise(&[3.0, 9.0, 9.0, 1.0], RANK),
            vec![0.5, 1.0, 1.0, 0.25]
        );
        assert_eq!(normalise(&[0.0, -0.0], RANK), vec![1.0, 1.0]);
    }

    #[test]
    fn minmax_blend_and_equal_values() {
        assert_eq!(normalise(&[2.0, 4.0, 3.0], MINMAX), vec![0.0, 1.0, 0.5]);
        assert_eq!(normalise(&[5.0, 5.0], MINMAX), vec![1.0, 1.0]);
        assert_eq!(normalise(&[2.0, 4.0], BLEND), vec![0.25, 1.0]);
        assert_eq!(normalise(&[7.5], RAW), vec![7.5]);
    }

    #[test]
    fn per_source_weight_then_signals() {
        let opt = Options {
            modes: &[RANK, RAW],
            weights: &[2.0, 1.0],
            marks: &[(0, STALE), (3, STALE | REVIEWED)],
            stale_factor: 0.5,
            reviewed_factor: 4.0,
        };
        let out = calibrate(&[1.0, 0.3, 2.0, 0.8], &[0, 1, 0, 1], &opt);
        // source 0: ranks 1 - 1/2 and 1, times 2; source 1 raw; then the marks
        assert_eq!(out, vec![0.5, 0.3, 2.0, 0.8 * 0.5 * 4.0]);
    }
}
