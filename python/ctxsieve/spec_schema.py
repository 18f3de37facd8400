"""The schema of a ``kind: ContextPolicy`` document (pydantic v2 models) and its validation.

``parse_policy`` validates a parsed document and raises ``ConfigError`` listing every problem
with its path; ``ctxsieve.spec`` reads files and builds engines from the validated models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from ctxsieve.errors import ConfigError, MissingExtraError

try:
    from pydantic import BaseModel, ConfigDict, Field, ValidationError
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingExtraError("yaml", exc.name or "pydantic") from exc

API_VERSION = "ctxsieve/v1"

# A policy is a page of settings: a megabyte is far beyond any real one and parses in well under a
# second. Counts (tokens, items) fit the kernels' signed 64-bit integers on both backends;
# timeouts stay below a day, which also keeps them inside every timer's range.
MAX_POLICY_CHARS = 1 << 20
MAX_POLICY_NODES = 100_000
MAX_COUNT = (1 << 63) - 1
MAX_SECONDS = 86_400.0
MAX_BETA = 16.0


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
    # score / tokens**beta: up to 16, tokens**beta stays a finite float for every count up to 2^63
    beta: float = Field(default=0.0, ge=0, le=MAX_BETA)
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
