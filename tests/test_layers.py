"""The package's layers as ARCHITECTURE.md draws them, read from the source: no module imports itself back through
others, and the rules layers reach no store, server, clock or global random."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
RULES = ("herotable.dice", "herotable.ltl", "herotable.conviction", "herotable.odds", "herotable.table")
NEVER_IN_RULES = ("herotable.store", "herotable.server", "herotable.service", "herotable.cli", "random", "time")
NEVER_IN_RULES_NAMES = {("datetime", "now"), ("datetime", "datetime")}


def modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = modules()


def imports(name: str, *, inside_functions: bool = False) -> set[str]:
    """What a module imports when it is loaded (its top level, TYPE_CHECKING blocks included): each imported
    module, and for `from package import submodule` the submodule rather than the package. With `inside_functions`,
    also what its functions import when they run: an import moved into a function still ties the modules."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    tree = ast.parse(path.read_text())
    todo: list[ast.stmt] = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)] if inside_functions else tree.body
    todo = list(todo)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            subs = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES}
            out |= subs
            if len(subs) < len(node.names):
                out.add(base)
                out.update(f"{base}:{a.name}" for a in node.names)
        elif isinstance(node, ast.If | ast.Try) and not inside_functions:  # ast.walk reaches their bodies already
            todo += node.body + node.orelse
            if isinstance(node, ast.Try):
                todo += node.finalbody + [s for h in node.handlers for s in h.body]
    return out


def test_no_module_imports_itself_back():
    assert cycles({m: {i for i in imports(m) if i in MODULES} for m in MODULES}) == []


def test_no_module_imports_itself_back_even_from_inside_a_function():
    # an import inside a function only hides a circle from the loader: the modules still need each other
    assert cycles({m: {i for i in imports(m, inside_functions=True) if i in MODULES} for m in MODULES}) == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import graph's circles: its strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_rules_layers_reach_no_store_server_clock_or_global_random():
    found = []
    for name in MODULES:
        if not name.startswith(RULES):
            continue
        for imported in imports(name):
            module, _, item = imported.partition(":")
            if module.startswith(NEVER_IN_RULES) or (module, item) in NEVER_IN_RULES_NAMES:
                found.append(f"{name} imports {imported}")
    assert found == []


def test_the_checks_see_a_cycle_and_a_forbidden_import():
    # the helpers read the source as it is: a module that imports what it must not is caught
    assert "herotable.odds.melee_model" in imports("herotable.odds.melee")
    assert "herotable.odds.melee_model" in imports("herotable.odds.montecarlo")
    assert "herotable.odds.melee" not in imports("herotable.odds.montecarlo")
    assert any(i.startswith("herotable.store") for i in imports("herotable.service"))
    assert "herotable.demo" not in imports("herotable.cli")  # imported inside a function
    assert "herotable.demo" in imports("herotable.cli", inside_functions=True)
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
