//! The ScoredKnapsack budget fill (see `fill_budget` in the reference for the phases).

pub const PINNED: u8 = 0;
pub const MIN_ITEMS: u8 = 1;
pub const SELECTED: u8 = 2;
pub const DEPRECATED: u8 = 3;
pub const BELOW_FLOOR: u8 = 4;
pub const SOURCE_CAP: u8 = 5;
pub const BUDGET: u8 = 6;
const UNDECIDED: u8 = u8::MAX;

pub struct Item<'a> {
    pub tokens: u64,
    pub score: f64,
    pub source: usize,
    pub pinned: bool,
    pub deprecated: bool,
    pub id: &'a [u8],
}

pub struct Options<'a> {
    pub budget: u64,
    pub beta: f64,
    pub min_score: Option<f64>,
    /// Token cap per source, `None` for no cap.
    pub caps: &'a [Option<u64>],
    pub min_items: &'a [u64],
    pub include_deprecated: bool,
}

/// A key that orders finite floats descending as plain integers: the largest value gets the
/// smallest key, and -0.0 the key of 0.0 (they compare equal, so their ties go to the id).
/// Sorting `(key, index)` pairs unstably, the ids read only where keys tie, beat the stable
/// sort of indices by a closure over `partial_cmp` (which the sort called ~n log n times
/// through two indirections): see `sort_desc`.
fn desc_key(v: f64) -> u64 {
    let bits = (v + 0.0).to_bits();
    let ascending = if bits >> 63 == 0 {
        bits | 1 << 63
    } else {
        !bits
    };
    !ascending
}

/// `order` (item indices) sorted by value descending, then id, then index: a total order, so
/// the unstable sort gives exactly the stable sort's result.
fn sort_desc(items: &[Item], order: Vec<usize>, value: impl Fn(usize) -> f64) -> Vec<usize> {
    let mut keyed: Vec<(u64, usize)> = order.into_iter().map(|i| (desc_key(value(i)), i)).collect();
    keyed.sort_unstable_by(|&(ka, a), &(kb, b)| {
        ka.cmp(&kb)
            .then_with(|| items[a].id.cmp(items[b].id))
            .then_with(|| a.cmp(&b))
    });
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// One reason code per item.
pub fn fill(items: &[Item], opt: &Options) -> Vec<u8> {
    let n = items.len();
    let nsrc = opt.caps.len();
    let mut st = State {
        reasons: vec![UNDECIDED; n],
        used: 0,
        src_used: vec![0; nsrc],
        src_count: vec![0; nsrc],
    };

    for (i, it) in items.iter().enumerate() {
        if it.pinned {
            st.take(items, i, PINNED);
        }
    }
    if !opt.include_deprecated {
        for (reason, it) in st.reasons.iter_mut().zip(items) {
            if *reason == UNDECIDED && it.deprecated {
                *reason = DEPRECATED;
            }
        }
    }

    for s in 0..nsrc {
        if opt.min_items[s] <= st.src_count[s] {
            continue;
        }
        let best: Vec<usize> = (0..n)
            .filter(|&i| items[i].source == s && st.reasons[i] == UNDECIDED)
            .collect();
        for i in sort_desc(items, best, |i| items[i].score) {
            if st.src_count[s] >= opt.min_items[s] {
                break;
            }
            if st.used + items[i].tokens as u128 <= opt.budget as u128 {
                st.take(items, i, MIN_ITEMS);
            }
        }
    }

    let value = |i: usize| {
        if opt.beta == 0.0 {
            items[i].score
        } else {
            items[i].score / (items[i].tokens.max(1) as f64).powf(opt.beta)
        }
    };
    let rest: Vec<usize> = (0..n).filter(|&i| st.reasons[i] == UNDECIDED).collect();
    for i in sort_desc(items, rest, value) {
        let it = &items[i];
        let s = it.source;
        if opt.min_score.is_some_and(|floor| it.score < floor) {
            st.reasons[i] = BELOW_FLOOR;
        } else if opt.caps[s].is_some_and(|cap| st.src_used[s] + it.tokens as u128 > cap as u128) {
            st.reasons[i] = SOURCE_CAP;
        } else if st.used + it.tokens as u128 > opt.budget as u128 {
            st.reasons[i] = BUDGET;
        } else {
            st.take(items, i, SELECTED);
        }
    }
    st.reasons
}

/// Token totals are u128: exact for any number of u64 counts a machine can hold (a saturating
/// u64 once let three items of 2^63-1 tokens into a budget of u64::MAX).
struct State {
    reasons: Vec<u8>,
    used: u128,
    src_used: Vec<u128>,
    src_count: Vec<u64>,
}

impl State {
    fn take(&mut self, items: &[Item], i: usize, reason: u8) {
        let (t, s) = (items[i].tokens, items[i].source);
        self.reasons[i] = reason;
        self.used += t as u128;
        self.src_used[s] += t as u128;
        self.src_count[s] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(tokens: u64, score: f64, source: usize, id: &str) -> Item<'_> {
        Item {
            tokens,
            score,
            source,
            pinned: false,
            deprecated: false,
            id: id.as_bytes(),
        }
    }

    fn opts<'a>(budget: u64, caps: &'a [Option<u64>], min_items: &'a [u64]) -> Options<'a> {
        Options {
            budget,
            beta: 0.0,
            min_score: None,
            caps,
            min_items,
            include_deprecated: false,
        }
    }

    #[test]
    fn skips_and_continues() {
        let items = [
            item(8, 0.9, 0, "a"),
            item(5, 0.8, 0, "b"),
            item(4, 0.7, 0, "c"),
        ];
        assert_eq!(
            fill(&items, &opts(12, &[None], &[0])),
            vec![SELECTED, BUDGET, SELECTED]
        );
    }

    #[test]
    fn caps_floor_and_minimums() {
        let items = [
            item(5, 0.9, 0, "a"),
            item(5, 0.8, 0, "b"),
            item(5, 0.1, 1, "c"),
            item(1, 0.05, 1, "d"),
        ];
        let mut o = opts(100, &[Some(5), None], &[0, 1]);
        o.min_score = Some(0.2);
        // the minimum of source 1 takes its best item despite the floor; the rest is judged
        assert_eq!(
            fill(&items, &o),
            vec![SELECTED, SOURCE_CAP, MIN_ITEMS, BELOW_FLOOR]
        );
    }

    #[test]
    fn pinned_and_deprecated() {
        let mut p = item(3, 0.0, 0, "p");
        p.pinned = true;
        let mut d = item(1, 1.0, 0, "d");
        d.deprecated = true;
        let items = [p, d, item(1, 0.5, 0, "x")];
        assert_eq!(
            fill(&items, &opts(4, &[None], &[0])),
            vec![PINNED, DEPRECATED, SELECTED]
        );
    }

    #[test]
    fn totals_do_not_saturate() {
        let big = i64::MAX as u64;
        let items = [
            item(big, 1.0, 0, "a"),
            item(big, 1.0, 0, "b"),
            item(big, 1.0, 0, "c"),
        ];
        // 2 * (2^63 - 1) fits u64::MAX, a third item does not
        assert_eq!(
            fill(&items, &opts(u64::MAX, &[None], &[0])),
            vec![SELECTED, SELECTED, BUDGET]
        );
        assert_eq!(
            fill(&items, &opts(u64::MAX, &[Some(u64::MAX)], &[3])),
            vec![MIN_ITEMS, MIN_ITEMS, SOURCE_CAP]
        );
    }

    #[test]
    fn keys_order_floats_descending_and_zeros_tie() {
        let values = [
            f64::MAX,
            1.5,
            1.0,
            1e-300,
            0.0,
            -0.0,
            -1e-300,
            -2.0,
            f64::MIN,
        ];
        for w in values.windows(2) {
            if w[0] == w[1] {
                assert_eq!(desc_key(w[0]), desc_key(w[1]));
            } else {
                assert!(desc_key(w[0]) < desc_key(w[1]), "{} before {}", w[0], w[1]);
            }
        }
        // equal scores, -0.0 among them, fall back to the id
        let items = [
            item(1, -0.0, 0, "b"),
            item(1, 0.0, 0, "a"),
            item(1, 0.5, 0, "c"),
        ];
        assert_eq!(
            sort_desc(&items, vec![0, 1, 2], |i| items[i].score),
            vec![2, 1, 0]
        );
    }

    #[test]
    fn beta_prefers_density() {
        let items = [item(100, 1.0, 0, "big"), item(10, 0.5, 0, "small")];
        let mut o = opts(100, &[None], &[0]);
        o.beta = 1.0;
        assert_eq!(fill(&items, &o), vec![BUDGET, SELECTED]);
    }
}
