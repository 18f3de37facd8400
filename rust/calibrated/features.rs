//! The one pass over a text's bytes that counts the calibrated estimator's features.

use super::classes::*;
use super::*;

/// The end of the run of ASCII letters starting at `j`, eight bytes at a time: a byte is a
/// letter when its high bit is clear and, with bit 5 set, it lies in 0x61..=0x7A. (A byte loop
/// mispredicts at the end of every word; this one usually decides a word in one step.)
#[inline]
pub(super) fn ascii_letters_end(text: &[u8], mut j: usize) -> usize {
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
/// character nor an ASCII digit. (Always in line: called from two arms, the compiler put it out
/// of line, and a pass with o200k took 47.4 M instructions against 45.1 M; one thread -2..+6 %
/// for the nine profiles, best of 3 interleaved turns. Lost: the space arm telling it that a
/// space comes before, no test of the byte: 45.1 -> 44.4 M instructions, -3..+2 % one thread.)
#[inline(always)]
pub(super) fn known_end(text: &[u8], i: usize, known: &KnownWords) -> Option<(usize, u8)> {
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
    let start = if i == 0 {
        i
    } else if text[i - 1] == b' ' {
        i - 1
    } else if text[i - 1] >= 0x80 {
        mark_start(text, i).unwrap_or(i)
    } else {
        i
    };
    known
        .contains(word_hash(&text[start..j]))
        .then_some((j, last))
}

/// (Out of line: a mark before a word is rare, and inlined it slowed every word.)
/// The start of the character that ends just before `i`, when it is a mark that keys the word
/// at `i` (`is_mark_before_word`).
#[inline(never)]
fn mark_start(text: &[u8], i: usize) -> Option<usize> {
    let mut s = i - 1;
    while s > 0 && i - s < 4 && text[s] & 0xC0 == 0x80 {
        s -= 1;
    }
    let len = seq_len(text[s]);
    (s + len == i && code_point(text, s, len).is_some_and(is_mark_before_word)).then_some(s)
}

/// The end of the `cjk_piece` that starts at `i` (see the reference's `_piece_end`): the longest
/// run of at most `MAX_PIECE_CHARS` piece characters that the tokenizer holds as a token, extended
/// while some token starts with the text so far; `i + 3` when none. `a` is the code point at `i`,
/// `b` the one after it when that is a piece character (the caller decodes each character once).
/// The pair table is checked first, in line: most characters start no token.
#[inline]
fn piece_end_at(text: &[u8], i: usize, a: u32, b: Option<u32>, known: &KnownWords) -> usize {
    let m = i + 3;
    let Some(b) = b else {
        return m;
    };
    if let Some(t) = &known.pieces {
        return if t.may_start(a, b) {
            longest_token(text, i, a, b, t)
        } else {
            m
        };
    }
    // a profile written before `cjk_tokens`: its tokens and their prefixes are in the set
    let legacy = !known.is_empty() && known.piece_pairs.is_some() && known.may_start_piece(a, b);
    if legacy {
        longest_piece(text, i, known)
    } else {
        m
    }
}

/// `piece_end_at` past the pair table with a `cjk_tokens` table: per extension one multiply
/// and one probe, whose flags say whether the text so far is a token and whether a longer one
/// starts with it. (In line: out of line, o200k's one-thread speed on the held-out split was
/// 225 against 252 MB/s, Chinese 290 against 302, in the same noisy session.)
#[inline]
fn longest_token(text: &[u8], i: usize, a: u32, b: u32, t: &PieceTable) -> usize {
    let mut h = piece_step(piece_step(PIECE_HASH_SEED, a), b);
    let mut m = i + 6;
    let mut chars = 2;
    let mut end = i + 3;
    loop {
        let f = t.flags(h);
        if f & PIECE_TOKEN != 0 {
            end = m;
        }
        if f & PIECE_LONGER == 0
            || chars == MAX_PIECE_CHARS
            || m >= text.len()
            || !piece_char_at(text, m)
        {
            return end;
        }
        h = piece_step(h, cp3(text, m));
        m += 3;
        chars += 1;
    }
}

/// The code point of the (whole) three-byte sequence at `text[i]`.
#[inline]
fn cp3(text: &[u8], i: usize) -> u32 {
    (u32::from(text[i] & 0x0F) << 12)
        | (u32::from(text[i + 1] & 0x3F) << 6)
        | u32::from(text[i + 2] & 0x3F)
}

/// `piece_end_at` past the pair table in a profile written before `cjk_tokens`: two XXH3 hashes
/// of the text so far and two probes of the set per extension, out of line.
#[inline(never)]
fn longest_piece(text: &[u8], i: usize, known: &KnownWords) -> usize {
    let mut end = i + 3;
    let mut m = i + 3;
    let mut chars = 1;
    while chars < MAX_PIECE_CHARS && m < text.len() && piece_char_at(text, m) {
        m += 3;
        chars += 1;
        let key = &text[i..m];
        if !known.contains(prefix_hash(key)) {
            break;
        }
        if known.contains(word_hash(key)) {
            end = m;
        }
    }
    end
}

/// `char_extra` of the sequence at `text[i]` (see the reference's `char_extra`).
#[inline]
pub(super) fn extra_at(text: &[u8], i: usize, known: Option<&KnownWords>) -> u64 {
    let len = seq_len(text[i]);
    match code_point(text, i, len) {
        None => 0,
        Some(cp) => known.map_or(len as u64 - 1, |k| k.extra_of(cp, len)),
    }
}

/// The code point of a whole three-byte sequence.
#[inline]
fn cp_of(c: &[u8]) -> u32 {
    (u32::from(c[0] & 0x0F) << 12) | (u32::from(c[1] & 0x3F) << 6) | u32::from(c[2] & 0x3F)
}

/// The run of piece characters from `start`, counted into `f`; the index past it. Its end is
/// found first, in a loop of its own, so that the counting walks whole characters with no test
/// of class or bounds, each decoded once (one loop doing both, in line: callgrind with o200k,
/// the held-out split's Chinese 7.90 against 7.40 M instructions a pass, the whole split 48.3
/// against 46.6 M; one thread 0-6 % slower, best of 3 interleaved turns). A piece never reaches
/// past its run, so the run starts one; a character inside a multi-character CJK token costs no
/// extra of its own.
///
/// Lost: a first pass over each 64 characters of the run for their code points and pair-table
/// bits (a loop without branches whose loads overlap), then the pieces branching on the bit
/// (o200k's Chinese 420 against 450 MB/s, DeepSeek's 360 against 420; 9.4 M instructions).
/// Lost too: the bit read at every character, inside a token too, leaving one branch (on a
/// token starting there) and a piece of one character counted without one: Chinese 9-13 %
/// slower, Japanese 8-10 % (o200k, DeepSeek, Qwen; 7.2 -> 8.6 M instructions).
#[inline]
fn piece_run(
    text: &[u8],
    start: usize,
    tables: Option<&KnownWords>,
    f: &mut [u64; NUM_FEATURES],
) -> usize {
    let mut end = start + 3;
    while end < text.len() && piece_char_at(text, end) {
        end += 3;
    }
    let run = &text[start..end];
    let (mut kana, mut hangul) = (0u64, 0u64);
    for c in run.chunks_exact(3) {
        kana += u64::from(c[0] == 0xE3);
        hangul += u64::from(c[0] >= 0xEA);
    }
    let chars = (run.len() / 3) as u64;
    let (pieces, extra) = match tables {
        None => (chars, 2 * chars),
        Some(k) => {
            let (mut pieces, mut extra) = (0u64, 0u64);
            let mut piece_end = 0; // within the run
            let mut cp = cp_of(run);
            let mut at = 0;
            while at < run.len() {
                let next = run.get(at + 3..at + 6).map(cp_of);
                if at >= piece_end {
                    piece_end = piece_end_at(text, start + at, cp, next, k) - start;
                    pieces += 1;
                    if piece_end == at + 3 {
                        extra += k.extra_of(cp, 3);
                    }
                }
                at += 3;
                cp = next.unwrap_or(0);
            }
            (pieces, extra)
        }
    };
    f[U3_KANA] += kana;
    f[U3_HANGUL] += hangul;
    f[U3_CJK] += chars - kana - hangul;
    f[CJK_PIECE] += pieces;
    f[CHAR_EXTRA] += extra;
    end
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
/// (Lost: the lookup moved from the loop's head into the arms of ASCII letters and two-byte
/// classes, the only ones where a word starts: 43.9 -> 42.1 M instructions a pass with o200k,
/// but one thread -3..+0.5 % for the nine profiles, best of 3 interleaved turns.)
pub fn features(text: &[u8], known: Option<&KnownWords>) -> [u64; NUM_FEATURES] {
    let mut f = [0u64; NUM_FEATURES];
    let n = text.len();
    if n == 0 {
        return f;
    }
    f[DOC] = 1;
    let tables = known;
    let group = u64::from(tables.map_or(0, |k| k.digit_group));
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
                f[UNKNOWN_WORD] += 1;
            }
        }
        match c as usize {
            LOWER | UPPER | DIGIT => {
                let start = i;
                let (mut lower, mut upper, mut digits) = (0u64, 0u64, 0u64);
                let (mut words, mut digit_runs, mut rare) = (0u64, 0u64, 0u64);
                let mut p = prev;
                let mut prev_letter = NO_LETTER;
                // a digit run's pre-tokenizer pieces, `group` digits a piece (0: the whole run),
                // counted as the run goes: a digit whose place in its run is a multiple of
                // `group` starts one (with 0, only its first). (Dividing the run's length when
                // it ended, `div_ceil`, was 8 % of the samples on the held-out ids with o200k:
                // perf, cpu-clock; counted, the ids ran 2-5 % faster, the split 0-4 %.)
                let (mut dpieces, mut dpos) = (0u64, 0u64);
                while i < n {
                    let b = text[i];
                    if b.is_ascii_lowercase() {
                        // the hot path: a run of lowercase letters, one table lookup a byte
                        // (lost: every byte of the run in one step without branches, each
                        // count added as 0 or 1 from a class table: 43.9 -> 57.8 M
                        // instructions a pass with o200k, the held-out ids -3..+8 %)
                        dpos = 0;
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
                        dpos = 0;
                        let letter = (b - b'A') as usize;
                        upper += 1;
                        words += u64::from(!is_word(p) || p == LOWER as u8);
                        rare += u64::from((COMMON[prev_letter] >> letter) & 1 ^ 1);
                        prev_letter = letter;
                        p = UPPER as u8;
                    } else if b.is_ascii_digit() {
                        digits += 1;
                        dpieces += u64::from(dpos == 0);
                        dpos = if dpos + 1 == group { 0 } else { dpos + 1 };
                        digit_runs += u64::from(p != DIGIT as u8);
                        prev_letter = NO_LETTER;
                        p = DIGIT as u8;
                    } else {
                        break;
                    }
                    i += 1;
                }
                f[DIGIT_PIECE] += dpieces;
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
            SPACE => loop {
                let start = i;
                while i < n && text[i] == b' ' {
                    i += 1;
                }
                f[SPACE] += 1;
                f[SPACE_REPEAT] += (i - start - 1) as u64;
                // a space no tokenizer joins to the control after it, nor any but Claude's to
                // the digit after it
                f[SPACE_BREAK] +=
                    u64::from(i < n && matches!(LEAD[text[i] as usize] as usize, DIGIT | CTRL));
                prev = c;
                prev_word_char = false;
                // an ASCII word after the spaces is looked up here, and a space after a known
                // one loops back: prose's " word" costs no pass through the loop's head and its
                // dispatch (one thread, best of 3 interleaved turns: held-out split 1.0-3.6 %
                // faster for the nine profiles, its English 7 % with o200k; callgrind 48.7 ->
                // 48.3 M instructions a pass). After an unknown one, prev_word_char tells the
                // head not to look it up again (the arm of letters reads only prev). Lost: the
                // same lookup after a run of marks ("key", .method): 43.9 -> 44.3 M
                // instructions a pass, one thread -1..+1 %.
                let Some(k) = known else { break };
                if i >= n || !text[i].is_ascii_alphabetic() {
                    break;
                }
                let Some((end, last)) = known_end(text, i, k) else {
                    f[UNKNOWN_WORD] += 1;
                    prev_word_char = true;
                    break;
                };
                f[KNOWN_WORD] += 1;
                prev = last;
                prev_word_char = true;
                i = end;
                if i >= n || text[i] != b' ' {
                    break;
                }
            },
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
                // a two-byte non-letter (U+00A0, ×, «) ends a word: the letter after it starts one
                prev = if prev_word_char { c } else { NONE };
            }
            U3_INDIC => {
                // the characters led by 0xE0 that follow in the same loop: Thai or Devanagari
                // text is one such run (through the loop's head one by one, the held-out
                // split's world texts took 4.79 M instructions a pass against 4.23 M with o200k
                // and ran 14 % slower)
                loop {
                    let c = if i + 1 < n && deva_thai_second(text[i + 1]) {
                        U3_DEVA_THAI as u8
                    } else {
                        U3_INDIC as u8
                    };
                    f[c as usize] += 1;
                    f[CHAR_EXTRA] += extra_at(text, i, tables);
                    i += 3;
                    prev = c;
                    if i >= n || text[i] != 0xE0 {
                        break;
                    }
                }
                prev_word_char = false;
            }
            _ if b >= 0xE3 && piece_char_at(text, i) => {
                i = piece_run(text, i, tables, &mut f);
                prev = LEAD[text[i - 3] as usize];
                prev_word_char = false;
            }
            OTHER_WS => {
                // a tab (CR, VT, FF) before an ASCII or two-byte letter: a token of its own
                // (in the catch-all arm below, this test cost 6.7 % more instructions on the
                // held-out split with o200k: callgrind, 53.5 against 50.2 M a pass)
                f[OTHER_WS] += 1;
                let next_letter =
                    i + 1 < n && (text[i + 1].is_ascii_alphabetic() || letter2_at(text, i + 1));
                f[WS_WORD] += u64::from(next_letter);
                i += 1;
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
                // the characters that follow whose lead byte always comes to this arm, in the
                // same loop: an emoji sequence (U+1F600, ZWJ U+200D, U+FE0F) is one such run
                // (through the loop's head one by one, its emoji texts took 4.07 M instructions a
                // pass against 3.64 M with o200k and ran 11 % slower)
                while i < n && matches!(text[i], 0xE1 | 0xE2 | 0xEE..=0xFF) {
                    let b = text[i];
                    let c = LEAD[b as usize];
                    f[c as usize] += 1;
                    f[CHAR_EXTRA] += extra_at(text, i, tables);
                    i += seq_len(b);
                    prev = c;
                }
            }
        }
    }
    f
}
