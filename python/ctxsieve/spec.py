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
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from ctxsieve.errors import ConfigError, MissingExtraError

try:
    import yaml
    from pydantic import BaseModel, ConfigDict, Field, ValidationError

    from ctxsieve.yaml_bounds import YAMLBoundError
    from ctxsieve.yaml_bounds import load as load_yaml
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingExtraError("yaml", exc.name or "pydantic") from exc

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine

API_VERSION = "ctxsieve/v1"

# A policy is a page of settings: a megabyte is far beyond any real one and parses in well under a
# second. Counts (tokens, items) fit the kernels' signed 64-bit integers on both backends;
# timeouts stay below a day, which also keeps them inside every timer's range.
MAX_POLICY_CHARS = 1 << 20
MAX_POLICY_NODES = 100_000
MAX_COUNT = (1 << 63) - 1
MAX_SECONDS = 86_400.0


class _Strict(BaseModel):
    # no float is ever inf or nan: a weight, a share or a timeout of inf means nothing
    model_config = ConfigDict(extra="forbid", strict=False, allow_inf_nan=False)


def _count(default: Any = None, positive: bool = False) -> Any:
    if positive:
        return Field(default=default, gt=0, le=MAX_COUNT)
    return Field(default=default, ge=0, le=MAX_COUNT)


def _seconds(default: Any = None) -> Any:
    return Field(default=default, gt=0, le=MAX_SECONDS)


class _SourceBase(_Strict):
    name: str = Field(min_length=1)
    weight: float = Field(default=1.0, ge=0)
    max_tokens: int | None = _count()
    min_items: int | None = _count()
    timeout: float | None = _seconds()
    mode: Literal["rank", "minmax", "zscore", "blend", "raw"] = "rank"


Kind = Literal["instruction", "knowledge", "memory", "history", "tool_result", "tool_schema", "image"]
StabilityName = Literal["stable", "session", "volatile"]


class StaticSpec(_SourceBase):
    type: Literal["static"]
    text: str | list[str]
    kind: Kind = "instruction"
    stability: StabilityName = "stable"
    pinned: bool = False


class OKFIndexSpec(_SourceBase):
    type: Literal["okf_index"]
    path: str
    pinned: bool = True


class OKFSpec(_SourceBase):
    type: Literal["okf"]
    path: str
    limit: int = _count(10, positive=True)
    stability: StabilityName = "volatile"


class RAGSpec(_SourceBase):
    type: Literal["rag"]
    pipeline: str
    k: int = _count(20, positive=True)
    kind: Kind = "knowledge"
    stability: StabilityName = "volatile"


class HistorySpec(_SourceBase):
    type: Literal["history"]
    messages: str


class CallableSpec(_SourceBase):
    type: Literal["callable"]
    fn: str
    blocking: bool = True


class ObjectSpec(_SourceBase):
    type: Literal["object"]
    object: str


SourceSpec = Annotated[
    Union[StaticSpec, OKFIndexSpec, OKFSpec, RAGSpec, HistorySpec, CallableSpec, ObjectSpec],  # noqa: UP007
    Field(discriminator="type"),
]


class KnapsackSpec(_Strict):
    type: Literal["scored_knapsack"]
    beta: float = Field(default=0.0, ge=0)
    min_score: float | None = None
    include_deprecated: bool = False


class SlotsSpec(_Strict):
    type: Literal["fixed_slots"]
    shares: dict[str, Annotated[float, Field(ge=0, le=1)]]
    include_deprecated: bool = False


class EverythingSpec(_Strict):
    type: Literal["everything"]
    truncate: bool = False
    include_deprecated: bool = False


PolicySpec = Annotated[Union[KnapsackSpec, SlotsSpec, EverythingSpec], Field(discriminator="type")]  # noqa: UP007


class EndpointSpec(_Strict):
    base_url: str  # used only when the caller allows it (allow_endpoints)
    model: str
    api_key: str | None = None
    api_key_env: str | None = None  # read the key from this variable, if the caller allows it (allow_env)


class ScorerSpec(_Strict):
    complete: str | None = None
    endpoint: EndpointSpec | None = None
    top_n: int = _count(20, positive=True)
    alpha: float = Field(default=0.5, ge=0, le=1)
    timeout: float = _seconds(10.0)


class EngineSpec(_Strict):
    budget: int = _count(..., positive=True)
    tokenizer: str = "bytes/3"
    layout: Literal["seed", "cache"] = "cache"
    dedupe_threshold: float | None = Field(default=0.8, gt=0, le=1)
    source_timeout: float = _seconds(5.0)
    policy: PolicySpec = Field(default_factory=lambda: KnapsackSpec(type="scored_knapsack"))
    scorer: ScorerSpec | None = None
    sources: list[SourceSpec] = Field(min_length=1)


class PolicyDocument(_Strict):
    apiVersion: Literal["ctxsieve/v1"]
    kind: Literal["ContextPolicy"]
    metadata: dict[str, Any] = Field(default_factory=dict)
    spec: EngineSpec


_TAGS = {"static", "okf_index", "okf", "rag", "history", "callable", "object"} | {
    "scored_knapsack",
    "fixed_slots",
    "everything",
}
_MESSAGES = {
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "int_parsing": "must be an integer",
    "int_type": "must be an integer",
    "int_from_float": "must be an integer",
    "bool_parsing": "must be true or false",
    "bool_type": "must be true or false",
    "string_type": "must be a string",
    "missing": "is required",
    "extra_forbidden": "unknown key",
    "finite_number": "must be a finite number",
}


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    prev: Any = None
    for part in loc:
        # a discriminated union adds its tag to the location; the user never wrote it
        if isinstance(part, str) and part in _TAGS and (isinstance(prev, int) or prev == "policy"):
            prev = part
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        prev = part
    return out or "(document)"


def format_errors(exc: ValidationError) -> list[str]:
    lines = []
    for err in exc.errors():
        message = _MESSAGES.get(err["type"], err["msg"])
        lines.append(f"{_path(tuple(err['loc']))}: {message}")
    return lines


def parse_policy(document: Any) -> PolicyDocument:
    """Validate a parsed YAML document; ``ConfigError`` lists every problem with its path.

    >>> head = {"apiVersion": "ctxsieve/v1", "kind": "ContextPolicy"}
    >>> static = {"name": "s", "type": "static", "text": "Hi"}
    >>> parse_policy({**head, "spec": {"budget": 100, "sources": [static]}}).spec.budget
    100
    >>> parse_policy({**head, "spec": {"budget": "lots", "sources": [{"name": "s", "type": "okf", "path": 3}]}})
    Traceback (most recent call last):
    ...
    ctxsieve.errors.ConfigError: invalid ContextPolicy:
      spec.budget: must be an integer
      spec.sources[0].path: must be a string
    """
    try:
        return PolicyDocument.model_validate(document)
    except ValidationError as exc:
        lines = format_errors(exc)
        error = ConfigError("invalid ContextPolicy:\n  " + "\n  ".join(lines))
        error.errors = lines  # type: ignore[attr-defined]
        raise error from None


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
    from ctxsieve.stages.estimate import TokenEstimator
    from ctxsieve.tokenizers.base import TokenizerFileError

    try:
        estimator = TokenEstimator(tokenizer_name(name, base))
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
