"""The shape of `zerda_cli`, read from its source: no import cycles, and each part imports
only the parts below it.

Every import of a zerda_cli module counts, those inside functions too (they run when the
function does). An import under `if TYPE_CHECKING:` never runs, so it closes no cycle (the
slash handlers name the REPL's `Chat` in annotations), but it is still a dependency of
its part and must respect the layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "zerda_cli"

# The parts of zerda_cli, bottom first, and the parts each may import besides itself.
LAYERS: dict[str, set[str]] = {
    "render": set(),  # output: plain writers, Rich screens, sanitizing
    "options": {"render"},  # shared options, input, errors, where the store is
    "basics": {"options", "render"},  # the Typer-free work of the quick commands
    "chat": {"options", "render"},  # `zerda chat`: its command, REPL, piped loop, config
    "browse": {"basics", "options", "render"},  # `zerda browse`
    "commands": {"basics", "chat", "options", "render"},  # one module per command
    "quick": {"basics", "browse", "options"},  # the quick path: no Typer
    "app": {"browse", "chat", "commands"},  # the Typer app: registers the commands
    "__main__": {"app", "options", "quick", "render"},  # the entry point
    "__init__": set(),
}
# Modules the quick path runs: they import no Typer or Rich (`__main__` does so only
# for the full command; tests/test_startup.py checks what a quick command loads).
WITHOUT_TYPER = (
    "zerda_cli.quick",
    "zerda_cli.basics",
    "zerda_cli.browse.start",
    "zerda_cli.options.errors",
    "zerda_cli.options.inputs",
    "zerda_cli.options.location",
    "zerda_cli.options.opening",
    "zerda_cli.options.paths",
)


def module_files() -> dict[str, Path]:
    """Every zerda_cli module by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = module_files()


def part(module: str) -> str:
    """`zerda_cli.render.formats` -> `render`; the package itself is `__init__`."""
    names = module.split(".")
    return names[1] if len(names) > 1 else "__init__"


def _type_checking_only(tree: ast.Module) -> set[ast.AST]:
    """The import statements under `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`)."""
    guarded: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", "")
            if name == "TYPE_CHECKING":
                guarded.update(n for s in node.body for n in ast.walk(s))
    return guarded


def _module_of(name: str) -> str | None:
    """The zerda_cli module `name` is, or is in (`zerda_cli.render.note` -> the package)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str) -> list[tuple[str, bool, int]]:
    """(zerda_cli module imported, whether it runs, line) for each import in `module`."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    guarded = _type_checking_only(tree)
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, or one above it
                package = module if path.name == "__init__.py" else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            # `from zerda_cli import render` imports the module zerda_cli.render
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [n if n in MODULES else base for n in names]
        for name in names:
            target = _module_of(name) if name.split(".")[0] == "zerda_cli" else None
            if target is not None and target != module:
                found.append((target, node not in guarded, node.lineno))
    return found


def graph(*, running_only: bool) -> dict[str, set[str]]:
    return {
        module: {target for target, runs, _ in imports(module) if runs or not running_only}
        for module in MODULES
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path back to its start) per back edge a depth-first walk meets."""
    found: list[list[str]] = []
    done: set[str] = set()

    def walk(module: str, path: list[str]) -> None:
        for target in sorted(edges[module]):
            if target in path:
                found.append([*path[path.index(target) :], target])
            elif target not in done:
                walk(target, [*path, target])
        done.add(module)

    for module in sorted(edges):
        if module not in done:
            walk(module, [module])
    return found


def test_the_modules_are_found_and_their_imports_read() -> None:
    assert {"zerda_cli.app", "zerda_cli.quick", "zerda_cli.commands.add"} <= set(MODULES)
    edges = graph(running_only=True)
    assert "zerda_cli.commands.add" in edges["zerda_cli.app"]
    assert "zerda_cli.render" in edges["zerda_cli.commands.remove"]  # from zerda_cli import render
    assert "zerda_cli.options.contexts" in edges["zerda_cli.commands.context"]  # in a function
    typed = graph(running_only=False)
    assert any(typed[module] - edges[module] for module in MODULES)  # TYPE_CHECKING ones


def test_no_module_imports_itself_back() -> None:
    found = [" -> ".join(cycle) for cycle in cycles(graph(running_only=True))]
    assert found == [], "import cycles among zerda_cli modules:\n" + "\n".join(found)


def test_every_module_belongs_to_a_layer() -> None:
    assert sorted({part(module) for module in MODULES} - set(LAYERS)) == []


def test_each_part_imports_only_the_parts_below_it() -> None:
    wrong = [
        f"{MODULES[module].relative_to(PACKAGE.parent)}:{line} imports {target}"
        for module in MODULES
        for target, _, line in imports(module)
        if part(target) != part(module) and part(target) not in LAYERS[part(module)]
    ]
    assert wrong == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if part(m) == "commands"))
def test_a_command_module_does_not_import_the_app(module: str) -> None:
    targets = {target for target, _, _ in imports(module)}
    assert not targets & {"zerda_cli.app", "zerda_cli.__main__"}


@pytest.mark.parametrize("module", WITHOUT_TYPER)
def test_the_quick_path_imports_no_typer_or_rich(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    named = [
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert [n for n in named if n.split(".")[0] in ("typer", "click", "rich")] == []
