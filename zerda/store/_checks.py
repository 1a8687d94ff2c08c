"""What `Store.check` finds wrong with a store, and what `Store.repair` did about it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One problem: where it is (a file or a server's session), the line when there is
    one, its `kind` (damaged, torn, totals, unfinished, mode, link, temp, lock, type,
    schema) and what is wrong, for people. `repairable` says whether `repair` fixes it."""

    where: str
    kind: str
    problem: str
    line: int | None = None
    session_id: str | None = None
    repairable: bool = True

    def __str__(self) -> str:
        at = f"{self.where}:{self.line}" if self.line is not None else self.where
        return f"{at}: {self.problem}"


@dataclass(frozen=True)
class Repair:
    """What `repair` did: the findings it fixed, the side files it saved lines to, and
    the findings left (those it cannot fix)."""

    fixed: list[Finding]
    saved: list[str]
    left: list[Finding]
