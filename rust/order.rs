//! The cache-first prompt order (see `cache_order` in the reference).

use std::cmp::Ordering;

pub struct Item<'a> {
    /// 0 stable, 1 session, 2 volatile
    pub stability: u8,
    pub history: bool,
    pub score: f64,
    pub source_rank: u64,
    pub order_key: &'a [u8],
    pub id: &'a [u8],
}

pub fn cache_order(items: &[Item]) -> Vec<usize> {
    let n = items.len();
    let block = |code: u8| {
        let mut v: Vec<usize> = (0..n)
            .filter(|&i| !items[i].history && items[i].stability == code)
            .collect();
        v.sort_by(|&a, &b| {
            let (x, y) = (&items[a], &items[b]);
            x.source_rank
                .cmp(&y.source_rank)
                .then_with(|| x.order_key.cmp(y.order_key))
                .then_with(|| x.id.cmp(y.id))
                .then_with(|| a.cmp(&b))
        });
        v
    };
    let mut out = block(0);
    out.extend(block(1));

    let mut volatile: Vec<usize> = (0..n)
        .filter(|&i| !items[i].history && items[i].stability == 2)
        .collect();
    volatile.sort_by(|&a, &b| {
        let (x, y) = (&items[a], &items[b]);
        y.score
            .partial_cmp(&x.score)
            .unwrap_or(Ordering::Equal)
            .then_with(|| x.id.cmp(y.id))
            .then_with(|| a.cmp(&b))
    });
    // best at the edges: ranks 0, 2, 4, ... from the front, 1, 3, 5, ... from the back
    out.extend(volatile.iter().step_by(2));
    let back: Vec<usize> = volatile.iter().skip(1).step_by(2).copied().collect();
    out.extend(back.into_iter().rev());

    let mut history: Vec<usize> = (0..n).filter(|&i| items[i].history).collect();
    history.sort_by(|&a, &b| {
        items[a]
            .order_key
            .cmp(items[b].order_key)
            .then_with(|| a.cmp(&b))
    });
    out.extend(history);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(stability: u8, score: f64, id: &'static str) -> Item<'static> {
        Item {
            stability,
            history: false,
            score,
            source_rank: 0,
            order_key: b"",
            id: id.as_bytes(),
        }
    }

    #[test]
    fn edges_first() {
        let items = [
            item(2, 0.9, "a"),
            item(0, 0.1, "s"),
            item(2, 0.5, "b"),
            item(2, 0.7, "c"),
            item(2, 0.6, "d"),
        ];
        // volatile ranked a(0.9) c(0.7) d(0.6) b(0.5): a, d ... c at the back
        assert_eq!(cache_order(&items), vec![1, 0, 4, 2, 3]);
    }

    #[test]
    fn history_last_in_key_order() {
        let mut h1 = item(2, 0.0, "h1");
        h1.history = true;
        h1.order_key = b"2";
        let mut h0 = item(0, 0.0, "h0");
        h0.history = true;
        h0.order_key = b"1";
        let items = [h1, item(1, 0.0, "x"), h0];
        assert_eq!(cache_order(&items), vec![1, 2, 0]);
    }
}
