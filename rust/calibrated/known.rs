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
    // the hashed pairs of CJK characters that start a multi-character token, in a profile written
    // before `cjk_tokens` (its tokens and their prefixes hashed into `slots`; None: no lookup)
    pub(super) piece_pairs: Option<Box<[u8]>>,
    // the tokenizer's CJK tokens of 2 to MAX_PIECE_CHARS characters and their prefixes (None: a
    // profile without them)
    pub(super) pieces: Option<PieceTable>,
}

impl Default for KnownWords {
    fn default() -> Self {
        Self {
            slots: vec![0; 2 + WINDOW - 1],
            mask: 1,
            shift: 63,
            len: 0,
            has_zero: false,
            extra: None,
            digit_group: 0,
            pairs: None,
            piece_pairs: None,
            pieces: None,
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
    PieceTokensUtf8(usize),
    PieceToken(usize),
    PiecePairsWithTokens,
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
            TableError::PieceTokensUtf8(at) => {
                write!(f, "known words: cjk_tokens: not UTF-8 (at byte {at})")
            }
            TableError::PieceToken(i) => write!(
                f,
                "known words: cjk_tokens: token {i}: expected 2 to {MAX_PIECE_CHARS} characters of U+3000-U+9FFF or U+AC00-U+D7A3, one token a line"
            ),
            TableError::PiecePairsWithTokens => write!(
                f,
                "known words: cjk_pairs: not with cjk_tokens (the pair table is built from the tokens; cjk_pairs is the table of profiles written before cjk_tokens)"
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
        // at most 3/4 full (1 MB for o200k's 144k words): a smaller table stays in cache.
        // (Lost: 3/4 full with any capacity, the slot by a multiply-range instead of a power
        // of two (772 KB for o200k): one thread o200k 267 against 271 MB/s, Qwen 250 against
        // 261, best of 10 interleaved turns, with the loop over single slots.)
        let capacity = (n + n / 3 + 1).next_power_of_two().max(2);
        let mut out = Self {
            slots: vec![0; capacity + WINDOW - 1],
            mask: capacity - 1,
            shift: 64 - capacity.trailing_zeros(),
            len: 0,
            has_zero: false,
            extra: None,
            digit_group: 0,
            pairs: None,
            piece_pairs: None,
            pieces: None,
        };
        for c in bytes.chunks_exact(4) {
            out.insert(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
        Ok(out)
    }

    /// The same set with the tokenizer's character tables: `extra` (2 bits per code point
    /// below `EXTRA_LIMIT`, `EXTRA_TABLE_BYTES` long), `digit_group`, `pairs` (a bit per
    /// ordered pair of ASCII characters, `PAIR_TABLE_BYTES` long) and the `cjk_pairs` of a
    /// profile written before `cjk_tokens`; checked in this order (the reference's).
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

    /// The same set with the `cjk_tokens` table (see `PieceTable::from_tokens`), checked after
    /// `with_tables` (the reference's order); not with `cjk_pairs`.
    pub fn with_piece_tokens(mut self, data: &[u8]) -> Result<Self, TableError> {
        let table = PieceTable::from_tokens(data)?;
        if self.piece_pairs.is_some() {
            return Err(TableError::PiecePairsWithTokens);
        }
        self.pieces = Some(table);
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
        if i < WINDOW - 1 {
            self.slots[self.mask + 1 + i] = h; // the copy a window past the end reads
        }
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

    /// A lookup reads `WINDOW` slots from the home slot at a time and compares them all, no
    /// branch per slot: the key is there when any is it (keys are never removed), absent when
    /// none is and one is empty (linear probing put it before the first empty slot). The loop
    /// over single slots mispredicted on every collision and every miss: with it, one thread
    /// was 7-14 % slower on the held-out split for the nine profiles (best of 3 interleaved
    /// turns, benches/native/calibrated_pass; callgrind 46.6 against 47.4 M instructions a pass
    /// with o200k). Windows of 4 and 16 slots lost to 8 by 2-7 % and 0-5 %.
    #[inline]
    pub fn contains(&self, h: u32) -> bool {
        if h == 0 {
            return self.has_zero;
        }
        let mut i = self.slot(h);
        loop {
            let w = &self.slots[i..i + WINDOW];
            let (hit, empty) = w
                .iter()
                .fold((false, false), |(a, b), &s| (a | (s == h), b | (s == 0)));
            if hit {
                return true;
            }
            if empty {
                return false;
            }
            i = (i + WINDOW) & self.mask;
        }
    }
}

/// The slots a `KnownWords` lookup compares at once; the table holds a copy of its first
/// `WINDOW - 1` slots past its end, so that a window never wraps.
const WINDOW: usize = 8;

/// The hash of a run of piece characters extended by code point `cp` (see the reference's
/// `piece_step`): one xor and one multiply, mod 2^64; a run's hash is its code points stepped in
/// from `PIECE_HASH_SEED`.
#[inline]
pub fn piece_step(h: u64, cp: u32) -> u64 {
    (h ^ u64::from(cp)).wrapping_mul(PIECE_HASH_MULT)
}

/// A `cjk_tokens` table (the reference's `piece_entries`): per prefix of two characters or more
/// of each token (the token included), its fingerprint (the top `PIECE_FINGERPRINT_BITS` of its
/// `piece_step` hash) beside two flags, `PIECE_TOKEN` (a token itself) and `PIECE_LONGER` (a
/// longer token starts with it), so one probe per extension of a piece answers both. Open
/// addressing with linear probing, at most a quarter full (o200k's 5.3k prefixes: 128 KB;
/// Qwen's 68k: 2 MB); the home slot is the top bits of the hash. `pairs` holds the bit of each
/// token's first two characters (`piece_pair_bit`), checked before the first probe: it pays
/// (probing at every character instead, with the home slot read without a branch, Chinese with
/// o200k ran at 369 against 403 MB/s, Japanese 321 against 416, cl100k's Chinese 343 against
/// 540, best of 6 turns at load 3; a 16 KB table instead of 64 KB, 346 against 358, no better).
#[derive(Debug, Clone)]
pub struct PieceTable {
    slots: Box<[u32]>, // fingerprint << 2 | flags; 0 marks an empty slot (flags are never 0)
    mask: usize,
    shift: u32, // 64 - log2(slots.len())
    pairs: Box<[u8]>,
}

impl PieceTable {
    /// From the tokens, UTF-8, one a line (empty: none), each of 2 to `MAX_PIECE_CHARS` piece
    /// characters; checked as the reference's `check_piece_tokens` does.
    pub fn from_tokens(data: &[u8]) -> Result<Self, TableError> {
        let text =
            std::str::from_utf8(data).map_err(|e| TableError::PieceTokensUtf8(e.valid_up_to()))?;
        let tokens: Vec<&str> = if text.is_empty() {
            Vec::new()
        } else {
            text.split('\n').collect()
        };
        let mut entries = Vec::new();
        let mut pairs = vec![0u8; PIECE_PAIR_TABLE_BYTES].into_boxed_slice();
        for (i, t) in tokens.iter().enumerate() {
            let cps: Vec<u32> = t.chars().map(u32::from).collect();
            let ok = (2..=MAX_PIECE_CHARS).contains(&cps.len())
                && cps
                    .iter()
                    .all(|&c| (0x3000..0xA000).contains(&c) || (0xAC00..=0xD7A3).contains(&c));
            if !ok {
                return Err(TableError::PieceToken(i));
            }
            let bit = piece_pair_bit(cps[0], cps[1]);
            pairs[bit >> 3] |= 1 << (bit & 7);
            let mut h = piece_step(PIECE_HASH_SEED, cps[0]);
            for (k, &c) in cps.iter().enumerate().skip(1) {
                h = piece_step(h, c);
                let flag = if k + 1 == cps.len() {
                    PIECE_TOKEN
                } else {
                    PIECE_LONGER
                };
                entries.push((h, flag));
            }
        }
        let n = entries.len();
        // at most a quarter full: three quarters (KnownWords' load) was slower, the probe's loop
        // mispredicted on the clusters (one thread, CPU time, best of 8 turns at load 3-4:
        // Chinese with o200k 359 against 376 MB/s, Qwen 227 against 362, DeepSeek 209 against
        // 354, cl100k 418 against 499; Qwen's table is 2 MB for it, o200k's 128 KB)
        let capacity = (4 * n + 1).next_power_of_two().max(2);
        let mut out = Self {
            slots: vec![0; capacity].into_boxed_slice(),
            mask: capacity - 1,
            shift: 64 - capacity.trailing_zeros(),
            pairs,
        };
        for (h, flag) in entries {
            let fp = (h >> (64 - PIECE_FINGERPRINT_BITS)) as u32;
            let mut i = out.home(h);
            loop {
                let s = out.slots[i];
                if s == 0 || s >> 2 == fp {
                    out.slots[i] = fp << 2 | (s & 3) | flag;
                    break;
                }
                i = (i + 1) & out.mask;
            }
        }
        Ok(out)
    }

    #[inline]
    fn home(&self, h: u64) -> usize {
        (h >> self.shift) as usize
    }

    /// Whether some token starts with the piece characters `a`, `b` (the pair's bit).
    #[inline]
    pub(super) fn may_start(&self, a: u32, b: u32) -> bool {
        let bit = piece_pair_bit(a, b);
        (self.pairs[bit >> 3] >> (bit & 7)) & 1 == 1
    }

    /// The flags of the run whose `piece_step` hash is `h` (0: no token starts with it).
    /// Lost: `KnownWords`' windows of 8 slots compared at once (here the first match before
    /// the first empty slot, as bit masks): at a quarter full the home slot mostly answers, and
    /// one thread was 2-20 % slower on the held-out split (Qwen 216 against 271 MB/s, DeepSeek
    /// 184 against 206; callgrind 47.4 -> 54.9 M instructions a pass with o200k), and so with
    /// the table half full or full (fewer bytes for Qwen's and DeepSeek's 1-2 MB): 8-17 %
    /// slower. (The home slot is the top bits of the hash and the fingerprint its top 30, so
    /// equal fingerprints share a chain and the flags are the reference's dict at any load.)
    #[inline]
    pub(super) fn flags(&self, h: u64) -> u32 {
        let fp = (h >> (64 - PIECE_FINGERPRINT_BITS)) as u32;
        let mut i = self.home(h);
        loop {
            match self.slots[i] {
                0 => return 0,
                s if s >> 2 == fp => return s & 3,
                _ => i = (i + 1) & self.mask,
            }
        }
    }

    /// The number of prefixes it holds (for tests and benches).
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|&&s| s != 0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
