//! BM25 on arbitrary documents and queries: no panic; hits are distinct documents that share a
//! word with the query, with finite positive scores, best first, at most `limit` of them.
#![no_main]

use ctxsieve::bm25::Bm25Index;
use ctxsieve::text::words;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Vec<String>, String, u8, u8, u8)| {
    let (docs, query, limit, k1, b) = input;
    // the bindings allow k1 > 0 finite and b in [0, 1]
    let k1 = (f64::from(k1) + 1.0) / 32.0;
    let b = f64::from(b) / 255.0;
    let index = Bm25Index::new(&docs, k1, b);
    assert_eq!(index.len(), docs.len());
    let hits = index.search(&query, limit as usize);
    assert!(hits.len() <= limit as usize);
    let q = words(&query);
    let mut seen = vec![false; docs.len()];
    for &(d, s) in &hits {
        assert!(!std::mem::replace(&mut seen[d], true));
        assert!(s.is_finite() && s > 0.0, "{s}");
        assert!(words(&docs[d]).iter().any(|w| q.contains(w)));
    }
    assert!(hits
        .windows(2)
        .all(|p| p[0].1 > p[1].1 || (p[0].1 == p[1].1 && p[0].0 < p[1].0)));
});
