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


# --- packages: the stated order -------------------------------------------------------
# docs/architecture.md, "Dependency picture", lists the portal's units bottom to top, each
# with the units it imports. A unit is a domain's package (`tasks`), its portal pages
# (`tasks.pages`: a face over every domain), a face (`web`, `api`, `cli`, `demo`), the
# shared leaves (`shared`: the modules directly in portal/), the model registry (`models`:
# every domain's tables on one metadata, for migrations) or the app (`app`: the factory and
# the wiring of hooks).
APP_MODULES = {"", "wiring"}  # the package itself and its wiring, by name below it
PICTURE_ROW = re.compile(r"^\| (\d+) \| `([\w.]+)` \| (.*?) \|$", re.M)


def unit_of(name: str, path: Path) -> str:
    """The unit a module belongs to."""
    parts = name.split(".")
    below = ".".join(parts[1:])
    if below in APP_MODULES:
        return "app"
    if below == "models":
        return "models"
    if len(parts) == 2 and path.name != "__init__.py":
        return "shared"
    if len(parts) > 2 and parts[2] == "pages":
        return f"{parts[1]}.pages"
    return parts[1]


def unit_imports(package: Path) -> dict[str, dict[str, set[tuple[str, str]]]]:
    """unit -> the units it imports -> the (module, imported module) pairs that do it."""
    modules = modules_of(package)
    known = set(modules)
    graph: dict[str, dict[str, set[tuple[str, str]]]] = {}
    for name, path in modules.items():
        source = unit_of(name, path)
        targets = graph.setdefault(source, {})
        for imported in imports_of(name, path, known):
            target = unit_of(imported, modules[imported])
            if target != source:
                targets.setdefault(target, set()).add((name, imported))
    return graph


def stated_order(text: str) -> list[tuple[str, set[str]]]:
    """The picture's rows, bottom first: (unit, the units it says it imports)."""
    section = text.split("## Dependency picture", 1)[1].split("\n## ", 1)[0]
    rows = sorted(PICTURE_ROW.findall(section), key=lambda row: int(row[0]))
    return [(unit, set(re.findall(r"`([\w.]+)`", imports))) for _n, unit, imports in rows]


def against_the_order(
    graph: dict[str, dict[str, set[tuple[str, str]]]], order: list[str]
) -> list[str]:
    """Every import that does not go down the order (or names a unit the order lacks)."""
    rank = {unit: index for index, unit in enumerate(order)}
    found = []
    for source, targets in sorted(graph.items()):
        for target, pairs in sorted(targets.items()):
            if source not in rank or target not in rank or rank[target] >= rank[source]:
                module, imported = sorted(pairs)[0]
                found.append(f"{source} -> {target} ({module} imports {imported})")
    return found


def unit_cycles(graph: dict[str, dict[str, set[tuple[str, str]]]]) -> list[list[str]]:
    """Groups of units that import each other, directly or round about."""
    reach = {unit: set(targets) for unit, targets in graph.items()}
    changed = True
    while changed:
        changed = False
        for targets in reach.values():
            more = set().union(*(reach.get(t, set()) for t in targets)) - targets
            if more:
                targets |= more
                changed = True
    groups = {
        frozenset(u for u in reach if u in reach[unit] and unit in reach[u]) | {unit}
        for unit in reach
        if unit in reach[unit]
    }
    return sorted(sorted(group) for group in groups)


def picture(graph: dict[str, dict[str, set[tuple[str, str]]]], order: list[str]) -> str:
    """The picture's table as docs/architecture.md holds it."""
    lines = ["| # | unit | imports |", "|---|---|---|"]
    for index, unit in enumerate(order, start=1):
        imports = sorted(graph.get(unit, {}), key=order.index)
        names = ", ".join(f"`{name}`" for name in imports) or "—"
        lines.append(f"| {index} | `{unit}` | {names} |")
    return "\n".join(lines)


def test_portal_units_import_only_down_the_stated_order():
    """No package cycle, and every import goes down docs/architecture.md's order."""
    graph = unit_imports(PORTAL)
    order = [unit for unit, _ in stated_order(ARCHITECTURE.read_text(encoding="utf-8"))]
    assert unit_cycles(graph) == []
    assert against_the_order(graph, order) == []
    missing = sorted(set(graph) - set(order))
    assert missing == [], "add these units to the picture in docs/architecture.md"


def test_the_dependency_picture_is_the_code():
    """The picture's "imports" column is what the code imports (regenerate it with
    `python tests/test_layout.py`)."""
    graph = unit_imports(PORTAL)
    stated = stated_order(ARCHITECTURE.read_text(encoding="utf-8"))
    actual = {unit: set(graph.get(unit, {})) for unit, _ in stated}
    assert {unit: imports for unit, imports in stated} == actual


def test_the_order_check_sees_an_import_up_and_a_package_cycle(tmp_path):
    package = tmp_path / "shop"
    for folder in ("orders", "billing", "orders/pages"):
        (package / folder).mkdir(parents=True, exist_ok=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "money.py").write_text("")
    (package / "orders" / "service.py").write_text("from shop import money\n")
    (package / "billing" / "service.py").write_text("from shop.orders import service\n")
    (package / "orders" / "pages" / "kit.py").write_text("from shop.billing import service\n")
    order = ["shared", "orders", "billing", "orders.pages"]
    graph = unit_imports(package)
    assert against_the_order(graph, order) == []
    assert unit_cycles(graph) == []
    # orders' domain code asking billing (above it) breaks the order and makes a cycle
    (package / "orders" / "lines.py").write_text(
        "def line():\n    from shop.billing import service\n"
    )
    graph = unit_imports(package)
    assert against_the_order(graph, order) == [
        "orders -> billing (shop.orders.lines imports shop.billing.service)"
    ]
    assert unit_cycles(graph) == [["billing", "orders"]]


# Handler modules that may reach the database themselves, and why. (The API's machinery,
# `portal/api/core/` with `@write`'s one commit and the idempotency claims, is no handler
# module: the sweep below reads the `portal/api/*.py` handlers, not that package.)
HANDLERS_WITH_DATABASE = {
    "portal/api/unchanged.py": "the driver's poll, answered by one SQL statement",
}


def handler_modules() -> list[Path]:
    """The portal's pages (every module of a domain's `pages/` package) and the API's
    handlers."""
    root = PORTAL.parent
    found = [*PORTAL.glob("*/pages/**/*.py"), *PORTAL.glob("api/*.py")]
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


MAX_LINES = 400
MAX_FUNCTION_LINES = 60
ARCHITECTURE = PORTAL.parent / "docs" / "architecture.md"


def listed(heading: str) -> dict[str, str]:
    """The rows of a docs/architecture.md section listing code with why it stays whole."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(portal/[^`]+)` \| (.+?) \|$", section, re.M)
    return dict(rows)


def module_lengths() -> dict[str, int]:
    root = PORTAL.parent
    return {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PORTAL.rglob("*.py")
    }


def function_lengths(path: Path, name: str) -> dict[str, int]:
    """Every function and method of a module by `module:qualified name`, with its lines
    (from `def` to its last line; decorators not counted)."""
    found = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualified = f"{prefix}{child.name}"
                found[f"{name}:{qualified}"] = child.end_lineno - child.lineno + 1
                visit(child, f"{qualified}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def all_function_lengths() -> dict[str, int]:
    root = PORTAL.parent
    found = {}
    for path in PORTAL.rglob("*.py"):
        found.update(function_lengths(path, str(path.relative_to(root))))
    return found


def test_no_portal_module_is_over_400_lines_without_a_stated_reason():
    lengths = module_lengths()
    allowed = listed("Modules over 400 lines")
    too_long = {name: n for name, n in lengths.items() if n > MAX_LINES and name not in allowed}
    assert too_long == {}, "split these, or say why they stay whole in docs/architecture.md"
    stale = [name for name in allowed if lengths.get(name, 0) <= MAX_LINES]
    assert stale == [], "these are no longer over 400 lines: take them off the list"
    assert all(len(reason) > 40 for reason in allowed.values())


def test_no_portal_function_is_over_60_lines_without_a_stated_reason():
    lengths = all_function_lengths()
    allowed = listed("Functions over 60 lines")
    too_long = {
        name: n for name, n in lengths.items() if n > MAX_FUNCTION_LINES and name not in allowed
    }
    assert too_long == {}, "break these up, or say why they stay whole in docs/architecture.md"
    stale = [name for name in allowed if lengths.get(name, 0) <= MAX_FUNCTION_LINES]
    assert stale == [], "these are no longer over 60 lines: take them off the list"
    assert all(len(reason) > 40 for reason in allowed.values())


def test_the_length_check_counts_a_method_from_def_to_its_end(tmp_path):
    module = tmp_path / "shop.py"
    module.write_text(
        "class Cart:\n    @property\n    def total(self):\n"
        + "        x = 1\n" * 3
        + "        return x\n\ndef empty():\n    pass\n"
    )
    assert function_lengths(module, "shop.py") == {"shop.py:Cart.total": 5, "shop.py:empty": 2}


if __name__ == "__main__":  # print the picture for docs/architecture.md
    _graph = unit_imports(PORTAL)
    _order = [u for u, _ in stated_order(ARCHITECTURE.read_text(encoding="utf-8"))]
    print(picture(_graph, _order + sorted(set(_graph) - set(_order))))
