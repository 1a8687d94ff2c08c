"""The `zerda` Typer app: the root options (--version) and every command, registered in the
order `zerda --help` lists them.

Each command is a function in a module of `zerda_cli.commands` (`chat` and `browse` in
their packages, `zerda_cli.chat.command` and `zerda_cli.browse.command`); this module
only imports and registers them. Heavy modules (Rich, the memory classes, the token
encoder) are imported inside the commands that need them, so building the app is cheap.
"""

from __future__ import annotations

from typing import Annotated

import typer

from zerda_cli.browse.command import browse
from zerda_cli.chat.command import chat
from zerda_cli.commands.add import add
from zerda_cli.commands.context import context, window
from zerda_cli.commands.copy import copy
from zerda_cli.commands.demo import demo
from zerda_cli.commands.doctor import doctor
from zerda_cli.commands.entities import entities
from zerda_cli.commands.export import export
from zerda_cli.commands.imports import import_
from zerda_cli.commands.index import index_app
from zerda_cli.commands.manage import fork, rename, title
from zerda_cli.commands.mcp import mcp
from zerda_cli.commands.prune import prune
from zerda_cli.commands.remove import clear, delete
from zerda_cli.commands.search import search
from zerda_cli.commands.serve import serve
from zerda_cli.commands.sessions import sessions
from zerda_cli.commands.show import show
from zerda_cli.commands.stats import stats
from zerda_cli.commands.store import store_app
from zerda_cli.commands.summarize import summarize

app = typer.Typer(
    name="zerda",
    help="Chat history from the shell: record, show, search, trim, export and reuse it.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from zerda import __version__

        typer.echo(f"zerda {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Chat history from the shell: record, show, search, trim, export and reuse it."""


app.command()(add)
app.command()(show)
app.command()(stats)
app.command()(window)
app.command()(context)
app.command()(clear)
app.command()(delete)
app.command()(sessions)
app.command()(rename)
app.command()(fork)
app.command()(title)
app.command()(prune)
app.command()(export)
app.command("import")(import_)
app.command()(search)
app.command()(doctor)
app.command()(demo)
app.command()(chat)
app.command()(copy)
app.add_typer(store_app)
app.add_typer(index_app)
app.command()(browse)
app.command()(summarize)
app.command()(entities)
app.command()(serve)
app.command()(mcp)
