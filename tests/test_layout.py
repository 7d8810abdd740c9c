"""The code's shape: no import cycle between the portal's modules, counting the imports
inside functions too (they hide a cycle from Python, not from the reader)."""

from __future__ import annotations

import ast
from pathlib import Path

PORTAL = Path(__file__).resolve().parents[1] / "portal"


def modules_of(package: Path) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    root = package.parent
    found = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The known modules that module name imports, anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = next(iter(known)).split(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            if source.split(".")[0] != top:
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in known:
                    found.add(submodule)  # `from portal import reads` imports portal.reads
                elif source in known:
                    found.add(source)
    found.discard(name)
    return found


def cycles(package: Path) -> list[list[str]]:
    """The groups of modules that import each other, directly or round about (Tarjan)."""
    modules = modules_of(package)
    graph = {name: imports_of(name, path, set(modules)) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for target in graph[name]:
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in on_stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == name:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(groups)


def test_no_portal_module_imports_itself_round_about():
    assert cycles(PORTAL) == []


def test_the_check_sees_a_cycle_hidden_in_a_function(tmp_path):
    package = tmp_path / "shop"
    (package / "orders").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "orders" / "__init__.py").write_text("")
    (package / "orders" / "service.py").write_text("from shop import billing\n")
    (package / "billing.py").write_text("def bill():\n    from shop.orders import service\n")
    (package / "stock.py").write_text("from .orders import service\n")  # one way: fine
    assert cycles(package) == [["shop.billing", "shop.orders.service"]]
