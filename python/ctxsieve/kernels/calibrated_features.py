"""The one pass that counts the calibrated estimator's features (specified in ``calibrated``)."""

from __future__ import annotations

from ctxsieve.kernels.calibrated_classes import (
    _COMMON,
    CHAR_EXTRA,
    CJK_PIECE,
    CTRL,
    DIGIT,
    DIGIT_PIECE,
    DIGIT_RUN,
    DOC,
    FEATURES,
    KNOWN_WORD,
    LOWER,
    MAX_PIECE_CHARS,
    MIXED_CHAR,
    MIXED_MIN,
    MIXED_RUN,
    NUM_FEATURES,
    OTHER_WS,
    PIECE_HASH_SEED,
    PIECE_LONGER,
    PIECE_TOKEN,
    PUNCT,
    PUNCT_BREAK,
    PUNCT_REPEAT,
    PUNCT_RUN,
    RARE_BIGRAM,
    SPACE,
    SPACE_BREAK,
    SPACE_REPEAT,
    U2_CLASSES,
    UNKNOWN_WORD,
    UPPER,
    WORD_CLASSES,
    WORD_START,
    WS_WORD,
    char_class,
    is_mark_before_word,
    is_piece_char,
    is_word_char,
)
from ctxsieve.kernels.calibrated_tables import (
    PIECE_FINGERPRINT_SHIFT,
    KnownWords,
    char_extra,
    digit_pieces,
    holds_pair,
    may_start,
    piece_step,
    prefix_hash,
    word_hash,
)


def _known_end(text: str, i: int, known: KnownWords | None) -> int:
    """When a known word starts at ``i`` (the code point before it is neither a word character
    nor an ASCII digit), the index just past it; else -1."""
    n = len(text)
    j = i
    while j < n and is_word_char(ord(text[j])):
        j += 1
    if j < n and "0" <= text[j] <= "9":
        return -1
    # the key holds the space or mark before the word when there is one (see is_mark_before_word)
    start = i - 1 if i and (text[i - 1] == " " or is_mark_before_word(ord(text[i - 1]))) else i
    return j if word_hash(text[start:j].encode("utf-8", "surrogatepass")) in known else -1  # type: ignore[operator]


def _piece_end(text: str, i: int, known: KnownWords) -> int:
    """The end of the ``cjk_piece`` that starts at ``i``: the longest run of at most
    ``MAX_PIECE_CHARS`` piece characters from ``i`` that the tokenizer holds as a token, found by
    extending while some token starts with the text so far; ``i + 1`` when none.

    With ``cjk_tokens`` one probe of their table per extension answers both (the flags of the
    text so far's fingerprint), after the pairs the tokens start with. A profile written before
    them (``cjk_pairs``, its tokens and prefixes hashed into the set) is read as it was: two
    probes of the set per extension. Without either every character is a piece."""
    n = len(text)
    end = m = i + 1
    if m >= n or not is_piece_char(ord(text[m])):
        return end
    flags = known.piece_flags
    if flags is not None:
        if not may_start(known.piece_pairs, ord(text[i]), ord(text[m])):
            return end
        h = piece_step(PIECE_HASH_SEED, ord(text[i]))
        while m < n and m - i < MAX_PIECE_CHARS and is_piece_char(ord(text[m])):
            h = piece_step(h, ord(text[m]))
            m += 1
            f = flags.get(h >> PIECE_FINGERPRINT_SHIFT, 0)
            if f & PIECE_TOKEN:
                end = m
            if not f & PIECE_LONGER:
                break
        return end
    if known.cjk_pairs is None or not len(known) or not may_start(known.cjk_pairs, ord(text[i]), ord(text[m])):
        return end
    while m < n and m - i < MAX_PIECE_CHARS and is_piece_char(ord(text[m])):
        m += 1
        key = text[i:m].encode("utf-8")
        if prefix_hash(key) not in known:
            break
        if word_hash(key) in known:
            end = m
    return end


def features(text: str, known: KnownWords | None = None) -> list[int]:
    """The feature counts of one text, indexed like ``FEATURES``."""
    f = [0] * NUM_FEATURES
    if not text:
        return f
    f[DOC] = 1
    prev = -1  # class of the previous code point, -1 at the start
    prev_word_char = False  # the previous code point is a word character
    # the pending alphanumeric ASCII run: its counts go to the regular features or to mixed_*
    run_len = run_letters = run_digits = run_lower = run_upper = run_words = run_digit_runs = run_rare = 0
    prev_letter = -1  # the previous code point folded to 0-25 when it was an ASCII letter

    def flush() -> None:
        nonlocal run_len, run_letters, run_digits, run_lower, run_upper, run_words, run_digit_runs, run_rare
        if run_len >= MIXED_MIN and run_letters and run_digits:
            f[MIXED_CHAR] += run_len
            f[MIXED_RUN] += 1
        else:
            f[LOWER] += run_lower
            f[UPPER] += run_upper
            f[DIGIT] += run_digits
            f[WORD_START] += run_words
            f[DIGIT_RUN] += run_digit_runs
            f[RARE_BIGRAM] += run_rare
        run_len = run_letters = run_digits = run_lower = run_upper = run_words = run_digit_runs = run_rare = 0

    look_up = known is not None and len(known) > 0
    table = None if known is None else known.char_extra
    group = 0 if known is None else known.digit_group
    pairs = None if known is None else known.punct_pairs
    digit_len = 0  # the current ASCII digit run, counted in digit_piece when it ends
    piece_end = 0  # the end of the current cjk_piece
    n = len(text)
    i = -1
    while i + 1 < n:
        i += 1
        ch = text[i]
        cp = ord(ch)
        c = char_class(cp)
        if digit_len and c != DIGIT:
            f[DIGIT_PIECE] += digit_pieces(digit_len, group)
            digit_len = 0
        word_char = is_word_char(cp)
        if look_up and word_char and not prev_word_char and prev != DIGIT:
            end = _known_end(text, i, known)
            if end > 0:
                # no alphanumeric run is pending: the code point before, if any, is not one
                f[KNOWN_WORD] += 1
                prev, prev_word_char, prev_letter = char_class(ord(text[end - 1])), True, -1
                i = end - 1
                continue
            f[UNKNOWN_WORD] += 1
        prev_word_char = word_char
        letter = (cp | 0x20) - 0x61 if c == LOWER or c == UPPER else -1
        if letter >= 0 and prev_letter >= 0 and prev_letter * 26 + letter not in _COMMON:
            run_rare += 1
        prev_letter = letter
        if c == LOWER or c == UPPER or c == DIGIT:
            run_len += 1
            if c == DIGIT:
                digit_len += 1
                run_digits += 1
                if prev != DIGIT:
                    run_digit_runs += 1
            else:
                run_letters += 1
                if c == LOWER:
                    run_lower += 1
                else:
                    run_upper += 1
                if prev not in WORD_CLASSES or (c == UPPER and prev == LOWER):
                    run_words += 1
        else:
            if run_len:
                flush()
            if is_piece_char(cp):
                # a character inside a multi-character CJK token costs no extra of its own
                if i >= piece_end:
                    piece_end = i + 1 if known is None else _piece_end(text, i, known)
                    f[CJK_PIECE] += 1
                    if piece_end == i + 1:
                        f[CHAR_EXTRA] += char_extra(cp, table)
            elif cp >= 0x80:
                f[CHAR_EXTRA] += char_extra(cp, table)
            if c == SPACE:
                f[SPACE_REPEAT if prev == SPACE else SPACE] += 1
                if i + 1 < n and char_class(ord(text[i + 1])) in (DIGIT, CTRL):
                    f[SPACE_BREAK] += 1
            elif c in U2_CLASSES:
                f[c] += 1
                if prev not in WORD_CLASSES:
                    f[WORD_START] += 1
            elif c == PUNCT:
                if prev != PUNCT:
                    f[PUNCT_RUN] += 1
                elif not holds_pair(ord(text[i - 1]), cp, pairs):
                    f[PUNCT_BREAK] += 1
                # "=====", "----", "****": a repeated mark merges into few tokens
                f[PUNCT_REPEAT if prev == PUNCT and text[i - 1] == ch else PUNCT] += 1
            else:
                f[c] += 1
                if c == OTHER_WS and i + 1 < n and is_word_char(ord(text[i + 1])):
                    f[WS_WORD] += 1
        # a two-byte non-letter (U+00A0, ×, «) ends a word: the letter after it starts one
        prev = -1 if c in U2_CLASSES and not word_char else c
    if run_len:
        flush()
    if digit_len:
        f[DIGIT_PIECE] += digit_pieces(digit_len, group)
    return f


def classify(text: str) -> dict[str, int]:
    """``features(text)`` by name."""
    return dict(zip(FEATURES, features(text)))
