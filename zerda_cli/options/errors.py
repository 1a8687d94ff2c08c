"""The errors a `zerda` command reports as such (`zerda_cli.__main__` turns each into one
line on stderr and its exit status): arguments that do not go together, input that cannot
be used, a command's own exit status, and an OSError told for people."""

from __future__ import annotations

from zerda.errors import ZerdaError


class UsageProblem(ZerdaError):
    """Arguments that do not go together (exit 2), told as a usage error of `command`."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command


class InputError(ZerdaError):
    """Input the command cannot use (not UTF-8, empty, unreadable); nothing was written."""


class ExitStatusError(ZerdaError):
    """An error a command reports with an exit status of its own (`zerda search`, like
    grep, keeps 1 for "nothing matched" and gives 2 for trouble)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def os_message(exc: OSError) -> str:
    """An OSError for people: what went wrong, and the file it happened to."""
    if exc.filename is not None:
        return f"{exc.strerror or exc}: {exc.filename}"
    return str(exc.strerror or exc)
