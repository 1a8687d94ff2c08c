"""`zerda index status|rebuild`: the file store's archive index (a catalog of sessions and a
full-text index of their messages), how fresh it is, and building it again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from zerda.errors import ZerdaError
from zerda.store.base import Store
from zerda_cli import render
from zerda_cli.options.params import HomeOpt, JsonOpt, StoreOpt, open_store
from zerda_cli.render.progress import ProgressLine

if TYPE_CHECKING:
    from zerda.store.files._catalog import Catalog

index_app = typer.Typer(
    name="index",
    help="The archive index that answers `zerda sessions` and `zerda search` fast.",
    no_args_is_help=True,
)


class NoIndex(ZerdaError):
    """The store keeps no archive index of zerda's."""


def _catalog(store: Store) -> Catalog:
    """The store's archive index (whatever its size: listings use it from
    `SessionStore.index_from` sessions on), or NoIndex saying why there is none."""
    from zerda.store.files import _catalog as catalog
    from zerda.store.files._store import SessionStore

    if not isinstance(store, SessionStore):
        raise NoIndex("no archive index here: a PostgreSQL store indexes in the database")
    if store.lenient or not catalog.available():
        raise NoIndex("no archive index here: this Python's SQLite has no FTS5 trigram tokenizer")
    return catalog.Catalog(store)


@index_app.command("status")
def status(as_json: JsonOpt = False, home: HomeOpt = None, location: StoreOpt = None) -> None:
    """How many sessions the index holds, what it brought up to date, and its size beside
    the text it indexes (it is checked against the session files first, as every use is)."""
    catalog = _catalog(open_store(home, location))
    with ProgressLine("indexing sessions") as progress:
        fresh = catalog.refresh(progress)
    figures = {**catalog.status(), **{f"checked_{k}": v for k, v in fresh.to_dict().items()}}
    if as_json:
        render.write_json(figures)
        return
    text, size = figures["text_bytes"], figures["index_bytes"]
    ratio = f" ({size / text:.2f}x the text)" if text else ""
    render.write_lines(
        [
            f"index     {figures['path']}\n",
            f"sessions  {figures['sessions']} ({figures['damaged']} damaged, read by search)\n",
            f"messages  {figures['messages']}\n",
            f"text      {text:,} bytes\n",
            f"size      {size:,} bytes{ratio}\n",
            f"checked   {fresh.refreshed} brought up to date, {fresh.dropped} dropped\n",
        ]
    )


@index_app.command("rebuild")
def rebuild(home: HomeOpt = None, location: StoreOpt = None) -> None:
    """Delete the index and build it again from the session files (with a progress line
    on a terminal). Nothing is lost either way: the session files are the truth."""
    catalog = _catalog(open_store(home, location))
    with ProgressLine("indexing sessions") as progress:
        fresh = catalog.rebuild(progress)
    render.note(f"indexed {fresh.sessions} sessions ({fresh.damaged} damaged, left out)")
