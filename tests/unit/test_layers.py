"""Dependencies run one way: every module's imports (top-level, inside functions and under
TYPE_CHECKING alike, read with ast) point to its own package or to a lower layer, and no
modules import each other in a circle at run time (top-level and function-level imports),
nor at file level inside a package once the annotation-only imports under TYPE_CHECKING
are counted too: a module that needs what owns it names a narrow Protocol (lsp/features.py's
FeatureHost, agent/built_ins.py's BuiltInHost), not the owner's class. An import inside a
function of a module the other one never imports (sandbox/backend.py's of launch.py) is
no circle. docs/architecture.md draws the same picture.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "workspace_agent"

LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("entry point", frozenset({"__main__"})),
    ("command line", frozenset({"cli"})),
    ("demo", frozenset({"demo"})),
    ("adapters", frozenset({"lsp", "acp", "testing"})),
    ("views of saved sessions", frozenset({"conversation"})),
    ("agent (composes the features)", frozenset({"agent"})),
    (
        "features",
        frozenset(
            {"checkpoints", "mcp", "instructions", "hooks", "skills", "subagents", "code_intel"}
        ),
    ),
    ("tools", frozenset({"tools"})),
    ("the web (web_fetch, web_search)", frozenset({"web"})),
    ("tool services", frozenset({"guard", "sandbox", "explore"})),
    ("shared vocabulary", frozenset({"shared"})),
    ("settings", frozenset({"config"})),
    ("contract", frozenset({"protocol", ""})),
    ("a file name's forms", frozenset({"names"})),
    ("the contract generated from contract/workspace-agent.json", frozenset({"contract"})),
)
"""Top to bottom. A module may import its own package and any package of a lower layer;
never a package of its own layer (siblings) or of a layer above. "" is the root package
(`workspace_agent/__init__.py`: the version)."""

RANK = {name: rank for rank, (_, names) in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    parts = ["workspace_agent", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    file = PACKAGE.parent.joinpath(*name.split("."))
    return file.with_suffix(".py").exists() or (file / "__init__.py").exists()


def type_only_nodes(tree: ast.AST) -> set[ast.AST]:
    """The import statements inside `if TYPE_CHECKING:` blocks."""
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                found.update(ast.walk(child))
    return found


def imports_of(path: Path, *, type_only: bool = True) -> list[tuple[int, str]]:
    """(line, module) for every workspace_agent module `path` imports, anywhere in it
    (without those under TYPE_CHECKING when `type_only` is False)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set() if type_only else type_only_nodes(tree)
    for node in ast.walk(tree):
        if node in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if is_module(sub) else target))
    return [(line, m) for line, m in found if m.split(".")[0] == "workspace_agent"]


def top_package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def module_graph(*, type_only: bool = True) -> dict[str, list[tuple[int, str]]]:
    return {
        module_name(p): imports_of(p, type_only=type_only) for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_every_package_has_a_layer() -> None:
    packages = {top_package(m) for m in module_graph()}
    assert sorted(packages - RANK.keys()) == [], "add the new package to LAYERS"


def test_imports_point_down_the_layers() -> None:
    wrong: list[str] = []
    for module, imports in module_graph().items():
        own = top_package(module)
        for line, target in imports:
            other = top_package(target)
            if other == own or RANK.get(other, -1) > RANK[own]:
                continue
            problem = (
                f"{module}:{line} imports {target}: {LAYERS[RANK[own]][0]} ({own or 'root'}) "
                f"may import only lower layers, and {other or 'root'} is "
                f"{'a sibling' if RANK.get(other) == RANK[own] else 'above it'} "
                f"({LAYERS[RANK[other]][0] if other in RANK else 'no layer'})"
            )
            if problem not in wrong:
                wrong.append(problem)
    assert wrong == [], "imports against the layer order:\n" + "\n".join(wrong)


def import_edges(*, type_only: bool) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for module, imports in module_graph(type_only=type_only).items():
        for _, target in imports:
            # A package's __init__ re-exports its modules; importing the package is not an
            # import of each of them.
            if target != module and not module.startswith(target + "."):
                edges[module].add(target)
    return edges


def test_no_modules_import_each_other_in_a_circle() -> None:
    cycles = strongly_connected(import_edges(type_only=False))
    assert cycles == [], "modules that import each other (directly or round a circle):\n" + (
        "\n".join(" <-> ".join(sorted(c)) for c in cycles)
    )


def test_no_files_of_a_package_import_each_other_even_for_annotations() -> None:
    cycles = strongly_connected(import_edges(type_only=True))
    assert cycles == [], (
        "modules that import each other, counting the imports under TYPE_CHECKING (name a "
        "narrow Protocol of what the module needs instead of the class that owns it):\n"
        + "\n".join(" <-> ".join(sorted(c)) for c in cycles)
    )


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the groups (of more than one module) that reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return groups
