//! The tokenizer's own tables that the calibrated estimator reads: the set of words it holds as
//! one token, the tokens each character costs alone (`char_extra`), its digit group and the pairs
//! of ASCII marks some token holds side by side.

use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use super::*;

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
    pub(super) digit_group: u8,
    // the pairs of ASCII marks some token holds side by side (None: no pair)
    pairs: Option<Box<[u8]>>,
    // the hashed pairs of CJK characters that start a multi-character token (None: any may)
    piece_pairs: Option<Box<[u8]>>,
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
            piece_pairs: None,
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
    PiecePairsLength(usize),
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
            TableError::PiecePairsLength(n) => write!(
                f,
                "known words: cjk_pairs: expected {PIECE_PAIR_TABLE_BYTES} bytes (a bit per hashed pair of CJK characters), got {n}"
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
            piece_pairs: None,
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
        piece_pairs: Option<&[u8]>,
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
        if let Some(p) = piece_pairs {
            if p.len() != PIECE_PAIR_TABLE_BYTES {
                return Err(TableError::PiecePairsLength(p.len()));
            }
        }
        self.piece_pairs = piece_pairs.map(|p| p.to_vec().into_boxed_slice());
        self.extra = extra.map(|e| e.to_vec().into_boxed_slice());
        self.digit_group = digit_group as u8;
        self.pairs = pairs.map(|p| p.to_vec().into_boxed_slice());
        Ok(self)
    }

    /// Whether some token holds the ASCII marks `a`, `b` side by side.
    #[inline]
    pub(super) fn holds_pair(&self, a: u8, b: u8) -> bool {
        let bit = (usize::from(a & 0x7F) << 7) | usize::from(b & 0x7F);
        self.pairs
            .as_ref()
            .is_some_and(|p| (p[bit >> 3] >> (bit & 7)) & 1 == 1)
    }

    /// Whether some multi-character token may start with the CJK characters `a`, `b` (their
    /// hashed pair's bit; without a table, any may).
    #[inline]
    pub(super) fn may_start_piece(&self, a: u32, b: u32) -> bool {
        self.piece_pairs.as_ref().is_none_or(|t| {
            let bit = piece_pair_bit(a, b);
            (t[bit >> 3] >> (bit & 7)) & 1 == 1
        })
    }

    /// The extra tokens of code point `cp` (a sequence of `len` bytes) alone.
    #[inline]
    pub(super) fn extra_of(&self, cp: u32, len: usize) -> u64 {
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

/// The 32-bit hash a `KnownWords` set holds for a prefix (two characters or more, the token
/// itself included) of a multi-character CJK token: seed 1, so a prefix is never a word.
#[inline]
pub fn prefix_hash(key: &[u8]) -> u32 {
    xxh3_64_with_seed(key, 1) as u32
}

/// The bit of the pair of CJK code points `a`, `b` in a `cjk_pairs` table: the top
/// `PIECE_PAIR_BITS` of `(a << 16 | b)` times a golden-ratio constant, in 32 bits.
#[inline]
pub fn piece_pair_bit(a: u32, b: u32) -> usize {
    ((a << 16 | (b & 0xFFFF)).wrapping_mul(0x9E37_79B1) >> (32 - PIECE_PAIR_BITS)) as usize
}
