"""The engine layer: sources are gathered, the stages select, a ``Window`` comes out.

``ContextEngine`` (``core``) drives a build in two public steps, ``gather`` and ``select``
(``gather``: the sources' candidates as a ``Gathered``; ``select``: the stages, ending in a
``Window``); ``build`` is both. ``ContextSession`` (``session``) is the append-only prompt of a
conversation over an engine, built on those two steps only.
"""

from ctxsieve.engine.core import ContextEngine
from ctxsieve.engine.gather import Gathered
from ctxsieve.engine.selection import Mark
from ctxsieve.engine.session import ContextSession
from ctxsieve.engine.session_window import SessionCut, SessionWindow
from ctxsieve.engine.window import Window
from ctxsieve.stages.render import Rendered

__all__ = ["ContextEngine", "ContextSession", "Gathered", "Mark", "Rendered", "SessionCut", "SessionWindow", "Window"]
