"""Entry point of `zerda` (and `python -m zerda_cli`): every failure becomes one line on stderr.

Exit codes: 0 success (also when stdout's reader stops early), 1 error, 2 usage,
130 interrupted. Set ZERDA_DEBUG=1 to get the traceback of an unexpected error.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import warnings
from typing import Any, TextIO

from zerda_cli.render.sanitize import one_line

COMPLETE_VAR = "_ZERDA_COMPLETE"
_shown: set[str] = set()


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    text = one_line(str(message))
    if text not in _shown:  # the library may meet the same damage on each pass over a file
        _shown.add(text)
        sys.stderr.write(f"warning: {text}\n")


def _fail(message: str) -> None:
    sys.stderr.write(f"error: {one_line(message)}\n")


class ClosedPipe(Exception):
    """Whoever read stdout stopped (`zerda show s | head -1`): nothing went wrong."""


def _quiet_stdout() -> None:
    """Point stdout at the null device, so flushing it at exit cannot fail again."""
    # A stdout without a descriptor (captured by a caller) has nothing to redirect.
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _run(argv: list[str] | None) -> Any:
    from typer.main import get_command

    from zerda_cli.app import app
    from zerda_cli.options import coercion, helpdisplay

    command = get_command(app)
    coercion.install(command)
    helpdisplay.tidy(command)
    invoke = command.invoke

    def invoke_noting_a_closed_pipe(ctx: Any) -> Any:
        # Typer turns a broken pipe into exit status 1; it is no failure of zerda's.
        try:
            return invoke(ctx)
        except BrokenPipeError:
            raise ClosedPipe from None

    command.invoke = invoke_noting_a_closed_pipe  # type: ignore[method-assign]
    if os.environ.get(COMPLETE_VAR):
        # Typer registers its bash/zsh/fish scripts only for its own --install-completion.
        from typer._completion_classes import completion_init

        completion_init()
        helpdisplay.fix_zsh_completion()
    return command.main(args=argv, prog_name="zerda", standalone_mode=False)


def _dispatch(argv: list[str] | None) -> Any:
    """Run the quick path when it takes `argv` (see `zerda_cli.quick`), else the full command."""
    from zerda_cli.quick import plan

    quick = None if os.environ.get(COMPLETE_VAR) else plan(sys.argv[1:] if argv is None else argv)
    if quick is None:
        return _run(argv)
    try:
        return quick()
    except BrokenPipeError:
        raise ClosedPipe from None


def main(argv: list[str] | None = None) -> int:
    """Run the `zerda` command with `argv` (default: sys.argv[1:]); return the exit code."""
    from zerda.errors import ZerdaError
    from zerda_cli.options.errors import ExitStatusError, UsageProblem, os_message

    warnings.showwarning = _show_warning
    _shown.clear()
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        result = _dispatch(argv)
        return result if isinstance(result, int) else 0
    except UsageProblem as exc:
        _fail(f"{exc} (see 'zerda {exc.command} --help')" if exc.command else str(exc))
        return 2
    except ClosedPipe:
        _quiet_stdout()
        return 0
    except ZerdaError as exc:
        _fail(str(exc))
        return exc.exit_code if isinstance(exc, ExitStatusError) else 1
    except OSError as exc:
        _fail(os_message(exc))
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if "typer" not in sys.modules:
            return _unexpected(exc)
        return _typer_failure(exc)


def _typer_failure(failure: Exception) -> int:
    """The exit code of a failure Typer (or click) raised, told in one line."""
    from typer._click.exceptions import NoArgsIsHelpError, UsageError
    from typer.exceptions import Abort, TyperException

    try:
        raise failure
    except NoArgsIsHelpError:
        return 0  # the help was printed; nothing went wrong
    except UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "zerda"
        _fail(f"{exc.format_message()} (see '{where} --help')")
        return 2
    except TyperException as exc:
        _fail(exc.format_message())
        return exc.exit_code
    except Abort:
        _fail("aborted; nothing was changed")
        return 1
    except Exception as other:
        return _unexpected(other)


def _unexpected(exc: Exception) -> int:
    """A failure zerda did not expect: one line (ZERDA_DEBUG=1 raises it again)."""
    if os.environ.get("ZERDA_DEBUG"):
        raise exc
    _fail(f"unexpected {type(exc).__name__}: {exc} (ZERDA_DEBUG=1 shows the traceback)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
