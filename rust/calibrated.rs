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
//!
//! The pass is split by concern: `classes` (the class of every lead byte, letters, common letter
//! pairs), `known` (the tokenizer's tables: the known-word set, `char_extra`, `digit_group`,
//! `punct_pairs`), `features` (the one pass that counts them); this file holds the feature
//! indices and the estimate built from the counts.

use rayon::prelude::*;

mod classes;
mod features;
mod known;
#[cfg(test)]
mod tests;

pub use features::features;
pub use known::{
    piece_pair_bit, piece_step, prefix_hash, word_hash, KnownWords, PieceTable, TableError,
};

pub const NUM_FEATURES: usize = 39;
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
pub const CJK_PIECE: usize = 35;
pub const UNKNOWN_WORD: usize = 36;
pub const WS_WORD: usize = 37;
pub const SPACE_BREAK: usize = 38;

/// Code points the `char_extra` table covers (2 bits each); beyond it a character's extra is
/// its UTF-8 length less one, the byte-level worst case.
pub const EXTRA_LIMIT: u32 = 0x2_0000;
pub const EXTRA_TABLE_BYTES: usize = (EXTRA_LIMIT / 4) as usize;
pub const MAX_DIGIT_GROUP: u8 = 16;
/// A bit per ordered pair of ASCII characters, `a * 128 + b`.
pub const PAIR_TABLE_BYTES: usize = 128 * 128 / 8;
/// The longest CJK token, in characters, that a `cjk_piece` looks for.
pub const MAX_PIECE_CHARS: usize = 8;
/// A bit per hashed pair of CJK characters that starts some multi-character token (64 KB, so it
/// stays in cache): a `cjk_piece` looks a run up only where the pair's bit is set.
pub const PIECE_PAIR_BITS: u32 = 19;
pub const PIECE_PAIR_TABLE_BYTES: usize = 1 << (PIECE_PAIR_BITS - 3);
/// The hash of a run of piece characters that a `cjk_tokens` table keys on (`piece_step`), and
/// the two flags beside a prefix's fingerprint (see `known::PieceTable`).
pub const PIECE_HASH_SEED: u64 = 0x243F_6A88_85A3_08D3;
pub const PIECE_HASH_MULT: u64 = 0x9E37_79B9_7F4A_7C15;
pub const PIECE_FINGERPRINT_BITS: u32 = 30;
pub const PIECE_TOKEN: u32 = 1;
pub const PIECE_LONGER: u32 = 2;

/// At most this many cost vectors (bounds) in one estimate: each costs one dot product after
/// the one pass over the text, and a profile needs a few (the minimum of bounds fitted on
/// different kinds of text, `fit_groups`).
pub const MAX_BOUNDS: usize = 8;

/// One cost vector: thousandths of a token per unit of each feature.
pub type Costs = [u64; NUM_FEATURES];

/// Why a cost vector was refused; `Display` gives the reference's message. `bound` is the
/// vector's index when the costs were given as a list of vectors (`costs[bound]` in messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CostError {
    Length {
        bound: Option<usize>,
        n: usize,
    },
    Range {
        bound: Option<usize>,
        i: usize,
        c: i128,
    },
    Bounds(usize),
}

/// The reference's `OLD_LENGTH_HINT`, word for word.
const OLD_LENGTH_HINT: &str =
    "; a vector from before ws_word or space_break (the last features) estimates as it did with 0s appended";

/// `costs` or `costs[b]`: where a refused vector sits.
pub fn cost_path(bound: Option<usize>) -> String {
    match bound {
        None => "costs".to_string(),
        Some(b) => format!("costs[{b}]"),
    }
}

impl std::fmt::Display for CostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CostError::Length { bound, n } => {
                let at = cost_path(*bound);
                write!(
                    f,
                    "{at}: expected {NUM_FEATURES} items (one per feature), got {n}"
                )?;
                // one or two short: most likely saved before `ws_word` and `space_break` (the
                // last features) were added
                if (NUM_FEATURES - 2..NUM_FEATURES).contains(n) {
                    write!(f, "{OLD_LENGTH_HINT}")?;
                }
                Ok(())
            }
            CostError::Range { bound, i, c } => {
                let at = cost_path(*bound);
                write!(f, "{at}[{i}]: must be in [0, {MAX_COST}], got {c}")
            }
            CostError::Bounds(n) => write!(
                f,
                "costs: expected 1 to {MAX_BOUNDS} cost vectors (bounds), got {n}"
            ),
        }
    }
}

/// Checks a cost vector: `NUM_FEATURES` values in `[0, MAX_COST]`; `bound` places it in
/// messages.
pub fn check_costs(costs: &[i128], bound: Option<usize>) -> Result<Costs, CostError> {
    if costs.len() != NUM_FEATURES {
        return Err(CostError::Length {
            bound,
            n: costs.len(),
        });
    }
    let mut out = [0u64; NUM_FEATURES];
    for (i, &c) in costs.iter().enumerate() {
        if !(0..=MAX_COST as i128).contains(&c) {
            return Err(CostError::Range { bound, i, c });
        }
        out[i] = c as u64;
    }
    Ok(out)
}

/// `ceil(min over bounds of sum(features * costs) / SCALE)`, saturating at `limits::MAX_COUNT`:
/// each bound bounds the true count, so their minimum does too, and it is the tightest of them.
/// The text is read once whatever the number of bounds. No bound at all estimates 0 (the
/// bindings refuse an empty list of bounds).
pub fn estimate(text: &[u8], bounds: &[Costs], known: Option<&KnownWords>) -> u64 {
    let f = features(text, known);
    let total = bounds
        .iter()
        .map(|costs| {
            f.iter()
                .zip(costs)
                .map(|(&n, &c)| n as u128 * c as u128)
                .sum::<u128>()
        })
        .min()
        .unwrap_or(0);
    crate::limits::saturate(total.div_ceil(SCALE))
}

/// Batches smaller than this many bytes run on the calling thread: below it, handing work to
/// the pool costs more than it saves (a batch of a few chat messages takes microseconds).
const PARALLEL_MIN_BYTES: usize = 256 * 1024;

/// `estimate` of each text; large batches run on all cores (each text is still estimated in
/// one pass on one thread, so the result never depends on the split).
pub fn estimate_batch<T: AsRef<[u8]> + Sync>(
    texts: &[T],
    bounds: &[Costs],
    known: Option<&KnownWords>,
) -> Vec<u64> {
    let one = |t: &T| estimate(t.as_ref(), bounds, known);
    let total: usize = texts.iter().map(|t| t.as_ref().len()).sum();
    if total < PARALLEL_MIN_BYTES || texts.len() < 2 {
        return texts.iter().map(one).collect();
    }
    texts.par_iter().with_min_len(8).map(one).collect()
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
            total += super::estimate(&text, &[costs], None);
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
            total += super::estimate(&text, &[costs], Some(&k));
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "with {} known words: {:.0} MB/s ({total})",
            k.len(),
            50.0 * text.len() as f64 / secs / 1e6
        );
    }
}
