"""`zerda doctor`: check the stored sessions (or one) and, with --repair, fix them."""

from __future__ import annotations

from typing import Annotated

import typer

from zerda.store._checks import Finding
from zerda_cli.options.params import (
    HomeOpt,
    StoreOpt,
    check_optional_session,
    complete_session,
    open_store,
)
from zerda_cli.render import note, write_lines
from zerda_cli.render.sanitize import one_line

OptionalSessionArg = Annotated[
    str | None,
    typer.Argument(
        metavar="[SESSION]",
        help="Only this session (default: all of them).",
        autocompletion=complete_session,
        callback=check_optional_session,
        show_default=False,
    ),
]
RepairOpt = Annotated[
    bool,
    typer.Option(
        "--repair",
        help="Fix what is found: damaged lines are moved to a side file beside the session "
        "(nothing is lost), the session is rewritten atomically with sealed running totals, "
        "stray temp and lock files that no process holds are removed.",
    ),
]


def doctor(
    session: OptionalSessionArg = None,
    repair: RepairOpt = False,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Check every session (or SESSION): damaged lines (with their numbers), missing or
    unsealed running totals, unfinished writes, stray temp and lock files, files not 0600,
    hard links; on a PostgreSQL store the schema version and each session's totals.

    One line per finding. Exit status 0 when all is well (after --repair: when nothing
    is left), 1 when something is found.
    """
    store = open_store(home, location)
    if repair:
        done = store.repair(session)
        write_lines(f"repaired: {_line(f)}\n" for f in done.fixed)
        write_lines(f"saved aside: {one_line(path)}\n" for path in done.saved)
        left = done.left
        write_lines(f"left: {_line(f)}\n" for f in left)
    else:
        left = store.check(session)
        write_lines(f"{_line(f)}\n" for f in left)
    if left:
        raise typer.Exit(1)
    note("no problems found" if not repair else "no problems left")


def _line(finding: Finding) -> str:
    return one_line(str(finding)) + ("" if finding.repairable else " (--repair cannot fix this)")
