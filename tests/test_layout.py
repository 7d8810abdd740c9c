"""The code's shape: no import cycle between the portal's modules, counting the imports
inside functions too (they hide a cycle from Python, not from the reader)."""

from __future__ import annotations

import ast
import re
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


# Handler modules that may reach the database themselves, and why. (The API's machinery,
# `portal/api/core/` with `@write`'s one commit and the idempotency claims, is no handler
# module: the sweep below reads the `portal/api/*.py` handlers, not that package.)
HANDLERS_WITH_DATABASE = {
    "portal/api/unchanged.py": "the driver's poll, answered by one SQL statement",
}


def handler_modules() -> list[Path]:
    """The portal's views and the API's handlers."""
    root = PORTAL.parent
    found = [*PORTAL.rglob("views.py"), *PORTAL.rglob("*_views.py"), *PORTAL.glob("api/*.py")]
    found += [p for p in PORTAL.rglob("*.py") if p.parent.name == "views"]
    return sorted(p for p in set(found) if str(p.relative_to(root)) not in HANDLERS_WITH_DATABASE)


def database_reaches(path: Path) -> list[str]:
    """Where a module queries, commits or rolls back itself instead of asking a service."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            found.append(f"{node.lineno}: imports {node.module}")
        elif isinstance(node, ast.Import) and any(
            a.name.startswith("sqlalchemy") for a in node.names
        ):
            found.append(f"{node.lineno}: imports sqlalchemy")
        elif isinstance(node, ast.ImportFrom) and node.module == "portal.extensions":
            if any(alias.name == "db" for alias in node.names):
                found.append(f"{node.lineno}: imports db")
        elif isinstance(node, ast.Attribute) and node.attr in ("commit", "rollback"):
            found.append(f"{node.lineno}: .{node.attr}()")
    return found


def test_views_and_api_handlers_reach_tables_only_through_services():
    """A view changes through services and `portal_write` (or the API's `@write`) commits:
    no query, commit or rollback of its own."""
    offenders = {
        str(path.relative_to(PORTAL.parent)): reaches
        for path in handler_modules()
        if (reaches := database_reaches(path))
    }
    assert offenders == {}


def test_the_database_check_sees_a_commit_in_a_view(tmp_path):
    view = tmp_path / "views.py"
    view.write_text("from portal.extensions import db\n\ndef save():\n    db.session.commit()\n")
    assert database_reaches(view) == ["1: imports db", "4: .commit()"]


MAX_LINES = 500
ARCHITECTURE = PORTAL.parent / "docs" / "architecture.md"


def long_modules_allowed() -> dict[str, str]:
    """The modules docs/architecture.md lists under "Modules over 500 lines", with why."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Modules over 500 lines", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(portal/[^`]+)` \| (.+?) \|$", section, re.M)
    return dict(rows)


def test_no_portal_module_is_over_500_lines_without_a_stated_reason():
    root = PORTAL.parent
    lengths = {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PORTAL.rglob("*.py")
    }
    allowed = long_modules_allowed()
    too_long = {name: n for name, n in lengths.items() if n > MAX_LINES and name not in allowed}
    assert too_long == {}, "split these, or say why they stay whole in docs/architecture.md"
    stale = [name for name in allowed if lengths.get(name, 0) <= MAX_LINES]
    assert stale == [], "these are no longer over 500 lines: take them off the list"
    assert all(len(reason) > 40 for reason in allowed.values())
