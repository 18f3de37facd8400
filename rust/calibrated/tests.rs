//! Unit tests of the calibrated estimator (the hypothesis parity with the reference is in
//! tests/tokenizers/test_calibrated_parity.py).

use super::classes::{is_mark_before_word, letter2_at};
use super::features::ascii_letters_end;
use super::*;

fn named(text: &str) -> Vec<(usize, u64)> {
    features(text.as_bytes(), None)
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(i, &n)| (i, n))
        .collect()
}

#[test]
fn empty_text_has_no_features() {
    assert_eq!(features(b"", None), [0; NUM_FEATURES]);
    assert_eq!(estimate(b"", &[[1000; NUM_FEATURES]], None), 0);
}

#[test]
fn words_camel_case_and_spaces() {
    let f = features(b"Hi 42!", None);
    assert_eq!(f[WORD_START], 1);
    assert_eq!(f[DIGIT_RUN], 1);
    assert_eq!(f[PUNCT_RUN], 1);
    assert_eq!(features(b"getHTTPResponse", None)[WORD_START], 2);
    let f = features(b"a   b\n\tc", None);
    assert_eq!(
        (f[SPACE], f[SPACE_REPEAT], f[NEWLINE], f[OTHER_WS]),
        (1, 2, 1, 1)
    );
}

#[test]
fn a_tab_before_a_word_counts_in_ws_word() {
    // the last tab of an indentation, a table's separator, a two-byte letter after a tab
    let f = features(
        "\t\tif x\nLI\tLiechtenstein\t42\t\u{e9}t\u{e9}\t\u{a0}".as_bytes(),
        None,
    );
    assert_eq!((f[OTHER_WS], f[WS_WORD]), (6, 3));
    // not before a digit, a mark, a space or the end; CR and FF count as tabs do
    assert_eq!(features(b"a\t1\t(\t \t", None)[WS_WORD], 0);
    assert_eq!(features(b"a\rb\x0cc", None)[WS_WORD], 2);
}

#[test]
fn a_space_before_a_digit_or_a_control_counts_in_space_break() {
    // once a run of spaces, after a mark, a letter or a digit, and before ESC, NUL and DEL
    let f = features(b"[2, 2, 6]  a    12 b 3 \x1b[0m \x00 \x7f", None);
    assert_eq!((f[SPACE], f[SPACE_REPEAT], f[SPACE_BREAK]), (9, 4, 7));
    // not before a letter, a mark, a non-ASCII digit or the end; not a tab or a newline
    assert_eq!(
        features("a (1\t2\n3 \u{663} ".as_bytes(), None)[SPACE_BREAK],
        0
    );
}

#[test]
fn mixed_runs_replace_their_regular_counts() {
    assert_eq!(
        named("a1b2c3"),
        // its three digit runs are still pre-tokenizer pieces
        vec![(DOC, 1), (MIXED_CHAR, 6), (MIXED_RUN, 1), (DIGIT_PIECE, 3)]
    );
    // too short to be mixed: counted as letters and digits
    let f = features(b"v2x", None);
    assert_eq!((f[LOWER], f[DIGIT], f[MIXED_RUN]), (2, 1, 0));
}

#[test]
fn multibyte_classes_by_lead_byte() {
    let f = features("é中あ😀\u{2014}Жक".as_bytes(), None);
    assert_eq!(
        (f[U2_LATIN], f[U3_CJK], f[U3_KANA], f[U4], f[U3_SYMBOL]),
        (1, 1, 1, 1, 1)
    );
    assert_eq!((f[U2_CYRILLIC], f[U3_DEVA_THAI], f[U3_INDIC]), (1, 1, 0));
    // Devanagari and Thai by the second byte after 0xE0; Bengali and Tamil stay u3_indic
    let f = features("कกবத\u{0800}".as_bytes(), None);
    assert_eq!((f[U3_DEVA_THAI], f[U3_INDIC]), (2, 3));
    // Hebrew (and the end of Armenian) by lead bytes 0xD6..0xD7; Arabic stays u2_rtl
    let f = features("שלום عرب\u{0580}".as_bytes(), None);
    assert_eq!((f[U2_HEBREW], f[U2_RTL], f[WORD_START]), (5, 3, 2));
    // a truncated 0xE0 sequence never panics
    let _ = features(&[0xE0], None);
    let f = features("α한ﾊ\u{1000}\u{0540}".as_bytes(), None);
    assert_eq!(
        (
            f[U2_GREEK],
            f[U3_HANGUL],
            f[U3_FULLWIDTH],
            f[U3_OTHER],
            f[U2_RTL]
        ),
        (1, 1, 1, 1, 1)
    );
    // a lone surrogate's surrogatepass form (0xED 0xA0 0x80) is one u3_hangul
    assert_eq!(features(&[0xED, 0xA0, 0x80], None)[U3_HANGUL], 1);
    // malformed input never panics
    let _ = features(&[0x80, 0xFF, 0xE4], None);
}

#[test]
fn repeated_marks() {
    let f = features(b"a ==== b !=!", None);
    assert_eq!((f[PUNCT], f[PUNCT_REPEAT], f[PUNCT_RUN]), (4, 3, 2));
}

#[test]
fn rare_bigrams() {
    assert_eq!(
        features(b"Flat is better than nested.", None)[RARE_BIGRAM],
        1
    );
    assert_eq!(
        features(b"Syng vf orggre guna arfgrq.", None)[RARE_BIGRAM],
        5
    );
}

fn known(keys: &[&str]) -> KnownWords {
    let bytes: Vec<u8> = keys
        .iter()
        .flat_map(|k| word_hash(k.as_bytes()).to_le_bytes())
        .collect();
    KnownWords::from_le_bytes(&bytes).unwrap()
}

#[test]
fn known_words_replace_their_letters() {
    let k = known(&[" the", "cat", "canción"]);
    let f = features(b" the cat", Some(&k));
    // " cat" is not in the set (only the bare "cat" is), so it is counted letter by letter
    assert_eq!((f[KNOWN_WORD], f[LOWER], f[SPACE]), (1, 3, 2));
    assert_eq!(features(b"cat, the", Some(&k))[KNOWN_WORD], 2);
    // a word that touches a digit is never looked up
    assert_eq!(features(b"cat1 2cat", Some(&k))[KNOWN_WORD], 0);
    // two-byte letters belong to the word; the class before the next character is the
    // word's last one ("n"), so "!" starts a punctuation run as after any word
    let f = features("canción!".as_bytes(), Some(&k));
    assert_eq!((f[KNOWN_WORD], f[U2_LATIN], f[PUNCT_RUN]), (1, 0, 1));
    // no set, or an empty one: the plain features
    assert_eq!(
        features(b" the cat", Some(&KnownWords::default())),
        features(b" the cat", None)
    );
    assert_eq!(KnownWords::from_le_bytes(&[1, 2, 3]).unwrap_err(), 3);
    assert!(letter2_at("é".as_bytes(), 0) && !letter2_at("×".as_bytes(), 0));
}

fn tables(extra: &[(u32, u8)], group: i128) -> KnownWords {
    let mut t = vec![0u8; EXTRA_TABLE_BYTES];
    for &(cp, v) in extra {
        t[(cp >> 2) as usize] |= v << ((cp & 3) * 2);
    }
    KnownWords::default()
        .with_tables(Some(&t), group, None, None)
        .unwrap()
}

#[test]
fn digit_pieces_follow_the_group() {
    let f = |text: &str, group: i128| {
        let k = KnownWords::default()
            .with_tables(None, group, None, None)
            .unwrap();
        features(text.as_bytes(), Some(&k))[DIGIT_PIECE]
    };
    // \p{N}{1,3}: 171 279 142 100 0; one digit a piece; the whole run
    assert_eq!(f("1712791421000", 3), 5);
    assert_eq!(f("1712791421000", 1), 13);
    assert_eq!(f("1712791421000", 0), 1);
    // runs inside alphanumeric (mixed) runs count too, each run on its own
    assert_eq!(f("id ab12345cd9 7", 3), 4);
    // no set at all: one piece a run
    assert_eq!(features(b"12 3456", None)[DIGIT_PIECE], 2);
}

#[test]
fn char_extra_reads_the_table() {
    let k = tables(&[(0x4E2D, 2), (0xF1, 1), (0x1F600, 3)], 0);
    let f = features("中あ😀 ñ".as_bytes(), Some(&k));
    assert_eq!(f[CHAR_EXTRA], 2 + 3 + 1); // あ is not in the table: 0
                                          // beyond the table, and without one: the UTF-8 length less one
    assert_eq!(features("\u{20000}".as_bytes(), Some(&k))[CHAR_EXTRA], 3);
    assert_eq!(features("é中😀".as_bytes(), None)[CHAR_EXTRA], 6);
    // truncated sequences and stray continuation bytes count nothing and never panic
    assert_eq!(features(&[0xE4, 0xB8], Some(&k))[CHAR_EXTRA], 0);
    assert_eq!(features(&[0x80, 0xBF, 0xF8, 0xFF], None)[CHAR_EXTRA], 0);
    let _ = features(&[0xF4, 0x8F, 0xBF, 0xBF, 0xFF, 0xFF, 0xFF, 0xFF], Some(&k));
}

#[test]
fn punct_breaks_are_pairs_no_token_holds() {
    let mut pairs = vec![0u8; PAIR_TABLE_BYTES];
    for (a, b) in [(b'(', b')'), (b')', b';')] {
        let bit = usize::from(a) << 7 | usize::from(b);
        pairs[bit >> 3] |= 1 << (bit & 7);
    }
    let k = KnownWords::default()
        .with_tables(None, 0, Some(&pairs), None)
        .unwrap();
    // "();" holds both pairs; ";(" and "|&" are not held, and "a" breaks the run
    assert_eq!(features(b"(); ;( |&a)", Some(&k))[PUNCT_BREAK], 2);
    // without a table every pair of marks is a boundary
    assert_eq!(features(b"(); ;( |&a)", None)[PUNCT_BREAK], 4);
}

#[test]
fn tables_are_checked() {
    let err = KnownWords::default()
        .with_tables(Some(&[0; 7]), 0, None, None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "known words: char_extra: expected 32768 bytes (2 bits per code point below U+20000), got 7"
    );
    let err = KnownWords::default()
        .with_tables(None, 17, None, None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "known words: digit_group: must be in [0, 16], got 17"
    );
    assert!(KnownWords::default()
        .with_tables(None, -1, None, None)
        .is_err());
    let err = KnownWords::default()
        .with_tables(None, 0, Some(&[0; 3]), None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "known words: punct_pairs: expected 2048 bytes (a bit per pair of ASCII characters), got 3"
    );
    let err = KnownWords::default()
        .with_tables(None, 0, None, Some(&[0; 5]))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "known words: cjk_pairs: expected 65536 bytes (a bit per hashed pair of CJK characters), got 5"
    );
}

#[test]
fn known_words_table_holds_exactly_its_keys() {
    // contiguous keys (which share their low bits in runs), the key 0 and duplicates
    let keys: Vec<u32> = (0..50_000u32).chain([7, 0, u32::MAX]).collect();
    let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    let k = KnownWords::from_le_bytes(&bytes).unwrap();
    assert_eq!(k.len(), 50_001);
    assert!((0..50_000u32).all(|h| k.contains(h)) && k.contains(u32::MAX));
    assert!((50_000..60_000u32).all(|h| !k.contains(h)));
    let empty = KnownWords::default();
    assert!(empty.is_empty() && !empty.contains(0) && !empty.contains(1));
}

#[test]
fn ascii_letter_runs_end_where_a_byte_loop_says() {
    let text = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{ \x80\xc3\xa9z09_-zz";
    for i in 0..text.len() {
        let mut j = i;
        while j < text.len() && text[j].is_ascii_alphabetic() {
            j += 1;
        }
        assert_eq!(ascii_letters_end(text, i), j, "from {i}");
    }
    for b in 0..=255u8 {
        let mut t = [b'a'; 17];
        t[9] = b;
        let want = if b.is_ascii_alphabetic() { 17 } else { 9 };
        assert_eq!(ascii_letters_end(&t, 0), want, "byte {b:#x}");
    }
}

#[test]
fn estimate_is_a_ceiling_of_fixed_point_costs() {
    let mut costs = [0u64; NUM_FEATURES];
    costs[DOC] = 500;
    costs[LOWER] = 250;
    assert_eq!(estimate(b"abc", &[costs], None), 2); // 500 + 750 = 1250 -> 2
    assert_eq!(estimate(b"ab", &[costs], None), 1); // 1000 -> 1
    costs[U4] = MAX_COST;
    assert_eq!(
        estimate_batch(&["😀".as_bytes()], &[costs], None),
        vec![1001]
    );
}

#[test]
fn several_bounds_estimate_their_minimum() {
    let mut prose = [0u64; NUM_FEATURES];
    prose[DOC] = 1000;
    prose[LOWER] = 200; // cheap letters, dear digits
    prose[DIGIT] = 900;
    let mut numbers = [0u64; NUM_FEATURES];
    numbers[DOC] = 1000;
    numbers[LOWER] = 700;
    numbers[DIGIT] = 300;
    let both = [prose, numbers];
    // each text takes the bound that prices it lower, rounded up once
    assert_eq!(estimate(b"abcdefghij", &both, None), 3); // min(3000, 8000)
    assert_eq!(estimate(b"0123456789", &both, None), 4); // min(10000, 4000)
    assert_eq!(estimate(b"abcde 01234", &both, None), 6); // min(6500, 6000); spaces cost 0
    assert_eq!(estimate(b"", &both, None), 0);
    assert_eq!(estimate(b"abc", &[], None), 0);
    assert_eq!(
        estimate_batch(&[&b"abcdefghij"[..], b"0123456789"], &both, None),
        vec![3, 4]
    );
}

#[test]
fn cost_checks_mirror_the_reference() {
    assert_eq!(
        check_costs(&[0; 3], None).unwrap_err().to_string(),
        "costs: expected 39 items (one per feature), got 3"
    );
    assert_eq!(
        check_costs(&[0; 3], Some(2)).unwrap_err().to_string(),
        "costs[2]: expected 39 items (one per feature), got 3"
    );
    assert_eq!(
        CostError::Bounds(9).to_string(),
        "costs: expected 1 to 8 cost vectors (bounds), got 9"
    );
    let mut c = [0i128; NUM_FEATURES];
    c[4] = -1;
    assert_eq!(
        check_costs(&c, None).unwrap_err().to_string(),
        "costs[4]: must be in [0, 1000000], got -1"
    );
    assert_eq!(
        check_costs(&c, Some(1)).unwrap_err().to_string(),
        "costs[1][4]: must be in [0, 1000000], got -1"
    );
}

fn set(words: &[&str], tokens: &[&str]) -> KnownWords {
    let mut keys: Vec<u32> = words.iter().map(|w| word_hash(w.as_bytes())).collect();
    for t in tokens {
        keys.push(word_hash(t.as_bytes()));
        let chars: Vec<(usize, char)> = t.char_indices().collect();
        for k in 2..=chars.len() {
            let end = chars.get(k).map_or(t.len(), |c| c.0);
            keys.push(prefix_hash(&t.as_bytes()[..end]));
        }
    }
    let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    KnownWords::from_le_bytes(&bytes).unwrap()
}

/// The legacy `cjk_pairs` table of `tokens`.
fn pair_table(tokens: &[&str]) -> Vec<u8> {
    let mut pairs = vec![0u8; PIECE_PAIR_TABLE_BYTES];
    for t in tokens {
        let c: Vec<u32> = t.chars().map(u32::from).collect();
        let bit = piece_pair_bit(c[0], c[1]);
        pairs[bit >> 3] |= 1 << (bit & 7);
    }
    pairs
}

#[test]
fn cjk_pieces_are_the_longest_held_tokens() {
    // a profile written before cjk_tokens: its tokens hashed into the set, with cjk_pairs
    let tokens = ["中文", "中文字", "한국"];
    let bare = set(&["x"], &tokens);
    // without a pair table the set cuts no pieces (no profile written so holds CJK tokens)
    assert_eq!(features("中文字典".as_bytes(), Some(&bare))[CJK_PIECE], 4);
    let k = bare
        .with_tables(None, 0, None, Some(&pair_table(&tokens)))
        .unwrap();
    assert_cuts(&k);
    let f = |t: &str| features(t.as_bytes(), Some(&k))[CJK_PIECE];
    // kana and CJK punctuation are piece characters, a surrogate's form (0xED 0xA0 0x80) is not
    assert_eq!(f("あ。"), 2);
    assert_eq!(features(&[0xED, 0xA0, 0x80], Some(&k))[CJK_PIECE], 0);
    // without a set every character is a piece and counts its extra
    assert_eq!(features("中文字".as_bytes(), None)[CJK_PIECE], 3);
    assert_eq!(features("中文字".as_bytes(), None)[CHAR_EXTRA], 6);
    // a pair table without the pair 中文 stops every piece there; with it, the same pieces
    let mut pairs = vec![0u8; PIECE_PAIR_TABLE_BYTES];
    let off = k.clone().with_tables(None, 0, None, Some(&pairs)).unwrap();
    assert_eq!(features("中文字典".as_bytes(), Some(&off))[CJK_PIECE], 4);
    let bit = piece_pair_bit(0x4E2D, 0x6587);
    pairs[bit >> 3] |= 1 << (bit & 7);
    let on = k.clone().with_tables(None, 0, None, Some(&pairs)).unwrap();
    assert_eq!(features("中文字典".as_bytes(), Some(&on))[CJK_PIECE], 2);
}

/// The cuts of the tokens 中文, 中文字 and 한국, which a `cjk_tokens` table and a legacy set
/// with its pair table make alike.
fn assert_cuts(k: &KnownWords) {
    let f = |t: &str| features(t.as_bytes(), Some(k))[CJK_PIECE];
    // 中文字 is one token; 典 is alone; "中文" then a character no token continues
    assert_eq!(f("中文字典"), 2);
    assert_eq!(f("中文典"), 2);
    // a prefix ("中文") that a longer token continues is still a token of its own
    assert_eq!(f("中文x中"), 2);
    assert_eq!(f("한국어 한"), 3);
    // inside a token a character has no extra of its own: only 典's (no table: 2)
    assert_eq!(features("中文字典".as_bytes(), Some(k))[CHAR_EXTRA], 2);
    // truncated sequences never panic
    let _ = features(&[0xE4, 0xB8, 0xAD, 0xE6, 0x96], Some(k));
    let _ = features(&[0xE4, 0xB8, 0xAD, 0xEA], Some(k));
}

#[test]
fn a_mark_before_a_word_keys_its_lookup() {
    let k = set(&["word", " word", "\u{a0}is"], &[]);
    let f = |t: &str| features(t.as_bytes(), Some(&k))[KNOWN_WORD];
    assert_eq!(f("\u{a0}word"), 0); // "\u{a0}word" is not held
    assert_eq!(
        features("\u{a0}word is".as_bytes(), Some(&k))[UNKNOWN_WORD],
        2
    );
    assert_eq!(f("\u{a0}is"), 1);
    assert_eq!(f("\u{201c}word\u{feff}word"), 0);
    // a letter (é, 中) or an ASCII mark before a word keeps the bare key
    assert_eq!(f("(word 中word"), 2);
    assert!(is_mark_before_word(0xA0) && is_mark_before_word(0x200D) && !is_mark_before_word(0xE9));
    // a stray continuation byte before a word never panics
    assert_eq!(
        features(&[0x80, b'w', b'o', b'r', b'd'], Some(&k))[KNOWN_WORD],
        1
    );
}

fn fingerprint(t: &str) -> u32 {
    let h = t
        .chars()
        .fold(PIECE_HASH_SEED, |h, c| piece_step(h, u32::from(c)));
    (h >> (64 - PIECE_FINGERPRINT_BITS)) as u32
}

#[test]
fn cjk_tokens_cut_like_the_legacy_set() {
    // the reference's value (tests/tokenizers/test_calibrated_pieces.py)
    assert_eq!(fingerprint("中文"), 619_801_734);
    let tokens = "中文\n中文字\n한국";
    let k = KnownWords::from_le_bytes(&[])
        .unwrap()
        .with_piece_tokens(tokens.as_bytes())
        .unwrap();
    assert_cuts(&k);
    // two strings of equal fingerprints share their flags (a collision found by search)
    let (a, b) = ("冞籺榘荘", "犳特朙霄");
    assert_eq!(fingerprint(a), fingerprint(b));
    let both = format!("{a}\n{b}中");
    let k = KnownWords::default()
        .with_piece_tokens(both.as_bytes())
        .unwrap();
    assert_eq!(features(b.as_bytes(), Some(&k))[CJK_PIECE], 1);
    assert_eq!(features("犳特朙霉".as_bytes(), Some(&k))[CJK_PIECE], 4);
}

#[test]
fn cjk_token_errors_mirror_the_reference() {
    let err = |data: &[u8]| {
        KnownWords::default()
            .with_piece_tokens(data)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err(b"\xff"),
        "known words: cjk_tokens: not UTF-8 (at byte 0)"
    );
    assert_eq!(
        err("中文\nab".as_bytes()),
        "known words: cjk_tokens: token 1: expected 2 to 8 characters of U+3000-U+9FFF or U+AC00-U+D7A3, one token a line"
    );
    let legacy = KnownWords::default()
        .with_tables(None, 0, None, Some(&vec![0; PIECE_PAIR_TABLE_BYTES]))
        .unwrap();
    assert!(legacy
        .with_piece_tokens("中文".as_bytes())
        .unwrap_err()
        .to_string()
        .starts_with("known words: cjk_pairs: not with cjk_tokens"));
    assert!(KnownWords::default().with_piece_tokens(b"").is_ok());
}
