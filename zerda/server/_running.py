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
    check_address(host, port)
    uvicorn.run(
        APP_FACTORY, factory=True, host=host, port=port, workers=workers, log_config=log_config()
    )


def check_address(host: str, port: int) -> None:
    """ZerdaError, in one line, when `host`:`port` cannot be listened on (in use, not an
    address of this machine, a privileged port), bound as uvicorn binds it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            reason = exc.strerror or str(exc)
            shown = f"[{host}]" if family == socket.AF_INET6 else host
            said = reason[:1].lower() + reason[1:]
            raise ZerdaError(f"cannot listen on {shown}:{port}: {said}") from None


def log_config() -> dict[str, Any]:
    """uvicorn's logging, with the access log on stderr and zerda's errors beside it."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    config["loggers"]["zerda.server"] = {"handlers": ["default"], "level": "INFO"}
    return config
