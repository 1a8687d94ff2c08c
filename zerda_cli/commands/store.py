"""`zerda store init`: make the chosen store ready (a server's schema created or migrated)."""

from __future__ import annotations

import typer

from zerda_cli import render
from zerda_cli.options.params import HomeOpt, StoreOpt, open_store

store_app = typer.Typer(
    name="store",
    help="The store itself: where sessions are kept, and making it ready.",
    no_args_is_help=True,
)


@store_app.command("init")
def init(location: StoreOpt = None, home: HomeOpt = None) -> None:
    """Create or migrate a PostgreSQL store's schema now (it is also done on first use).

    Session files need no set-up: their directory is made on the first write.
    """
    from zerda.store.postgres import PostgresStore

    opened = open_store(home, location)
    if not isinstance(opened, PostgresStore):
        render.note("session files need no set-up: their directory is made on the first write")
        return
    try:
        applied = opened.init()
        version = opened.schema_version()
    finally:
        opened.close()
    if applied:
        steps = "; ".join(applied)
        render.note(f"{opened.where}: schema now at version {version} (applied {steps})")
    else:
        render.note(f"{opened.where}: schema already at version {version}; nothing to do")
