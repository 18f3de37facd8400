"""Type stubs of the native core (rust/py.rs). Checked against the built module by
``python -m mypy.stubtest ctxsieve._native``."""

from typing import Final, final

__all__ = [
    "MAX_BETA",
    "MAX_COUNT",
    "UNICODE_VERSION",
    "Bm25Index",
    "InternalError",
    "_panic_for_tests",
    "cache_order",
    "content_hash",
    "dedupe",
    "estimate_tokens",
    "fill_budget",
    "grep_lines",
    "shingle_hashes",
    "words",
]

UNICODE_VERSION: Final[str]
MAX_COUNT: Final[int]
MAX_BETA: Final[float]

class InternalError(RuntimeError):
    """A Rust panic, raised as an ``Exception`` instead of crossing the boundary."""

def _panic_for_tests(message: str) -> None: ...
def estimate_tokens(texts: list[str], bytes_per_token: float) -> list[int]: ...
def words(text: str) -> list[str]: ...
def shingle_hashes(text: str) -> list[int]: ...
def content_hash(text: str) -> int | None: ...
def dedupe(
    texts: list[str], ids: list[str], scores: list[float], pinned: list[bool], history: list[bool], threshold: float
) -> tuple[list[int], list[int]]: ...
def fill_budget(
    tokens: list[int],
    scores: list[float],
    sources: list[int],
    pinned: list[bool],
    deprecated: list[bool],
    ids: list[str],
    budget: int,
    beta: float,
    min_score: float | None,
    caps: list[int],
    min_items: list[int],
    include_deprecated: bool,
) -> list[int]: ...
def cache_order(
    stability: list[int],
    history: list[bool],
    scores: list[float],
    source_rank: list[int],
    order_keys: list[str],
    ids: list[str],
) -> list[int]: ...
def grep_lines(
    text: str,
    regex: str,
    required: str,
    program: tuple[list[tuple[int, int, int]], list[tuple[tuple[int, int], ...]]],
    confirm: bool,
    max_matches: int,
) -> list[int]: ...

@final
class Bm25Index:
    def __new__(cls, docs: list[str], k1: float | None = None, b: float | None = None) -> Bm25Index: ...
    def search(self, query: str, limit: int) -> list[tuple[int, float]]: ...
    def __len__(self) -> int: ...

# --- calibrated estimator (issue 7) ---
__all__ += ["KnownWords", "calibrated_estimate"]

@final
class KnownWords:
    def __new__(
        cls,
        hashes: bytes,
        char_extra: bytes | None = None,
        digit_group: int | None = None,
        punct_pairs: bytes | None = None,
        cjk_pairs: bytes | None = None,
        cjk_tokens: bytes | None = None,
    ) -> KnownWords: ...
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...

# costs: one vector of NUM_FEATURES ints, or a list of 1 to MAX_BOUNDS such vectors (the estimate is the smallest)
def calibrated_estimate(
    texts: list[str], costs: list[int] | list[list[int]], known: KnownWords | None = None
) -> list[int]: ...

# --- end calibrated estimator (issue 7) ---

# --- the build path's kernels (issue 15, rust/py_build.rs) ---
__all__ += ["block_costs", "calibrate_scores", "wrapper_texts"]

def wrapper_texts(
    ids: list[str], sources: list[str], kinds: list[str], citations: list[str | None]
) -> list[str | None]: ...
def block_costs(
    texts: list[str],
    tokens: list[int | None],
    ids: list[str],
    sources: list[str],
    kinds: list[str],
    citations: list[str | None],
    bytes_per_token: float,
) -> list[int | None]: ...
def calibrate_scores(
    raw: list[float],
    source_rank: list[int],
    modes: list[int],
    weights: list[float],
    marked: list[int],
    masks: list[int],
    stale_factor: float,
    reviewed_factor: float,
) -> list[float]: ...

# the built-in policy's fill over a build's columns (issue 15, rust/py_fill.rs)
__all__ += ["fill_open"]

def fill_open(
    tokens: list[int],
    scores: list[float],
    ranks: list[int],
    pinned: list[bool],
    deprecated: list[bool],
    ids: list[str],
    reasons: list[str | None],
    names: list[str],
    budget: int,
    beta: float,
    min_score: float | None,
    caps: list[int],
    min_items: list[int],
    include_deprecated: bool,
) -> list[int]: ...

# --- thread budget of the calling thread's kernels (issue 15, rust/py_budget.rs) ---
__all__ += ["set_thread_budget", "thread_budget"]

def set_thread_budget(threads: int | None) -> None: ...
def thread_budget() -> int | None: ...

# --- dedupe memo (issue 15) ---
__all__ += ["DedupeMemo"]

@final
class DedupeMemo:
    def __new__(
        cls,
        threshold: float,
        *,
        max_texts: int | None = None,
        max_edges: int | None = None,
        keep_builds: int | None = None,
    ) -> DedupeMemo: ...
    @property
    def threshold(self) -> float: ...
    def dedupe(
        self, texts: list[str], ids: list[str], scores: list[float], pinned: list[bool], history: list[bool]
    ) -> tuple[list[int], list[int], str]: ...
    def start_rebuild(self) -> None: ...
    def clear(self) -> None: ...
    def stats(self) -> dict[str, int]: ...
    def __len__(self) -> int: ...
    def _panic_next_build_for_tests(self) -> None: ...
