"""``kind: ContextPolicy`` YAML documents: an engine described in a file.

::

    apiVersion: ctxsieve/v1
    kind: ContextPolicy
    metadata: {name: support}
    spec:
      budget: 8000
      tokenizer: bytes/3            # or calibrated:<profile>, hf:<path>, ...
      layout: cache                 # or seed
      policy: {type: scored_knapsack, beta: 0, min_score: null}
      scorer: {complete: my_llm, top_n: 20, alpha: 0.5}     # optional
      sources:
        - {name: system, type: static, text: "You are...", pinned: true}
        - {name: kb_index, type: okf_index, path: ./kb}
        - {name: kb, type: okf, path: ./kb, limit: 10, weight: 1.2}
        - {name: rag, type: rag, pipeline: my_pipeline, k: 20, max_tokens: 3000}
        - {name: history, type: history, messages: conversation, min_items: 2}

Python objects (pipelines, message lists, callables) are named in the document and passed in
``objects``; paths are relative to the document. Validation uses pydantic v2 (extra ``yaml``):
every error names its path, e.g. ``spec.sources[2].weight: must be a number``, and unknown
keys are errors. Whatever the file holds, loading it raises only ``ConfigError`` (or
``MissingExtraError``), at a bounded cost: UTF-8 (or UTF-16/32 with a byte-order mark), at most
``MAX_POLICY_CHARS`` characters, YAML bounded by ``ctxsieve.yaml_bounds``.

A policy file chooses what goes into the window, not where data or secrets go: a scorer
``endpoint`` is used only when its ``base_url`` is in the caller's ``allow_endpoints`` and its
``api_key_env`` in the caller's ``allow_env`` (see docs/security.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxsieve.errors import ConfigError, MissingExtraError

try:
    import pydantic  # noqa: F401 - the schema's; named here so that a missing one is reported as the extra
    import yaml

    from ctxsieve.yaml_bounds import YAMLBoundError
    from ctxsieve.yaml_bounds import load as load_yaml
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingExtraError("yaml", exc.name or "pydantic") from exc

from ctxsieve.spec_schema import (
    API_VERSION,
    MAX_BETA,
    MAX_COUNT,
    MAX_POLICY_CHARS,
    MAX_POLICY_NODES,
    MAX_SECONDS,
    CallableSpec,
    EndpointSpec,
    EngineSpec,
    EverythingSpec,
    HistorySpec,
    KnapsackSpec,
    ObjectSpec,
    OKFIndexSpec,
    OKFSpec,
    PolicyDocument,
    RAGSpec,
    ScorerSpec,
    SlotsSpec,
    StaticSpec,
    format_errors,
    parse_policy,
)

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine

__all__ = [
    "API_VERSION",
    "MAX_BETA",
    "MAX_COUNT",
    "MAX_POLICY_CHARS",
    "MAX_POLICY_NODES",
    "MAX_SECONDS",
    "CallableSpec",
    "EndpointSpec",
    "EngineSpec",
    "EverythingSpec",
    "HistorySpec",
    "KnapsackSpec",
    "OKFIndexSpec",
    "OKFSpec",
    "ObjectSpec",
    "PolicyDocument",
    "RAGSpec",
    "ScorerSpec",
    "SlotsSpec",
    "StaticSpec",
    "decode_policy",
    "engine_from_document",
    "format_errors",
    "load_engine",
    "load_policy",
    "parse_policy",
    "tokenizer_name",
]


# YAML's own encodings, told by their byte-order mark; anything else must be UTF-8
_BOMS = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xef\xbb\xbf", "utf-8"),
)


def decode_policy(raw: bytes, where: str) -> str:
    """The text of a policy file: UTF-8, or UTF-8/16/32 after a byte-order mark."""
    encoding, start = "utf-8", 0
    for bom, name in _BOMS:
        if raw.startswith(bom):
            encoding, start = name, len(bom)
            break
    try:
        return raw[start:].decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: start + exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{where}: not {encoding.upper()} ({exc.reason} at byte {start + exc.start}, line {line}); "
            "save the policy as UTF-8"
        ) from None


def load_policy(path: str | os.PathLike[str]) -> PolicyDocument:
    p = Path(path)
    limit = 4 * MAX_POLICY_CHARS + 4  # the most bytes a text of MAX_POLICY_CHARS can take, and a mark
    try:
        with p.open("rb") as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise ConfigError(f"{p}: more than {limit} bytes; a policy holds at most {MAX_POLICY_CHARS} characters")
    text = decode_policy(raw, str(p))
    try:
        document = load_yaml(text, where=str(p), max_chars=MAX_POLICY_CHARS, max_nodes=MAX_POLICY_NODES)
    except YAMLBoundError as exc:
        raise ConfigError(str(exc)) from None
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a date YAML reads, e.g. 2026-13-45
        raise ConfigError(f"{p}: invalid YAML: {exc}") from None
    return parse_policy(document)


def load_engine(
    path: str | os.PathLike[str],
    objects: Mapping[str, Any] | None = None,
    *,
    allow_endpoints: Iterable[str] = (),
    allow_env: Iterable[str] = (),
) -> ContextEngine:
    """A ``ContextEngine`` from a ContextPolicy file; ``objects`` supplies named Python objects.

    The caller, not the file, decides where data may go: a scorer ``endpoint`` in the file is
    refused unless its ``base_url`` is in ``allow_endpoints`` and its ``api_key_env`` (if any)
    in ``allow_env``; a file cannot send the candidates or an environment variable anywhere
    else."""
    doc = load_policy(path)
    base = Path(path).resolve().parent
    return engine_from_document(doc, objects or {}, base, allow_endpoints=allow_endpoints, allow_env=allow_env)


def _url(url: str) -> str:
    """A base URL as allow-lists compare it: without the trailing slash."""
    return url.rstrip("/")


def _object(objects: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in objects:
        known = ", ".join(sorted(objects)) or "none given"
        raise ConfigError(f"{where}: no object named {name!r} in objects ({known})")
    return objects[name]


def _source(s: Any, objects: Mapping[str, Any], base: Path, where: str) -> Any:
    from ctxsieve import sources as src

    if isinstance(s, StaticSpec):
        return src.StaticSource(s.text, name=s.name, kind=s.kind, stability=s.stability, pinned=s.pinned)
    if isinstance(s, OKFIndexSpec):
        return src.OKFIndexSource(base / s.path, name=s.name, pinned=s.pinned)
    if isinstance(s, OKFSpec):
        return src.OKFSource(base / s.path, name=s.name, limit=s.limit, stability=s.stability)
    if isinstance(s, RAGSpec):
        pipeline = _object(objects, s.pipeline, f"{where}.pipeline")
        return src.RAGSource(pipeline, k=s.k, name=s.name, kind=s.kind, stability=s.stability)
    if isinstance(s, HistorySpec):
        return src.HistorySource(_object(objects, s.messages, f"{where}.messages"), name=s.name)
    if isinstance(s, CallableSpec):
        return src.CallableSource(_object(objects, s.fn, f"{where}.fn"), name=s.name, blocking=s.blocking)
    obj = _object(objects, s.object, f"{where}.object")
    if getattr(obj, "name", None) != s.name:
        raise ConfigError(f"{where}.name: {s.name!r} but the object's name is {getattr(obj, 'name', None)!r}")
    return obj


def _policy(p: Any) -> Any:
    from ctxsieve.stages.policies import Everything, FixedSlots, ScoredKnapsack

    if isinstance(p, KnapsackSpec):
        return ScoredKnapsack(p.beta, p.min_score, p.include_deprecated)
    if isinstance(p, SlotsSpec):
        return FixedSlots(p.shares, p.include_deprecated)
    return Everything(p.truncate, p.include_deprecated)


def _endpoint(e: EndpointSpec, allow_endpoints: frozenset[str], allow_env: frozenset[str]) -> Any:
    """The file's endpoint, if the caller allows both where it sends (the candidates' text and a
    key) and which environment variable it reads the key from."""
    from ctxsieve.scorer import openai_compatible

    where = "spec.scorer.endpoint"
    if _url(e.base_url) not in allow_endpoints:
        allowed = ", ".join(sorted(allow_endpoints)) or "none"
        raise ConfigError(
            f"{where}.base_url: {e.base_url!r} is not an endpoint the caller allows (allowed: {allowed}); "
            "allow it with load_engine(..., allow_endpoints=[...]) or --allow-endpoint"
        )
    key = e.api_key
    if e.api_key_env is not None:
        if e.api_key_env not in allow_env:
            raise ConfigError(
                f"{where}.api_key_env: ${e.api_key_env} is not a variable the caller allows the policy to read; "
                "allow it with load_engine(..., allow_env=[...]) or --allow-env"
            )
        key = os.environ.get(e.api_key_env)
        if not key:
            raise ConfigError(f"{where}.api_key_env: ${e.api_key_env} is not set")
    return openai_compatible(e.base_url, e.model, api_key=key)


def _scorer(
    s: ScorerSpec, objects: Mapping[str, Any], allow_endpoints: frozenset[str], allow_env: frozenset[str]
) -> Any:
    from ctxsieve.scorer import LLMScorer

    if (s.complete is None) == (s.endpoint is None):
        raise ConfigError("spec.scorer: give exactly one of complete (an object name) or endpoint")
    if s.complete is not None:
        complete = _object(objects, s.complete, "spec.scorer.complete")
    else:
        assert s.endpoint is not None
        complete = _endpoint(s.endpoint, allow_endpoints, allow_env)
    return LLMScorer(complete, top_n=s.top_n, alpha=s.alpha, timeout=s.timeout)


# a sample every estimator must count: a count that is not a small non-negative int (bytes/1e-300
# gives one beyond any integer) would otherwise fail the first build, not the load
_PROBE = "A probe sentence, counted once when the policy loads."


def _tokenizer(name: str, base: Path) -> Any:
    from ctxsieve.tokenizers import TokenizerFileError, resolve_estimator

    try:
        estimator = resolve_estimator(tokenizer_name(name, base))
        (count,) = estimator.count([_PROBE])
    except (ConfigError, TokenizerFileError) as exc:  # a bad name, a missing or malformed file
        raise ConfigError(f"spec.tokenizer: {exc}") from None
    except (ValueError, OverflowError) as exc:  # a name that parses but cannot count (bytes/inf)
        raise ConfigError(f"spec.tokenizer: {name!r} cannot count tokens: {exc}") from None
    if not 0 <= count <= len(_PROBE.encode()) * 4:
        raise ConfigError(f"spec.tokenizer: {name!r} counts {count} tokens in {len(_PROBE)} characters")
    return estimator


# estimator kinds whose argument is a file, and how to tell a profile file from a shipped name
_FILE_KINDS = ("hf", "tiktoken", "tekken", "sentencepiece", "spm")


def tokenizer_name(name: str, base: Path) -> str:
    """``name`` with a relative tokenizer or profile file made relative to ``base`` (the policy
    file's folder), as source paths are; shipped profile names and absolute paths stay as given.

    >>> tokenizer_name("hf:tok/tokenizer.json", Path("/policies"))
    'hf:/policies/tok/tokenizer.json'
    >>> tokenizer_name("calibrated:o200k", Path("/policies")), tokenizer_name("bytes/3", Path("/p"))
    ('calibrated:o200k', 'bytes/3')
    """
    kind, sep, arg = name.partition(":")
    if not sep or not arg:
        return name
    is_file = kind.strip().lower() in _FILE_KINDS or (
        kind.strip().lower() == "calibrated" and ("/" in arg or os.sep in arg or arg.endswith(".json"))
    )
    path = Path(arg).expanduser()
    if not is_file or path.is_absolute():
        return name
    return f"{kind}:{base / path}"


def engine_from_document(
    doc: PolicyDocument,
    objects: Mapping[str, Any],
    base: Path,
    *,
    allow_endpoints: Iterable[str] = (),
    allow_env: Iterable[str] = (),
) -> ContextEngine:
    """Build the engine a validated document describes (errors still name their path);
    ``allow_endpoints`` and ``allow_env`` as in ``load_engine``."""
    from ctxsieve.engine import ContextEngine
    from ctxsieve.sources import SourceConfig

    spec = doc.spec
    configs = []
    for i, s in enumerate(spec.sources):
        where = f"spec.sources[{i}]"
        try:
            source = _source(s, objects, base, where)
            configs.append(SourceConfig(source, s.weight, s.max_tokens, s.min_items, s.timeout, s.mode))
        except ConfigError:
            raise
        except Exception as exc:  # a bundle that fails to load, a pipeline without query()
            raise ConfigError(f"{where} ({s.name}): {exc}") from exc
    try:
        policy = _policy(spec.policy)
    except ConfigError as exc:
        raise ConfigError(f"spec.policy: {exc}") from None
    tokenizer = _tokenizer(spec.tokenizer, base)
    scorer = None
    if spec.scorer is not None:
        # outside the engine's try below, whose "spec: " would come before the path again
        endpoints = frozenset(_url(u) for u in allow_endpoints)
        try:
            scorer = _scorer(spec.scorer, objects, endpoints, frozenset(allow_env))
        except ConfigError as exc:
            text = str(exc)
            raise ConfigError(text if text.startswith("spec.scorer") else f"spec.scorer: {text}") from None
    try:
        return ContextEngine(
            configs,
            budget=spec.budget,
            policy=policy,
            tokenizer=tokenizer,
            scorer=scorer,
            layout=spec.layout,
            dedupe_threshold=spec.dedupe_threshold,
            source_timeout=spec.source_timeout,
        )
    except ConfigError as exc:
        raise ConfigError(f"spec: {exc}") from None
