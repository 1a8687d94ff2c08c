"""README.md and docs/: the generated command reference is current, every relative link and
anchor lands, every page is linked, and the commands CI reads from README.md are there."""

from __future__ import annotations

import difflib
import importlib.util
import re
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
REFERENCE = DOCS / "cli-reference.md"
PAGES = [README, ROOT / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.M)


def cli_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "tools/cli_reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current() -> None:
    generated: str = cli_reference().render()
    current = REFERENCE.read_text(encoding="utf-8")
    if current != generated:
        diff = "".join(
            list(
                difflib.unified_diff(
                    current.splitlines(keepends=True),
                    generated.splitlines(keepends=True),
                    "docs/cli-reference.md",
                    "generated",
                )
            )[:60]
        )
        pytest.fail(
            "docs/cli-reference.md is out of date with the command's --help; regenerate it:\n"
            f"    .venv/bin/python tools/cli_reference.py\n{diff}",
            pytrace=False,
        )


def test_cli_reference_has_every_command_and_subcommand() -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    for command in ("zerda", "zerda add", "zerda chat", "zerda store init", "zerda index status"):
        assert f"## `{command}`\n\n```text\n Usage: {command} " in text, command


def prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are not links."""
    return CODE.sub("``", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text())):
        base = slug(heading)
        name, n = base, 0
        while name in found:
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    return found


def links(page: Path) -> list[str]:
    return [t for t in LINK.findall(prose(page.read_text())) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_anchors_land(page: Path) -> None:
    for target in links(page):
        path, _, anchor = target.partition("#")
        landing = (page.parent / path).resolve() if path else page
        assert landing.exists(), f"{page.name}: {target} is no file"
        if anchor:
            assert anchor in anchors(landing), f"{page.name}: {target}: no such heading"


def test_every_docs_page_is_linked_from_both_indexes() -> None:
    for page in sorted(DOCS.glob("*.md")):
        if page.name != "README.md":
            assert f"docs/{page.name}" in links(README), f"README.md lacks docs/{page.name}"
            assert page.name in links(DOCS / "README.md"), f"docs/README.md lacks {page.name}"


def awk_command(marker: str) -> str:
    """The line after the first fence after `marker`, as .ci/run's awk finds it."""
    lines = README.read_text().splitlines()
    start = lines.index(marker)
    fence = next(n for n in range(start + 1, len(lines)) if lines[n].startswith("```"))
    return lines[fence + 1] if fence + 1 < len(lines) else ""


def test_readme_keeps_the_commands_ci_reads() -> None:
    assert awk_command("<!-- test-command -->") == ".venv/bin/python -m pytest --all"
    setup = awk_command("<!-- setup-command -->")
    assert setup.startswith("python3 -m venv .venv") and setup.endswith("zerda demo")
