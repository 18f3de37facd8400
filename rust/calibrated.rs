//! The calibrated token estimator: one pass over a text's bytes counts features, each feature
//! costs a fitted number of thousandths of a token.
//!
//! `python/ctxsieve/kernels/calibrated.py` is the specification (it walks code points; we walk
//! UTF-8 bytes and classify each sequence by its lead byte, which gives the same classes). The
//! input is UTF-8, or the `surrogatepass` encoding of a Python str with lone surrogates: a
//! surrogate is then a 3-byte sequence led by 0xED, in `u3_hangul` like the reference says.
//! Bytes that no Python str produces (a stray continuation byte, a truncated sequence) are
//! classified by the same lead-byte rule and never panic.
//!
//! All arithmetic is in integers (counts times fixed-point costs, summed in u128), so the
//! native and reference estimates are identical on every input.

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::unicode_tables::LETTER2_RANGES;

pub const NUM_FEATURES: usize = 35;
pub const SCALE: u128 = 1000;
pub const MAX_COST: u64 = 1_000_000;
pub const MIXED_MIN: u64 = 6;

pub const DOC: usize = 0;
pub const LOWER: usize = 1;
pub const UPPER: usize = 2;
pub const DIGIT: usize = 3;
pub const SPACE: usize = 4;
pub const SPACE_REPEAT: usize = 5;
pub const NEWLINE: usize = 6;
pub const OTHER_WS: usize = 7;
pub const PUNCT: usize = 8;
pub const CTRL: usize = 9;
pub const U2_CYRILLIC: usize = 10;
pub const U3_KANA: usize = 11;
pub const U3_CJK: usize = 12;
pub const U3_OTHER: usize = 13;
pub const U4: usize = 14;
pub const WORD_START: usize = 15;
pub const DIGIT_RUN: usize = 16;
pub const PUNCT_RUN: usize = 17;
pub const MIXED_CHAR: usize = 18;
pub const MIXED_RUN: usize = 19;
pub const RARE_BIGRAM: usize = 20;
pub const PUNCT_REPEAT: usize = 21;
pub const U2_LATIN: usize = 22;
pub const U3_SYMBOL: usize = 23;
pub const U2_GREEK: usize = 24;
pub const U2_RTL: usize = 25;
pub const U3_INDIC: usize = 26;
pub const U3_HANGUL: usize = 27;
pub const U3_FULLWIDTH: usize = 28;
pub const U2_HEBREW: usize = 29;
pub const U3_DEVA_THAI: usize = 30;
pub const KNOWN_WORD: usize = 31;
pub const DIGIT_PIECE: usize = 32;
pub const CHAR_EXTRA: usize = 33;
pub const PUNCT_BREAK: usize = 34;

/// Code points the `char_extra` table covers (2 bits each); beyond it a character's extra is
/// its UTF-8 length less one, the byte-level worst case.
pub const EXTRA_LIMIT: u32 = 0x2_0000;
pub const EXTRA_TABLE_BYTES: usize = (EXTRA_LIMIT / 4) as usize;
pub const MAX_DIGIT_GROUP: u8 = 16;
/// A bit per ordered pair of ASCII characters, `a * 128 + b`.
pub const PAIR_TABLE_BYTES: usize = 128 * 128 / 8;

/// "No class yet" for the previous-class state at the start of a text.
const NONE: u8 = u8::MAX;

const fn ascii_class(b: u8) -> u8 {
    (match b {
        b'a'..=b'z' => LOWER,
        b'A'..=b'Z' => UPPER,
        b'0'..=b'9' => DIGIT,
        b' ' => SPACE,
        b'\n' => NEWLINE,
        0x09 | 0x0B | 0x0C | 0x0D => OTHER_WS,
        0x21..=0x7E => PUNCT,
        _ => CTRL,
    }) as u8
}

/// Class of every byte value as a lead byte: ASCII classes, then the code-point range each
/// group of lead bytes covers (see the reference's `char_class`); a sequence led by 0xE0 is
/// `u3_deva_thai` instead when its second byte says so (`DEVA_THAI_SECOND`).
const LEAD: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b {
            0x00..=0x7F => ascii_class(b as u8),
            0xC0..=0xCB => U2_LATIN as u8,     // U+0080..U+02FF
            0xCC..=0xCF => U2_GREEK as u8,     // U+0300..U+03FF
            0xD0..=0xD4 => U2_CYRILLIC as u8,  // U+0400..U+053F
            0xD6..=0xD7 => U2_HEBREW as u8,    // U+0580..U+05FF
            0x80..=0xDF => U2_RTL as u8, // U+0540..U+057F, U+0600..U+07FF; stray continuations
            0xE0 => U3_INDIC as u8,      // U+0800..U+0FFF (but see DEVA_THAI_SECOND)
            0xE1 => U3_OTHER as u8,      // U+1000..U+1FFF
            0xE2 => U3_SYMBOL as u8,     // U+2000..U+2FFF
            0xE3 => U3_KANA as u8,       // U+3000..U+3FFF
            0xE4..=0xE9 => U3_CJK as u8, // U+4000..U+9FFF
            0xEA..=0xED => U3_HANGUL as u8, // U+A000..U+DFFF, surrogatepass surrogates too
            0xEE..=0xEF => U3_FULLWIDTH as u8, // U+E000..U+FFFF
            _ => U4 as u8,
        };
        b += 1;
    }
    t
};

/// Second bytes after 0xE0 that make a sequence `u3_deva_thai`: U+0900..U+097F (0xA4, 0xA5)
/// and U+0E00..U+0E7F (0xB8, 0xB9).
#[inline]
fn deva_thai_second(b: u8) -> bool {
    matches!(b, 0xA4 | 0xA5 | 0xB8 | 0xB9)
}

/// Word classes (ASCII letters and every two-byte class), indexed by class; 256 entries so
/// that `NONE` (no previous class) indexes it too.
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    t[LOWER] = true;
    t[UPPER] = true;
    t[U2_LATIN] = true;
    t[U2_GREEK] = true;
    t[U2_CYRILLIC] = true;
    t[U2_RTL] = true;
    t[U2_HEBREW] = true;
    t
};

/// Sequence length by lead byte (a stray continuation byte is a sequence of one).
const fn seq_len(b: u8) -> usize {
    match b {
        0x00..=0xBF => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Marks "the previous code point was not an ASCII letter" in the bigram state.
const NO_LETTER: usize = 26;

/// Common English letter pairs (see `COMMON_BIGRAMS` in the reference): bit `b` of entry `a`
/// is set when the pair (a, b) is common; entry `NO_LETTER` has every bit set.
const COMMON: [u32; 27] = {
    const TABLE: [&str; 26] = [
        "bcdgiklmnprstuvy",
        "aeijloruy",
        "acehiklortu",
        "eiosu",
        "acdefgilmnpqrstvwxy",
        "aeioru",
        "einru",
        "aeio",
        "abcdefglmnoprstv",
        "e",
        "e",
        "adefilostuy",
        "abeimopu",
        "acdegilmnostuy",
        "bcdfilmnoprstuvw",
        "aeiloprty",
        "u",
        "adegimnorstuy",
        "acehilopstuy",
        "acehiorstuy",
        "abcegilmnprst",
        "aei",
        "aehio",
        "cept",
        "npstw",
        "",
    ];
    let mut out = [0u32; 27];
    out[NO_LETTER] = (1 << 26) - 1; // no letter before: never a rare pair
    let mut a = 0;
    while a < 26 {
        let s = TABLE[a].as_bytes();
        let mut i = 0;
        while i < s.len() {
            out[a] |= 1 << (s[i] - b'a');
            i += 1;
        }
        a += 1;
    }
    out
};

#[inline]
fn is_word(c: u8) -> bool {
    WORD[c as usize]
}

/// Bit `cp` set for the two-byte letters (U+0080..U+07FF of category L* or M*), the non-ASCII
/// characters a known word may hold.
const LETTER2: [u64; 32] = {
    let mut bits = [0u64; 32];
    let mut r = 0;
    while r < LETTER2_RANGES.len() {
        let (a, b) = LETTER2_RANGES[r];
        let mut cp = a;
        while cp <= b {
            bits[(cp >> 6) as usize] |= 1 << (cp & 63);
            cp += 1;
        }
        r += 1;
    }
    bits
};

/// The two-byte sequence at `text[i]`, when it is a letter (its class then is its lead byte's).
#[inline]
fn letter2_at(text: &[u8], i: usize) -> bool {
    let b0 = text[i];
    if !(0xC2..=0xDF).contains(&b0) || i + 1 >= text.len() {
        return false;
    }
    let cp = (u32::from(b0 & 0x1F) << 6) | u32::from(text[i + 1] & 0x3F);
    LETTER2[(cp >> 6) as usize] >> (cp & 63) & 1 == 1
}

/// The word hashes of a tokenizer's one-token words (see `known_word` in the reference): an
/// open-addressing table of u32 keys with linear probing, at most three quarters full. The slot
/// is the top bits of the key times a golden-ratio constant (a profile is a file anyone can
/// write: keys picked to share their low bits would otherwise make every probe walk a long
/// cluster). A lookup usually reads one cache line.
#[derive(Debug, Clone)]
pub struct KnownWords {
    slots: Vec<u32>, // 0 marks an empty slot; the key 0 itself is `has_zero`
    mask: usize,
    shift: u32, // 64 - log2(slots.len())
    len: usize,
    has_zero: bool,
    // the tokenizer's extra tokens per character alone, 2 bits per code point below
    // EXTRA_LIMIT (None: every character its UTF-8 length less one)
    extra: Option<Box<[u8]>>,
    // digits per pre-tokenizer piece (0: a whole digit run is one piece)
    digit_group: u8,
    // the pairs of ASCII marks some token holds side by side (None: no pair)
    pairs: Option<Box<[u8]>>,
}

impl Default for KnownWords {
    fn default() -> Self {
        Self {
            slots: vec![0; 2],
            mask: 1,
            shift: 63,
            len: 0,
            has_zero: false,
            extra: None,
            digit_group: 0,
            pairs: None,
        }
    }
}

/// Why the character tables of a `KnownWords` were refused; `Display` gives the reference's
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    ExtraLength(usize),
    DigitGroup(i128),
    PairsLength(usize),
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableError::ExtraLength(n) => write!(
                f,
                "known words: char_extra: expected {EXTRA_TABLE_BYTES} bytes (2 bits per code point below U+20000), got {n}"
            ),
            TableError::PairsLength(n) => write!(
                f,
                "known words: punct_pairs: expected {PAIR_TABLE_BYTES} bytes (a bit per pair of ASCII characters), got {n}"
            ),
            TableError::DigitGroup(g) => write!(
                f,
                "known words: digit_group: must be in [0, {MAX_DIGIT_GROUP}], got {g}"
            ),
        }
    }
}

impl KnownWords {
    /// From little-endian u32 hashes; `Err(len)` when `bytes` is not a whole number of them.
    pub fn from_le_bytes(bytes: &[u8]) -> Result<Self, usize> {
        if bytes.len() % 4 != 0 {
            return Err(bytes.len());
        }
        let n = bytes.len() / 4;
        // at most 3/4 full (1 MB for o200k's 144k words): a smaller table stays in cache
        let capacity = (n + n / 3 + 1).next_power_of_two().max(2);
        let mut out = Self {
            slots: vec![0; capacity],
            mask: capacity - 1,
            shift: 64 - capacity.trailing_zeros(),
            len: 0,
            has_zero: false,
            extra: None,
            digit_group: 0,
            pairs: None,
        };
        for c in bytes.chunks_exact(4) {
            out.insert(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
        Ok(out)
    }

    /// The same set with the tokenizer's character tables: `extra` (2 bits per code point
    /// below `EXTRA_LIMIT`, `EXTRA_TABLE_BYTES` long), `digit_group` and `pairs` (a bit per
    /// ordered pair of ASCII characters, `PAIR_TABLE_BYTES` long); checked in this order (the
    /// reference's).
    pub fn with_tables(
        mut self,
        extra: Option<&[u8]>,
        digit_group: i128,
        pairs: Option<&[u8]>,
    ) -> Result<Self, TableError> {
        if let Some(e) = extra {
            if e.len() != EXTRA_TABLE_BYTES {
                return Err(TableError::ExtraLength(e.len()));
            }
        }
        if !(0..=i128::from(MAX_DIGIT_GROUP)).contains(&digit_group) {
            return Err(TableError::DigitGroup(digit_group));
        }
        if let Some(p) = pairs {
            if p.len() != PAIR_TABLE_BYTES {
                return Err(TableError::PairsLength(p.len()));
            }
        }
        self.extra = extra.map(|e| e.to_vec().into_boxed_slice());
        self.digit_group = digit_group as u8;
        self.pairs = pairs.map(|p| p.to_vec().into_boxed_slice());
        Ok(self)
    }

    /// Whether some token holds the ASCII marks `a`, `b` side by side.
    #[inline]
    fn holds_pair(&self, a: u8, b: u8) -> bool {
        let bit = (usize::from(a & 0x7F) << 7) | usize::from(b & 0x7F);
        self.pairs
            .as_ref()
            .is_some_and(|p| (p[bit >> 3] >> (bit & 7)) & 1 == 1)
    }

    /// The extra tokens of code point `cp` (a sequence of `len` bytes) alone.
    #[inline]
    fn extra_of(&self, cp: u32, len: usize) -> u64 {
        match &self.extra {
            Some(t) if cp < EXTRA_LIMIT => u64::from(t[(cp >> 2) as usize] >> ((cp & 3) * 2) & 3),
            _ => len as u64 - 1,
        }
    }

    fn insert(&mut self, h: u32) {
        if h == 0 {
            self.len += usize::from(!self.has_zero);
            self.has_zero = true;
            return;
        }
        let mut i = self.slot(h);
        while self.slots[i] != 0 {
            if self.slots[i] == h {
                return;
            }
            i = (i + 1) & self.mask;
        }
        self.slots[i] = h;
        self.len += 1;
    }

    #[inline]
    fn slot(&self, h: u32) -> usize {
        (u64::from(h).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn contains(&self, h: u32) -> bool {
        if h == 0 {
            return self.has_zero;
        }
        let mut i = self.slot(h);
        loop {
            match self.slots[i] {
                0 => return false,
                s if s == h => return true,
                _ => i = (i + 1) & self.mask,
            }
        }
    }
}

/// The 32-bit hash a `KnownWords` set holds for a word's key.
#[inline]
pub fn word_hash(key: &[u8]) -> u32 {
    xxh3_64(key) as u32
}

/// The end of the run of ASCII letters starting at `j`, eight bytes at a time: a byte is a
/// letter when its high bit is clear and, with bit 5 set, it lies in 0x61..=0x7A. (A byte loop
/// mispredicts at the end of every word; this one usually decides a word in one step.)
#[inline]
fn ascii_letters_end(text: &[u8], mut j: usize) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while j + 8 <= text.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&text[j..j + 8]);
        let v = u64::from_le_bytes(word);
        let x = (v | 0x2020_2020_2020_2020) & 0x7F7F_7F7F_7F7F_7F7F;
        // per byte, no carries: bit 7 of x + 0x1F is x >= 0x61, of x + 0x05 is x >= 0x7B
        let letters = (x + 0x1F1F_1F1F_1F1F_1F1F) & !(x + 0x0505_0505_0505_0505) & !v & HIGH;
        let others = !letters & HIGH;
        if others != 0 {
            return j + (others.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    while j < text.len() && text[j].is_ascii_alphabetic() {
        j += 1;
    }
    j
}

/// When the word starting at `i` is known, the index past it and the class of its last
/// character. The caller has checked that the character before `i` is neither a word
/// character nor an ASCII digit.
#[inline]
fn known_end(text: &[u8], i: usize, known: &KnownWords) -> Option<(usize, u8)> {
    let n = text.len();
    let mut j = i;
    loop {
        j = ascii_letters_end(text, j);
        if j < n && letter2_at(text, j) {
            j += 2;
        } else {
            break;
        }
    }
    if j == i || (j < n && text[j].is_ascii_digit()) {
        return None;
    }
    // the last character's class: an ASCII letter's, or its lead byte's for a two-byte letter
    let last = if text[j - 1] < 0x80 {
        LEAD[text[j - 1] as usize]
    } else {
        LEAD[text[j - 2] as usize]
    };
    let start = if i > 0 && text[i - 1] == b' ' {
        i - 1
    } else {
        i
    };
    known
        .contains(word_hash(&text[start..j]))
        .then_some((j, last))
}

/// The code point of the multi-byte sequence of `len` bytes at `text[i]`, or None when it is
/// truncated or not led by a lead byte (bytes no Python str produces; their extra is 0).
#[inline]
fn code_point(text: &[u8], i: usize, len: usize) -> Option<u32> {
    if i + len > text.len() {
        return None;
    }
    let cont = |k: usize| u32::from(text[i + k] & 0x3F);
    let b0 = u32::from(text[i]);
    match len {
        2 if b0 >= 0xC0 => Some(((b0 & 0x1F) << 6) | cont(1)),
        3 => Some(((b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2)),
        4 => Some(((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3)),
        _ => None,
    }
}

/// `char_extra` of the sequence at `text[i]` (see the reference's `char_extra`).
#[inline]
fn extra_at(text: &[u8], i: usize, known: Option<&KnownWords>) -> u64 {
    let len = seq_len(text[i]);
    match code_point(text, i, len) {
        None => 0,
        Some(cp) => known.map_or(len as u64 - 1, |k| k.extra_of(cp, len)),
    }
}

/// Pre-tokenizer pieces of a digit run of `len` digits, `group` digits a piece (0: one).
#[inline]
fn digit_pieces(len: u64, group: u8) -> u64 {
    if group == 0 {
        1
    } else {
        len.div_ceil(u64::from(group))
    }
}

/// The feature counts of one text (UTF-8 or surrogatepass bytes), indexed like `FEATURES`.
///
/// Each run of alphanumerics, spaces or punctuation is consumed by its own tight loop (the
/// first version walked byte by byte through one big match and ran at 170 MB/s; this one is
/// about twice as fast). A run is always consumed whole, so the class before a run is never
/// the run's own class.
///
/// With a non-empty `known` set, each word that starts a run of word characters (not after a
/// digit) is looked up first; a known one is skipped whole after counting `known_word`.
pub fn features(text: &[u8], known: Option<&KnownWords>) -> [u64; NUM_FEATURES] {
    let mut f = [0u64; NUM_FEATURES];
    let n = text.len();
    if n == 0 {
        return f;
    }
    f[DOC] = 1;
    let tables = known;
    let group = tables.map_or(0, |k| k.digit_group);
    let known = known.filter(|k| !k.is_empty());
    let mut prev = NONE;
    let mut prev_word_char = false;
    let mut i = 0;
    while i < n {
        let b = text[i];
        let c = LEAD[b as usize];
        if let Some(k) = known {
            let word_char = b.is_ascii_alphabetic() || letter2_at(text, i);
            if word_char && !prev_word_char && prev != DIGIT as u8 {
                if let Some((end, last)) = known_end(text, i, k) {
                    f[KNOWN_WORD] += 1;
                    prev = last;
                    prev_word_char = true;
                    i = end;
                    continue;
                }
            }
        }
        match c as usize {
            LOWER | UPPER | DIGIT => {
                let start = i;
                let (mut lower, mut upper, mut digits) = (0u64, 0u64, 0u64);
                let (mut words, mut digit_runs, mut rare) = (0u64, 0u64, 0u64);
                let mut p = prev;
                let mut prev_letter = NO_LETTER;
                let mut dlen = 0u64; // the current digit run, counted in digit_piece when it ends
                while i < n {
                    let b = text[i];
                    if dlen > 0 && !b.is_ascii_digit() {
                        f[DIGIT_PIECE] += digit_pieces(dlen, group);
                        dlen = 0;
                    }
                    if b.is_ascii_lowercase() {
                        // the hot path: a run of lowercase letters, one table lookup a byte
                        words += u64::from(!is_word(p));
                        let s0 = i;
                        while i < n {
                            let letter = text[i].wrapping_sub(b'a') as usize;
                            if letter >= 26 {
                                break;
                            }
                            rare += u64::from((COMMON[prev_letter] >> letter) & 1 ^ 1);
                            prev_letter = letter;
                            i += 1;
                        }
                        lower += (i - s0) as u64;
                        p = LOWER as u8;
                        continue;
                    }
                    if b.is_ascii_uppercase() {
                        let letter = (b - b'A') as usize;
                        upper += 1;
                        words += u64::from(!is_word(p) || p == LOWER as u8);
                        rare += u64::from((COMMON[prev_letter] >> letter) & 1 ^ 1);
                        prev_letter = letter;
                        p = UPPER as u8;
                    } else if b.is_ascii_digit() {
                        digits += 1;
                        dlen += 1;
                        digit_runs += u64::from(p != DIGIT as u8);
                        prev_letter = NO_LETTER;
                        p = DIGIT as u8;
                    } else {
                        break;
                    }
                    i += 1;
                }
                if dlen > 0 {
                    f[DIGIT_PIECE] += digit_pieces(dlen, group);
                }
                let len = (i - start) as u64;
                if len >= MIXED_MIN && lower + upper > 0 && digits > 0 {
                    f[MIXED_CHAR] += len;
                    f[MIXED_RUN] += 1;
                } else {
                    f[LOWER] += lower;
                    f[UPPER] += upper;
                    f[DIGIT] += digits;
                    f[WORD_START] += words;
                    f[DIGIT_RUN] += digit_runs;
                    f[RARE_BIGRAM] += rare;
                }
                prev = p;
                prev_word_char = p != DIGIT as u8;
            }
            SPACE => {
                let start = i;
                while i < n && text[i] == b' ' {
                    i += 1;
                }
                f[SPACE] += 1;
                f[SPACE_REPEAT] += (i - start - 1) as u64;
                prev = c;
                prev_word_char = false;
            }
            PUNCT => {
                // a mark equal to the one before it ("====", "----") is a punct_repeat
                // and a pair of marks no token holds side by side is a token boundary
                let start = i;
                let mut repeats = 0u64;
                let mut breaks = 0u64;
                i += 1;
                while i < n && LEAD[text[i] as usize] == PUNCT as u8 {
                    repeats += u64::from(text[i] == text[i - 1]);
                    breaks +=
                        u64::from(!tables.is_some_and(|k| k.holds_pair(text[i - 1], text[i])));
                    i += 1;
                }
                f[PUNCT_BREAK] += breaks;
                f[PUNCT] += (i - start) as u64 - repeats;
                f[PUNCT_REPEAT] += repeats;
                f[PUNCT_RUN] += 1;
                prev = c;
                prev_word_char = false;
            }
            U2_LATIN | U2_GREEK | U2_CYRILLIC | U2_RTL | U2_HEBREW => {
                f[c as usize] += 1;
                f[WORD_START] += u64::from(!is_word(prev));
                f[CHAR_EXTRA] += extra_at(text, i, tables);
                prev_word_char = letter2_at(text, i);
                i += seq_len(b);
                prev = c;
            }
            U3_INDIC => {
                let c = if i + 1 < n && deva_thai_second(text[i + 1]) {
                    U3_DEVA_THAI as u8
                } else {
                    c
                };
                f[c as usize] += 1;
                f[CHAR_EXTRA] += extra_at(text, i, tables);
                i += seq_len(b);
                prev = c;
                prev_word_char = false;
            }
            cu => {
                f[cu] += 1;
                if b >= 0x80 {
                    f[CHAR_EXTRA] += extra_at(text, i, tables);
                }
                i += seq_len(b);
                prev = c;
                prev_word_char = false;
            }
        }
    }
    f
}

/// Why a cost vector was refused; `Display` gives the reference's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CostError {
    Length(usize),
    Range(usize, i128),
}

impl std::fmt::Display for CostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CostError::Length(n) => write!(
                f,
                "costs: expected {NUM_FEATURES} items (one per feature), got {n}"
            ),
            CostError::Range(i, c) => write!(f, "costs[{i}]: must be in [0, {MAX_COST}], got {c}"),
        }
    }
}

/// Checks a cost vector: `NUM_FEATURES` values in `[0, MAX_COST]`.
pub fn check_costs(costs: &[i128]) -> Result<[u64; NUM_FEATURES], CostError> {
    if costs.len() != NUM_FEATURES {
        return Err(CostError::Length(costs.len()));
    }
    let mut out = [0u64; NUM_FEATURES];
    for (i, &c) in costs.iter().enumerate() {
        if !(0..=MAX_COST as i128).contains(&c) {
            return Err(CostError::Range(i, c));
        }
        out[i] = c as u64;
    }
    Ok(out)
}

/// `ceil(sum(features * costs) / SCALE)`, saturating at `limits::MAX_COUNT`.
pub fn estimate(text: &[u8], costs: &[u64; NUM_FEATURES], known: Option<&KnownWords>) -> u64 {
    let f = features(text, known);
    let total: u128 = f
        .iter()
        .zip(costs)
        .map(|(&n, &c)| n as u128 * c as u128)
        .sum();
    crate::limits::saturate(total.div_ceil(SCALE))
}

/// Batches smaller than this many bytes run on the calling thread: below it, handing work to
/// the pool costs more than it saves (a batch of a few chat messages takes microseconds).
const PARALLEL_MIN_BYTES: usize = 256 * 1024;

/// `estimate` of each text; large batches run on all cores (each text is still estimated in
/// one pass on one thread, so the result never depends on the split).
pub fn estimate_batch<T: AsRef<[u8]> + Sync>(
    texts: &[T],
    costs: &[u64; NUM_FEATURES],
    known: Option<&KnownWords>,
) -> Vec<u64> {
    let one = |t: &T| estimate(t.as_ref(), costs, known);
    let total: usize = texts.iter().map(|t| t.as_ref().len()).sum();
    if total < PARALLEL_MIN_BYTES || texts.len() < 2 {
        return texts.iter().map(one).collect();
    }
    texts.par_iter().with_min_len(8).map(one).collect()
}

#[cfg(test)]
mod tests {
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
        assert_eq!(estimate(b"", &[1000; NUM_FEATURES], None), 0);
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
            .with_tables(Some(&t), group, None)
            .unwrap()
    }

    #[test]
    fn digit_pieces_follow_the_group() {
        let f = |text: &str, group: i128| {
            let k = KnownWords::default()
                .with_tables(None, group, None)
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
            .with_tables(None, 0, Some(&pairs))
            .unwrap();
        // "();" holds both pairs; ";(" and "|&" are not held, and "a" breaks the run
        assert_eq!(features(b"(); ;( |&a)", Some(&k))[PUNCT_BREAK], 2);
        // without a table every pair of marks is a boundary
        assert_eq!(features(b"(); ;( |&a)", None)[PUNCT_BREAK], 4);
    }

    #[test]
    fn tables_are_checked() {
        let err = KnownWords::default()
            .with_tables(Some(&[0; 7]), 0, None)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "known words: char_extra: expected 32768 bytes (2 bits per code point below U+20000), got 7"
        );
        let err = KnownWords::default()
            .with_tables(None, 17, None)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "known words: digit_group: must be in [0, 16], got 17"
        );
        assert!(KnownWords::default().with_tables(None, -1, None).is_err());
        let err = KnownWords::default()
            .with_tables(None, 0, Some(&[0; 3]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "known words: punct_pairs: expected 2048 bytes (a bit per pair of ASCII characters), got 3"
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
        assert_eq!(estimate(b"abc", &costs, None), 2); // 500 + 750 = 1250 -> 2
        assert_eq!(estimate(b"ab", &costs, None), 1); // 1000 -> 1
        costs[U4] = MAX_COST;
        assert_eq!(estimate_batch(&["😀".as_bytes()], &costs, None), vec![1001]);
    }

    #[test]
    fn cost_checks_mirror_the_reference() {
        assert_eq!(
            check_costs(&[0; 3]).unwrap_err().to_string(),
            "costs: expected 35 items (one per feature), got 3"
        );
        let mut c = [0i128; NUM_FEATURES];
        c[4] = -1;
        assert_eq!(
            check_costs(&c).unwrap_err().to_string(),
            "costs[4]: must be in [0, 1000000], got -1"
        );
    }
}

#[cfg(test)]
mod speed {
    /// `cargo test --release --lib calibrated::speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn throughput() {
        let text = std::fs::read("benches/data/heldout.jsonl").unwrap();
        let costs = [1000u64; super::NUM_FEATURES];
        let t = std::time::Instant::now();
        let mut total = 0;
        for _ in 0..50 {
            total += super::estimate(&text, &costs, None);
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{:.0} MB/s ({total})",
            50.0 * text.len() as f64 / secs / 1e6
        );
        // with every word of the text known, spaced and bare (a real profile knows 30-150k)
        let mut keys = Vec::new();
        for w in text
            .split(|b| !b.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
        {
            keys.extend(super::word_hash(w).to_le_bytes());
            keys.extend(super::word_hash(&[b" ", w].concat()).to_le_bytes());
        }
        let k = super::KnownWords::from_le_bytes(&keys).unwrap();
        let t = std::time::Instant::now();
        let mut total = 0;
        for _ in 0..50 {
            total += super::estimate(&text, &costs, Some(&k));
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "with {} known words: {:.0} MB/s ({total})",
            k.len(),
            50.0 * text.len() as f64 / secs / 1e6
        );
    }
}
