"""`zerda serve`: the sessions over HTTP as Zep's v1 memory API, for the zep-python client
(see `zerda.server`).

The API key comes from a file or $ZERDA_API_KEY, never from the command line, where
other users could read it in `ps`; it is never printed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from zerda.errors import ZerdaError
from zerda.server._settings import KEY_VARIABLE, MAX_BODY, Settings
from zerda_cli.options.params import HomeOpt, StoreOpt, open_store, usage_error


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port.")] = 8000,
    workers: Annotated[
        int, typer.Option("--workers", metavar="N", min=1, help="Worker processes.")
    ] = 1,
    no_auth: Annotated[
        bool, typer.Option("--no-auth", help="Ask for no API key (loopback addresses only).")
    ] = False,
    api_key_file: Annotated[
        Path | None,
        typer.Option(
            "--api-key-file",
            metavar="FILE",
            help=f"Read the API key from FILE (default: ${KEY_VARIABLE}).",
            show_default=False,
        ),
    ] = None,
    max_body: Annotated[
        int, typer.Option("--max-body", metavar="BYTES", min=1, help="Largest request body.")
    ] = MAX_BODY,
    home: HomeOpt = None,
    location: StoreOpt = None,
) -> None:
    """Serve the sessions as a Zep memory server (API v1), for the zep-python client.

    Requests carry `Authorization: Bearer KEY`; the key is read from --api-key-file or
    $ZERDA_API_KEY. Only a server on a loopback address may run without one (--no-auth).
    SIGTERM or Ctrl-C stop it once the requests in flight are answered.
    """
    key = _api_key(no_auth, api_key_file)
    settings = Settings(_location(home, location), key, max_body)
    try:
        settings.check(host)
    except ValueError as exc:
        raise usage_error(str(exc)) from None
    try:
        from zerda.server._running import serve as run
    except ImportError as exc:
        raise ZerdaError(f"{exc}: pip install 'zerda[server]'") from None
    run(settings, host, port, workers)


def _api_key(no_auth: bool, key_file: Path | None) -> str | None:
    """The key requests must carry (None with --no-auth), or a usage error."""
    if no_auth:
        if key_file is not None:
            raise usage_error("--no-auth and --api-key-file disagree: give one")
        return None
    key = _read_key(key_file) if key_file is not None else os.environ.get(KEY_VARIABLE, "")
    if not key.strip():
        raise usage_error(
            f"an API key is needed: --api-key-file FILE or ${KEY_VARIABLE} "
            "(or --no-auth on a loopback address)"
        )
    return key.strip()


def _read_key(path: Path) -> str:
    """The key in `path` (surrounding blanks and newlines dropped)."""
    from zerda_cli.options.errors import os_message

    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = os_message(exc) if isinstance(exc, OSError) else f"not UTF-8: {path}"
        raise usage_error(f"--api-key-file: {reason}") from None


def _location(home: Path | None, location: str | None) -> str:
    """Where the sessions are, as the other commands choose it, checked by opening it."""
    from zerda_cli.options.location import store_location

    open_store(home, location).close()
    return str(store_location(home, location)[0])
