//! Character classes of the calibrated estimator: the class of every UTF-8 lead byte, the word
//! classes, the two-byte letters a known word may hold, and the common English letter pairs.

use super::*;
use crate::unicode_tables::LETTER2_RANGES;

/// "No class yet" for the previous-class state at the start of a text.
pub(super) const NONE: u8 = u8::MAX;

pub(super) const fn ascii_class(b: u8) -> u8 {
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
pub(super) const LEAD: [u8; 256] = {
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
pub(super) fn deva_thai_second(b: u8) -> bool {
    matches!(b, 0xA4 | 0xA5 | 0xB8 | 0xB9)
}

/// Word classes (ASCII letters and every two-byte class), indexed by class; 256 entries so
/// that `NONE` (no previous class) indexes it too.
pub(super) const WORD: [bool; 256] = {
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
pub(super) const fn seq_len(b: u8) -> usize {
    match b {
        0x00..=0xBF => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Marks "the previous code point was not an ASCII letter" in the bigram state.
pub(super) const NO_LETTER: usize = 26;

/// Common English letter pairs (see `COMMON_BIGRAMS` in the reference): bit `b` of entry `a`
/// is set when the pair (a, b) is common; entry `NO_LETTER` has every bit set.
pub(super) const COMMON: [u32; 27] = {
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
pub(super) fn is_word(c: u8) -> bool {
    WORD[c as usize]
}

/// Bit `cp` set for the two-byte letters (U+0080..U+07FF of category L* or M*), the non-ASCII
/// characters a known word may hold.
pub(super) const LETTER2: [u64; 32] = {
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
pub(super) fn letter2_at(text: &[u8], i: usize) -> bool {
    let b0 = text[i];
    if !(0xC2..=0xDF).contains(&b0) || i + 1 >= text.len() {
        return false;
    }
    let cp = (u32::from(b0 & 0x1F) << 6) | u32::from(text[i + 1] & 0x3F);
    LETTER2[(cp >> 6) as usize] >> (cp & 63) & 1 == 1
}

/// The code point of the multi-byte sequence of `len` bytes at `text[i]`, or None when it is
/// truncated or not led by a lead byte (bytes no Python str produces; their extra is 0).
#[inline]
pub(super) fn code_point(text: &[u8], i: usize, len: usize) -> Option<u32> {
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

/// A character that a byte-level pre-tokenizer joins to the word after it, which then keys the
/// word's lookup (see the reference's `is_mark_before_word`): a two-byte non-letter, General
/// Punctuation U+2000..U+206F, the BOM.
#[inline]
pub(super) fn is_mark_before_word(cp: u32) -> bool {
    ((0x80..0x800).contains(&cp) && LETTER2[(cp >> 6) as usize] >> (cp & 63) & 1 == 0)
        || (0x2000..0x2070).contains(&cp)
        || cp == 0xFEFF
}

/// Whether the sequence at `text[i]` is a character of the runs `cjk_piece` cuts (U+3000..U+9FFF,
/// Hangul syllables U+AC00..U+D7A3); a truncated sequence is not.
#[inline]
pub(super) fn piece_char_at(text: &[u8], i: usize) -> bool {
    match text[i] {
        0xE3..=0xE9 => i + 3 <= text.len(),
        0xEA..=0xED => code_point(text, i, 3).is_some_and(|cp| (0xAC00..=0xD7A3).contains(&cp)),
        _ => false,
    }
}
