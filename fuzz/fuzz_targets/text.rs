//! Words, shingles, content hash and the byte estimate on any UTF-8 text: no panic, and the
//! properties the reference defines (words are non-empty runs of word characters, already
//! lower-cased; shingles sorted and distinct; a blank text has no content hash).
#![no_main]

use ctxsieve::limits::MAX_COUNT;
use ctxsieve::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (String, f64)| {
    let (s, bpt) = input;
    let words = text::words(&s);
    for w in &words {
        assert!(!w.is_empty());
        assert!(w.chars().all(text::is_word_char), "{w:?}");
        assert_eq!(text::words(w), vec![w.clone()], "a word lowers to itself");
    }
    let shingles = text::shingle_hashes(&s);
    assert!(shingles.windows(2).all(|p| p[0] < p[1]));
    assert_eq!(shingles.is_empty(), words.is_empty());
    let blank = s.chars().all(text::is_space_char);
    assert_eq!(text::content_hash(&s).is_none(), blank);
    if bpt.is_finite() && bpt > 0.0 {
        let est = text::estimate_tokens(s.len(), bpt);
        assert!(est <= MAX_COUNT);
        assert!(est >= text::estimate_tokens(s.len() / 2, bpt));
    }
});
