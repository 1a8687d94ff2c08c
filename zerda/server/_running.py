"""Running the server under uvicorn: its workers make the app from the environment, its
log (startup, access, errors) goes to stderr, and SIGTERM lets the requests in flight
finish before it stops (uvicorn's graceful shutdown)."""

from __future__ import annotations

import copy
import socket
from typing import Any

import uvicorn

from zerda.errors import ZerdaError
from zerda.server._app import from_environment
from zerda.server._settings import Settings

APP_FACTORY = f"{from_environment.__module__}:{from_environment.__name__}"


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    """Serve as `settings` say on `host`:`port` until stopped (ValueError, before
    anything starts, for settings that cannot serve there; ZerdaError for an address it
    cannot listen on)."""
    settings.check(host).export()
    check_address(host, port, workers)
    uvicorn.run(
        APP_FACTORY, factory=True, host=host, port=port, workers=workers, log_config=log_config()
    )


def check_address(host: str, port: int, workers: int = 1) -> None:
    """ZerdaError, in one line, when `host`:`port` cannot be listened on (in use, not an
    address of this machine, a privileged port), tried as uvicorn binds it: one worker
    listens on every address `host` resolves to (IPv6 ones IPv6 only), several on one."""
    try:
        if workers > 1:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            _bind(family, (host, port), v6only=False)
        else:
            found = socket.getaddrinfo(
                host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )
            for family, _, _, _, address in found:
                _bind(family, address, v6only=True, skip_unsupported=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        shown = f"[{host}]" if ":" in host else host
        said = reason[:1].lower() + reason[1:]
        raise ZerdaError(f"cannot listen on {shown}:{port}: {said}") from None


def _bind(family: int, address: Any, v6only: bool, skip_unsupported: bool = False) -> None:
    """Bind a probe as uvicorn would; asyncio skips a family the kernel lacks, and so does
    `skip_unsupported`."""
    try:
        probe = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError:
        if skip_unsupported:
            return
        raise
    with probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if v6only and family == socket.AF_INET6:
            probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        probe.bind(address)


def log_config() -> dict[str, Any]:
    """uvicorn's logging, with the access log on stderr and zerda's errors beside it."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    config["loggers"]["zerda.server"] = {"handlers": ["default"], "level": "INFO"}
    return config
