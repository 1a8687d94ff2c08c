"""Help screens and shell completion that read as intended.

Typer 0.29 writes `<bool>` after every flag (which takes no value), `<str>` after
every argument, and `{SESSION}` for a required argument in usage lines; its Rich help
keeps a docstring's single line breaks, so a description broke where its source line
did, not at the terminal's width; and its zsh completion drops the apostrophes of
descriptions. These are put right here, on the
command objects and the completion class, without changing what is parsed.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any


def tidy(command: Any) -> None:
    """Flags show no type, arguments show their name alone: `SESSION`, `[SESSION]`; each
    paragraph of a command's help flows to the terminal's width."""
    from zerda_cli.options.coercion import all_params

    for each in _commands(command):
        if each.help:
            each.help = flowed(each.help)
    for param in all_params(command):
        if getattr(param, "param_type_name", "") == "argument":
            param.display_type_rich = _no_type
            param._usage_display_name = _usage_name(param)
        elif getattr(param, "is_flag", False):
            param.display_type_rich = _no_type


def flowed(text: str) -> str:
    """`text` with each paragraph on one line (paragraphs are kept apart by a blank line)."""
    return "\n\n".join(" ".join(part.split()) for part in inspect.cleandoc(text).split("\n\n"))


def _commands(command: Any) -> Iterator[Any]:
    """`command` and every command under it, at any depth."""
    yield command
    for each in getattr(command, "commands", {}).values():
        yield from _commands(each)


def _no_type(ctx: Any = None) -> None:
    return None


def _usage_name(param: Any) -> Any:
    def name() -> str:
        raw = param.display_name_raw
        if raw.startswith("[") and not param.required:
            return str(raw)  # a metavar that shows it is optional: `[SESSION]...`
        grouped = f"({raw})" if " " in raw else raw  # `(INPUT OUTPUT | CONTENT)...`
        shown = grouped if param.required else f"[{raw}]"
        return shown + ("..." if param.nargs != 1 else "")

    return name


def fix_zsh_completion() -> None:
    """Register a zsh completion whose descriptions keep their quotes and apostrophes."""
    from typer._click.shell_completion import CompletionItem, add_completion_class
    from typer._completion_classes import ZshComplete

    class QuotingZshComplete(ZshComplete):
        """Typer's zsh completion, quoting for the single-quoted `_arguments` spec it
        prints (an apostrophe ends that quote, so it is written as '\\'')."""

        def format_completion(self, item: CompletionItem) -> str:
            value = _escape(str(item.value))
            if item.help:
                return f'"{value}":"{_escape(" ".join(str(item.help).split()))}"'
            return f'"{value}"'

    add_completion_class(QuotingZshComplete, QuotingZshComplete.name)


def _escape(text: str) -> str:
    return (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace(":", r"\\:")
        .replace("$", "\\$")
        .replace("`", "\\`")
        .replace("'", "'\\''")
    )
