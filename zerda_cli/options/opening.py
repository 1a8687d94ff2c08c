"""The store a command works on, chosen as `zerda_cli.options.location` says, with no Typer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from zerda_cli.options.errors import UsageProblem

if TYPE_CHECKING:
    from zerda.store.base import Store


def open_store(
    home: Path | None,
    store: str | None = None,
    *,
    count_on_write: bool = True,
    lenient: bool = False,
    extract_entities: bool = False,
    command: str = "",
) -> Store:
    """The store a command works on: `--store`, `--home`, `$ZERDA_STORE`, `store =` in
    config.toml, else the data home (see `zerda_cli.options.location`); a usage error of
    `command` when both flags are given, or when a directory named is something else.
    `lenient` skips damaged lines, counted into one warning at the end (see
    `zerda_cli.options.lenient`). Entities are extracted on write only where `extract_entities`
    says (a short command leaves them to `zerda entities`, as an import does)."""
    from zerda.store._opening import open_store as open_location
    from zerda_cli.options.location import store_location

    if store is not None and home is not None:
        raise UsageProblem("--store and --home both say where sessions are: give one", command)
    location, given = store_location(home, store)
    if isinstance(location, Path) and location.exists() and not location.is_dir():
        raise UsageProblem(f"{given} {location} is not a directory", command)
    if lenient:
        from zerda_cli.options.lenient import count_skipped_lines

        count_skipped_lines()
    return open_location(
        location, count_on_write=count_on_write, lenient=lenient, extract_entities=extract_entities
    )
