//! Okapi BM25 over the kernel's words (see `Bm25Index` in the reference for the formula and the
//! exact order of floating-point operations, which both backends follow).

use crate::text::words;
use std::collections::{HashMap, HashSet};

pub struct Bm25Index {
    k1: f64,
    b: f64,
    lengths: Vec<u64>,
    avgdl: f64,
    postings: HashMap<String, Vec<(u32, u32)>>,
}

impl Bm25Index {
    pub fn new<S: AsRef<str>>(docs: &[S], k1: f64, b: f64) -> Self {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(docs.len());
        for (d, doc) in docs.iter().enumerate() {
            let ws = words(doc.as_ref());
            lengths.push(ws.len() as u64);
            let mut counts: HashMap<String, u32> = HashMap::new();
            for w in ws {
                *counts.entry(w).or_insert(0) += 1;
            }
            for (w, tf) in counts {
                postings.entry(w).or_default().push((d as u32, tf));
            }
        }
        let n = lengths.len();
        let total: u64 = lengths.iter().sum();
        let avgdl = if n > 0 { total as f64 / n as f64 } else { 0.0 };
        Bm25Index {
            k1,
            b,
            lengths,
            avgdl,
            postings,
        }
    }

    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Cost: O(query words + matched postings + hits * log(hits)), plus one zeroed score per
    /// document and one flag. Distinct query words are found with a hash set (a `Vec::contains` here once
    /// made a 1.2 MB query of distinct words take 21 s: quadratic in the distinct words).
    pub fn search(&self, query: &str, limit: usize) -> Vec<(usize, f64)> {
        let n = self.lengths.len() as f64;
        let mut scores = vec![0.0f64; self.lengths.len()];
        let mut hit = vec![false; self.lengths.len()];
        let mut hits: Vec<u32> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        // terms in order of first appearance, so each score sums in the reference's order
        for term in words(query) {
            let Some(posting) = self.postings.get(&term) else {
                continue;
            };
            if !seen.insert(term) {
                continue;
            }
            let df = posting.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(d, tf) in posting {
                if !std::mem::replace(&mut hit[d as usize], true) {
                    hits.push(d);
                }
                let tf = tf as f64;
                let dl = self.lengths[d as usize] as f64;
                let denom = tf + self.k1 * (1.0 - self.b + self.b * dl / self.avgdl);
                scores[d as usize] += idf * (tf * (self.k1 + 1.0)) / denom;
            }
        }
        let mut ranked: Vec<(usize, f64)> = hits
            .into_iter()
            .map(|d| (d as usize, scores[d as usize]))
            .collect();
        ranked.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.0.cmp(&b.0))
        });
        ranked.truncate(limit);
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_by_term_frequency() {
        let idx = Bm25Index::new(
            &["refund policy", "shipping times", "refund refund"],
            1.2,
            0.75,
        );
        let r = idx.search("refund", 5);
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![2, 0]);
        assert!(idx.search("nothing", 5).is_empty());
    }
}
