//! The exact overlap test of dedupe's verification, made cheap for copies of a template.
//!
//! When most candidates are one template with a few words changed, the copies are close to the
//! threshold of each other but mostly below it, so prefix filtering cannot prune them: each copy
//! is verified against nearly every kept copy, and that verification is the cost. Groups are
//! numbered in the global order (`dedupe_groups::shared_groups`), so a template's shingles, held
//! by about the same number of items, get neighbouring numbers: a copy's ~120 shared shingles
//! fill two or three 64-bit words. The visited item's groups are set in a bitmap (`Marks`), and
//! an item whose groups are dense (`Blocks`) is tested a word at a time: an AND-NOT and a
//! popcount per word instead of a lookup per shingle. Other items are tested a bit at a time in
//! the same bitmap (1/32 the size of the former per-group stamp array, so it stays in cache).
//!
//! Both tests stop as soon as more of the candidate's groups are missing than the needed
//! overlap allows, so the count is exact when it passes and the result is the same yes or no.

use crate::dedupe_groups::Groups;

/// An item's groups as `(word, bits)` pairs when they are dense enough to be worth it: at least
/// `MIN_PER_WORD` groups per word on average, so the pairs (12 bytes) cost at most 4 bytes per
/// group beyond the group list itself.
const MIN_PER_WORD: usize = 3;

pub struct Blocks {
    starts: Vec<u32>,
    words: Vec<u32>,
    bits: Vec<u64>,
}

impl Blocks {
    pub fn build(groups: &Groups, items: usize) -> Blocks {
        let mut starts = Vec::with_capacity(items + 1);
        starts.push(0u32);
        let (mut words, mut bits) = (Vec::new(), Vec::new());
        for r in 0..items {
            let mine = groups.of(r);
            let count = 1 + mine.windows(2).filter(|w| w[0] >> 6 != w[1] >> 6).count();
            if !mine.is_empty() && count * MIN_PER_WORD <= mine.len() {
                for &g in mine {
                    let word = g >> 6;
                    if words.last() != Some(&word) || words.len() == starts[r] as usize {
                        words.push(word);
                        bits.push(0u64);
                    }
                    *bits.last_mut().expect("pushed above") |= 1 << (g & 63);
                }
            }
            starts.push(words.len() as u32);
        }
        Blocks {
            starts,
            words,
            bits,
        }
    }

    fn of(&self, r: usize) -> (&[u32], &[u64]) {
        let range = self.starts[r] as usize..self.starts[r + 1] as usize;
        (&self.words[range.clone()], &self.bits[range])
    }
}

/// The groups of the item being visited, as a bitmap over all groups.
pub struct Marks {
    words: Vec<u64>,
}

impl Marks {
    pub fn new(groups: usize) -> Marks {
        Marks {
            words: vec![0; groups.div_ceil(64)],
        }
    }

    pub fn set(&mut self, mine: &[u32]) {
        for &g in mine {
            self.words[(g >> 6) as usize] |= 1 << (g & 63);
        }
    }

    pub fn clear(&mut self, mine: &[u32]) {
        for &g in mine {
            self.words[(g >> 6) as usize] = 0;
        }
    }

    /// Whether at least `o` of the groups of item `k` (`theirs`, `o <= theirs.len()`) are marked.
    pub fn holds_at_least(&self, blocks: &Blocks, k: usize, theirs: &[u32], o: usize) -> bool {
        let mut spare = theirs.len() - o; // how many of theirs may be missing
        let (words, bits) = blocks.of(k);
        if !words.is_empty() {
            for (&w, &b) in words.iter().zip(bits) {
                let missing = (b & !self.words[w as usize]).count_ones() as usize;
                if missing > spare {
                    return false;
                }
                spare -= missing;
            }
            return true;
        }
        for &g in theirs {
            if self.words[(g >> 6) as usize] >> (g & 63) & 1 == 0 {
                if spare == 0 {
                    return false;
                }
                spare -= 1;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(lists: &[&[u32]], count: usize) -> Groups {
        let mut item_starts = vec![0u32];
        let mut of_item = Vec::new();
        for l in lists {
            of_item.extend_from_slice(l);
            item_starts.push(of_item.len() as u32);
        }
        Groups {
            freq: vec![2; count],
            item_starts,
            of_item,
        }
    }

    #[test]
    fn dense_and_sparse_items_count_the_same_overlap() {
        let dense: Vec<u32> = (60..200).collect(); // 140 groups in 4 words
        let sparse: Vec<u32> = (0..40).map(|j| j * 97).collect(); // one per word
        let visited: Vec<u32> = (60..200)
            .filter(|g| g % 10 != 3)
            .chain([0, 97 * 5])
            .collect();
        let gs = groups(&[&dense, &sparse, &visited], 4000);
        let blocks = Blocks::build(&gs, 3);
        assert!(!blocks.of(0).0.is_empty() && blocks.of(1).0.is_empty());
        let mut marks = Marks::new(4000);
        marks.set(gs.of(2));
        for k in 0..2 {
            let theirs = gs.of(k);
            let overlap = theirs.iter().filter(|g| visited.contains(g)).count();
            assert!(overlap > 1 && overlap < theirs.len());
            for o in 0..=theirs.len() {
                assert_eq!(
                    marks.holds_at_least(&blocks, k, theirs, o),
                    o <= overlap,
                    "{k} {o}"
                );
            }
        }
        marks.clear(gs.of(2));
        assert!(marks.words.iter().all(|&w| w == 0));
    }
}
