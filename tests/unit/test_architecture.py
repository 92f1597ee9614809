"""The package's shape: no import cycle between klinkctl's modules, the library never imports the CLI
(klinkctl.cli), and no module grows past MAX_LINES.

Every import statement counts, wherever it is (module level, inside a function, under TYPE_CHECKING): an
import moved into a function still ties the two modules together. The parent package a submodule import
runs implicitly (``klinkctl.workloads`` for ``klinkctl.workloads.options``) is not counted as an edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import klinkctl

PACKAGE_DIR = Path(klinkctl.__file__).parent
CLI = "klinkctl.cli"
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in PACKAGE_DIR.rglob("*.py")}


def imported_names(name: str, path: Path) -> set[str]:
    """Every dotted name an import statement in the module names; ``from a import b`` gives ``a.b``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from ..run import y
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def klinkctl_imports(name: str, path: Path) -> set[str]:
    """The klinkctl modules this one imports (a name that is not a module, e.g. a class, counts as its module)."""
    found = set()
    for imported in imported_names(name, path):
        while imported and imported not in MODULES:
            imported = imported.rpartition(".")[0]
        if imported and imported != name:
            found.add(imported)
    return found


GRAPH = {name: klinkctl_imports(name, path) for name, path in MODULES.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = lowlink[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            successor = next(successors, None)
            if successor is not None:
                if successor not in index:
                    index[successor] = lowlink[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                elif successor in on_stack:
                    lowlink[node] = min(lowlink[node], index[successor])
                continue
            work.pop()
            if work:
                lowlink[work[-1][0]] = min(lowlink[work[-1][0]], lowlink[node])
            if lowlink[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def is_cli(name: str) -> bool:
    return name == CLI or name.startswith(CLI + ".")


def test_the_cycle_finder_finds_a_cycle_and_nothing_else():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycle_between_klinkctl_modules():
    assert import_cycles(GRAPH) == []


def test_the_library_never_imports_the_cli():
    offenders = {name: sorted(filter(is_cli, imports)) for name, imports in GRAPH.items()
                 if not is_cli(name) and any(map(is_cli, imports)) and name != "klinkctl.__main__"}
    assert offenders == {}


def test_no_module_is_longer_than_max_lines():
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in MODULES.items()}
    assert {name: lines for name, lines in lengths.items() if lines > MAX_LINES} == {}
