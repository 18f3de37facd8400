"""Sources propose candidates; the engine gathers them concurrently, each with a timeout."""

from ctxsieve.sources.base import Source, SourceConfig
from ctxsieve.sources.history import HistorySource
from ctxsieve.sources.okf import OKFBundle, OKFIndexSource, OKFSource
from ctxsieve.sources.rag import RAGSource
from ctxsieve.sources.static import CallableSource, StaticSource

__all__ = [
    "CallableSource",
    "HistorySource",
    "OKFBundle",
    "OKFIndexSource",
    "OKFSource",
    "RAGSource",
    "Source",
    "SourceConfig",
    "StaticSource",
]
