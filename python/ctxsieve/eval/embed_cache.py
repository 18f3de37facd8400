"""Sentence embeddings computed once: an on-disk cache keyed by model and content hash, and the
BLAS thread count set for this workload.

A first ``--retriever embed`` run printed nothing for 125 s on the 2-core machine and recomputed
every vector on every run. Two causes: OpenBLAS starts one thread per core for each of MiniLM's
many small matrix products, and the threads cost more than they save (34 s with one thread,
same vectors); and nothing was kept. Now each chunk's vector is stored under
``xxh3_128(model id + text)`` in one ``.npz`` file per model, written atomically, so a rerun
embeds nothing and a changed corpus embeds only its changed chunks.

>>> import numpy as np, tempfile
>>> class Fake:
...     calls = 0
...     def encode(self, texts, normalize_embeddings=True, batch_size=32):
...         Fake.calls += len(texts)
...         return np.ones((len(texts), 2), dtype=np.float32)
>>> with tempfile.TemporaryDirectory() as d:
...     cache = EmbeddingCache(d, "fake")
...     _ = cache.encode(Fake(), ["a", "b"]); _ = EmbeddingCache(d, "fake").encode(Fake(), ["a", "c"])
>>> Fake.calls
3
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

BATCH = 64  # texts per progress step (and per save of what is done)
# texts per forward pass: measured on 160 Tessel chunks, one BLAS thread, the machine loaded by
# other work: 10.0 s at 8, 12.4 at 16, 13.2 at 32 (the attention temporaries of a large batch
# are fresh pages each layer: 3.1 s of system time at 32 against 1.5 at 8); it was 64
MODEL_BATCH = 8
BLAS_THREADS = 1  # measured: 34 s with one thread against 125 s with the default (2 cores)


def default_cache_dir() -> Path:
    """``$CTXSIEVE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ctxsieve``, else ``~/.cache/ctxsieve``."""
    if os.environ.get("CTXSIEVE_CACHE_DIR"):
        return Path(os.environ["CTXSIEVE_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ctxsieve"


@contextlib.contextmanager
def blas_threads(n: int = BLAS_THREADS) -> Iterator[None]:
    """Limit BLAS to ``n`` threads while embedding (threadpoolctl, part of the ``embed`` extra)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # without it the default thread count applies: slower, same vectors
        yield
        return
    with threadpool_limits(limits=n, user_api="blas"):
        yield


class EmbeddingCacheWarning(UserWarning):
    """The cache could not be read or written: the run goes on, embedding what it must."""


class EmbeddingCache:
    """Vectors by ``(model, text)``; ``encode`` computes only the missing ones. A cache that
    cannot be read or written (a file where the directory should be, no permission, a damaged
    file) costs time, never the run: it warns with ``EmbeddingCacheWarning`` and goes on."""

    def __init__(self, directory: str | os.PathLike[str] | None, model_id: str):
        self.model_id = model_id
        self.path = None if directory is None else Path(directory) / f"embeddings-{_safe(model_id)}.npz"
        self.vectors: dict[str, np.ndarray] = self._read()

    def _read(self) -> dict[str, np.ndarray]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            with np.load(self.path) as data:
                keys, matrix = data["keys"], data["vectors"]
        except PermissionError as exc:
            self._warn(f"cannot read {self.path} ({exc.strerror}): every chunk is embedded again")
            return {}
        except (OSError, ValueError, KeyError, EOFError):
            return {}  # a damaged cache is recomputed, never trusted
        if keys.ndim != 1 or matrix.ndim != 2 or len(keys) != len(matrix):
            return {}  # the same: a file whose keys and rows do not pair up
        return {str(k): matrix[i] for i, k in enumerate(keys)}

    def _warn(self, message: str) -> None:
        warnings.warn(EmbeddingCacheWarning(f"embedding cache: {message}"), stacklevel=3)

    def key(self, text: str) -> str:
        return xxhash.xxh3_128_hexdigest((self.model_id + "\0" + text).encode("utf-8", "surrogatepass"))

    def encode(
        self, model: Any, texts: Sequence[str], progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        """One normalised vector per text, in order; ``progress(done, total)`` after each batch."""
        keys = [self.key(t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self.vectors))
        text_of = dict(zip(keys, texts))
        if progress is not None:
            progress(0, len(missing))
        with blas_threads():
            for start in range(0, len(missing), BATCH):
                batch = missing[start : start + BATCH]
                out = model.encode([text_of[k] for k in batch], normalize_embeddings=True, batch_size=MODEL_BATCH)
                for k, v in zip(batch, np.asarray(out, dtype=np.float32)):
                    self.vectors[k] = v
                if progress is not None:
                    progress(min(start + BATCH, len(missing)), len(missing))
        if missing:
            self.save()
        return np.stack([self.vectors[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    def save(self) -> None:
        """Write the vectors, merged with what another process wrote meanwhile (two runs at once
        each keep their own chunks), through a temporary file and a rename: a reader sees the
        old file or the new one, never half of one."""
        if self.path is None or not self.vectors:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _locked(self.path.with_name(self.path.name + ".lock")):
                merged = {**self._read(), **self.vectors}
                keys = np.array(list(merged), dtype="U32")
                matrix = np.stack(list(merged.values())).astype(np.float32)
                fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".npz.tmp")
                try:
                    with os.fdopen(fd, "wb") as f:
                        np.savez(f, keys=keys, vectors=matrix)
                    os.replace(tmp, self.path)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
                    raise
        except OSError as exc:
            where = self.path.parent
            reason = "not a directory" if where.exists() and not where.is_dir() else exc.strerror or str(exc)
            self._warn(f"cannot write {where} ({reason}): the embeddings are not kept")
            self.path = None  # said once; this run goes on without the cache


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` where the platform has one (POSIX ``flock``),
    so that two runs merging into one cache file do not drop each other's vectors."""
    try:
        import fcntl
    except ImportError:  # Windows: the rename still keeps the file whole
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _safe(model_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in model_id)
