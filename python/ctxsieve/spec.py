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
keys are errors.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from ctxsieve.errors import ConfigError, MissingExtraError

try:
    import yaml
    from pydantic import BaseModel, ConfigDict, Field, ValidationError
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingExtraError("yaml", exc.name or "pydantic") from exc

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine

API_VERSION = "ctxsieve/v1"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)


class _SourceBase(_Strict):
    name: str = Field(min_length=1)
    weight: float = Field(default=1.0, ge=0)
    max_tokens: int | None = Field(default=None, ge=0)
    min_items: int | None = Field(default=None, ge=0)
    timeout: float | None = Field(default=None, gt=0)
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
    limit: int = Field(default=10, gt=0)
    stability: StabilityName = "volatile"


class RAGSpec(_SourceBase):
    type: Literal["rag"]
    pipeline: str
    k: int = Field(default=20, gt=0)
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
    base_url: str
    model: str
    api_key: str | None = None
    api_key_env: str | None = None  # read the key from this environment variable, not the file


class ScorerSpec(_Strict):
    complete: str | None = None
    endpoint: EndpointSpec | None = None
    top_n: int = Field(default=20, gt=0)
    alpha: float = Field(default=0.5, ge=0, le=1)
    timeout: float = Field(default=10.0, gt=0)


class EngineSpec(_Strict):
    budget: int = Field(gt=0)
    tokenizer: str = "bytes/3"
    layout: Literal["seed", "cache"] = "cache"
    dedupe_threshold: float | None = Field(default=0.8, gt=0, le=1)
    source_timeout: float = Field(default=5.0, gt=0)
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


def load_policy(path: str | os.PathLike[str]) -> PolicyDocument:
    p = Path(path)
    try:
        document = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: invalid YAML: {exc}") from None
    return parse_policy(document)


def load_engine(path: str | os.PathLike[str], objects: Mapping[str, Any] | None = None) -> ContextEngine:
    """A ``ContextEngine`` from a ContextPolicy file; ``objects`` supplies named Python objects."""
    doc = load_policy(path)
    return engine_from_document(doc, objects or {}, Path(path).resolve().parent)


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


def _scorer(s: ScorerSpec, objects: Mapping[str, Any]) -> Any:
    from ctxsieve.scorer import LLMScorer, openai_compatible

    if (s.complete is None) == (s.endpoint is None):
        raise ConfigError("spec.scorer: give exactly one of complete (an object name) or endpoint")
    if s.complete is not None:
        complete = _object(objects, s.complete, "spec.scorer.complete")
    else:
        assert s.endpoint is not None
        key = s.endpoint.api_key
        if s.endpoint.api_key_env is not None:
            key = os.environ.get(s.endpoint.api_key_env)
            if not key:
                raise ConfigError(f"spec.scorer.endpoint.api_key_env: ${s.endpoint.api_key_env} is not set")
        complete = openai_compatible(s.endpoint.base_url, s.endpoint.model, api_key=key)
    return LLMScorer(complete, top_n=s.top_n, alpha=s.alpha, timeout=s.timeout)


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


def engine_from_document(doc: PolicyDocument, objects: Mapping[str, Any], base: Path) -> ContextEngine:
    """Build the engine a validated document describes (errors still name their path)."""
    from ctxsieve.engine import ContextEngine
    from ctxsieve.sources import SourceConfig
    from ctxsieve.stages.estimate import TokenEstimator
    from ctxsieve.tokenizers.base import TokenizerFileError

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
    try:
        tokenizer = TokenEstimator(tokenizer_name(spec.tokenizer, base))
    except (ConfigError, TokenizerFileError) as exc:  # a bad name, a missing or malformed file
        raise ConfigError(f"spec.tokenizer: {exc}") from None
    scorer = None
    if spec.scorer is not None:
        # outside the engine's try below, whose "spec: " would come before the path again
        try:
            scorer = _scorer(spec.scorer, objects)
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
