"""Running the server under uvicorn: its workers make the app from the environment, its
log (startup, access, errors) goes to stderr, and SIGTERM lets the requests in flight
finish before it stops (uvicorn's graceful shutdown)."""

from __future__ import annotations

import copy
from typing import Any

import uvicorn

from zerda.server._app import from_environment
from zerda.server._settings import Settings

APP_FACTORY = f"{from_environment.__module__}:{from_environment.__name__}"


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    """Serve as `settings` say on `host`:`port` until stopped (ValueError, before
    anything starts, for settings that cannot serve there)."""
    settings.check(host).export()
    uvicorn.run(
        APP_FACTORY, factory=True, host=host, port=port, workers=workers, log_config=log_config()
    )


def log_config() -> dict[str, Any]:
    """uvicorn's logging, with the access log on stderr and zerda's errors beside it."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    config["loggers"]["zerda.server"] = {"handlers": ["default"], "level": "INFO"}
    return config
