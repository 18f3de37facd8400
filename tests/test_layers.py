"""The package's layers (DESIGN.md section 7): no module imports a layer below its own, and no
import cycles between modules.

Every module under ``python/ctxsieve`` is parsed with ``ast``; every ``import`` counts wherever
it stands (module level, inside a function, under ``if TYPE_CHECKING:``), since a type-only
import is a dependency too. An import edge goes to the module imported, and, as Python runs
them first, to every package ``__init__`` on its path that is not already an ancestor of the
importer (so ``from ctxsieve.engine.window import Window`` outside the engine also depends on
``ctxsieve.engine``, which imports the whole engine). The root package is left out of that rule:
every module has it as an ancestor.

The layers, from the top (a layer may import the layers above it, never one below):
``messages``, ``kernels``, ``tokenizers``, ``stages``, ``engine``, ``admission``,
``conversation``, ``loop/stores``, ``edges``. ``LEAVES`` are shared modules every layer may
import; they import only each other.

Other work of issue 13 is moving modules between layers while this test exists, so what still
fails is listed in ``KNOWN_VIOLATIONS``, each with the work that removes it; the test asserts the
list is exact: a new violation fails, and so does an entry that no longer occurs (remove it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "ctxsieve"

ORDER = ("messages", "kernels", "tokenizers", "stages", "engine", "admission", "conversation", "loop/stores", "edges")

# Shared by every layer; each imports only other leaves. errors: the exception hierarchy; types:
# ContextItem, Budget, Trace and the constants (MESSAGE_FRAMING_TOKENS) every layer reads;
# audience: the eligibility rules every render path enforces (DESIGN: "a property every render
# path enforces, not a feature of one layer"); workers: daemon-thread calls with a deadline (the
# engine's sources, the scorer, admission's window lookup); yaml_bounds: bounded YAML parsing
# (OKF bundles and policy files); _native: the compiled kernels.
LEAVES = frozenset(
    {
        "ctxsieve._native",
        "ctxsieve.audience",
        "ctxsieve.errors",
        "ctxsieve.types",
        "ctxsieve.workers",
        "ctxsieve.yaml_bounds",
    }
)

# The layer of every other module, by its first name under ctxsieve. The engine layer holds the
# sources and the LLM scorer it is configured with (DESIGN: "engine/: sources, the build
# driver"); ContextSession lives in ctxsieve.engine. The root package re-exports every layer's
# public API, so it is an edge.
LAYERS = {
    "messages": "messages",
    "kernels": "kernels",
    "tokenizers": "tokenizers",
    "stages": "stages",
    "engine": "engine",
    "sources": "engine",
    "scorer": "engine",
    "admission": "admission",
    "conversation": "conversation",
    "loop": "loop/stores",
    "stores": "loop/stores",
    "spec": "edges",
    "spec_schema": "edges",
    "cli": "edges",
    "commands": "edges",
    "eval": "edges",
    "integrations": "edges",
}

# What still fails, and whose work removes it. ("layer", importer, imported): the importer's layer
# is above the imported module's; ("cycle", *modules): the modules of one import cycle (a
# strongly connected component), sorted.
KNOWN_VIOLATIONS: dict[tuple[str, ...], str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    out = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    out["ctxsieve._native"] = PACKAGE / "_native.pyi"  # the extension module (no source to parse)
    return out


def is_ancestor(package: str, module: str) -> bool:
    return module.startswith(package + ".")


def targets(module: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The ctxsieve modules ``module`` imports, as written (before package edges are added)."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] == "ctxsieve")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.split(".")[0] != "ctxsieve":
                continue
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            yield from subs
            if len(subs) < len(node.names):
                yield target  # a name defined in the package's __init__ (or a module's)


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        if module == "ctxsieve._native":
            continue
        edges: set[str] = set()
        for target in targets(module, path, known):
            while target not in known and "." in target:
                target = target.rpartition(".")[0]  # an attribute of a module: the module
            parts = target.split(".")
            for k in range(2, len(parts) + 1):  # the packages on the way run first
                step = ".".join(parts[:k])
                if step in known and not is_ancestor(step, module):
                    edges.add(step)
        edges.discard(module)
        graph[module] = edges
    return graph


def layer(module: str) -> str:
    if module in LEAVES:
        return "leaf"
    if module == "ctxsieve":
        return "edges"
    first = module.split(".")[1]
    assert first in LAYERS, f"{module}: not in tests/test_layers.py's LAYERS (or LEAVES): say which layer it is"
    return LAYERS[first]


def layer_violations(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    out = set()
    for importer, imported in graph.items():
        for target in imported:
            mine, theirs = layer(importer), layer(target)
            if theirs == "leaf":
                continue
            if mine == "leaf" or ORDER.index(mine) < ORDER.index(theirs):
                out.add(("layer", importer, target))
    return out


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """Every strongly connected component of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[tuple[str, ...]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(("cycle", *sorted(component)))
    return found


def test_no_layer_imports_one_below_it_and_no_import_cycles():
    graph = import_graph()
    found = layer_violations(graph) | cycles(graph)
    new = sorted(found - set(KNOWN_VIOLATIONS))
    stale = sorted(set(KNOWN_VIOLATIONS) - found)
    assert not new, "new layering violations or import cycles:\n" + "\n".join(map(repr, new))
    assert not stale, "KNOWN_VIOLATIONS entries that no longer occur (remove them):\n" + "\n".join(map(repr, stale))


def test_the_checker_sees_what_it_must():
    # the checker itself: a type-only import, a function-level import and a package's __init__
    # on the way all count, and a cycle through them is found
    graph = import_graph()
    assert "ctxsieve.engine.window" in graph["ctxsieve.conversation.context"]  # under TYPE_CHECKING
    assert "ctxsieve.engine" in graph["ctxsieve.conversation.context"]  # the package runs first
    assert "ctxsieve.engine" not in graph["ctxsieve.engine.core"]  # its own package: already running
    toy = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(toy) == {("cycle", "a", "b", "c")}
    assert layer_violations({"ctxsieve.stages.score": {"ctxsieve.scorer"}}) == {
        ("layer", "ctxsieve.stages.score", "ctxsieve.scorer")
    }
    assert layer_violations({"ctxsieve.types": {"ctxsieve.stages.render"}}) == {
        ("layer", "ctxsieve.types", "ctxsieve.stages.render")
    }
