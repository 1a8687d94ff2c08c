"""Where a command's sessions are: `--store`, else `--home`, else `$ZERDA_STORE`, else
`store =` in config.toml, else the data home (`$ZERDA_HOME` or the platform's).

A location is a `postgresql://` URL (the PostgreSQL store) or a directory (session files).
"""

from __future__ import annotations

import os
from pathlib import Path

from zerda.store.postgres._urls import is_url, redact
from zerda_cli.options.paths import resolve_home

VARIABLE = "ZERDA_STORE"


def store_location(home: Path | None, store: str | None) -> tuple[str | Path, str]:
    """(the location a command opens, what named it): the first of --store, --home,
    $ZERDA_STORE, the config file's `store`, the data home. A location that is not a
    URL is a directory, `~` expanded."""
    if store:
        return _located(store), "--store"
    if home is not None and str(home):
        return resolve_home(home), "--home"
    if os.environ.get(VARIABLE):
        return _located(os.environ[VARIABLE]), VARIABLE
    configured = configured_store()
    if configured:
        return _located(configured), "store in config.toml"
    return resolve_home(None), "ZERDA_HOME"


def _located(location: str) -> str | Path:
    return location if "://" in location else Path(location).expanduser()


def configured_store() -> str | None:
    """`store` at the top of config.toml, if the file sets it."""
    from zerda_cli.options.paths import config_path

    path = config_path()
    if not path.is_file():
        return None
    import tomllib

    from zerda_cli.options.settings import ConfigError  # only when there are settings

    try:
        value = tomllib.loads(path.read_text(encoding="utf-8")).get("store")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{path}: store must be a string (a postgresql:// URL or a path)")
    return value or None


def describe(location: str | Path) -> str:
    """The location for people: a URL without its password, or the directory."""
    return redact(location) if isinstance(location, str) and is_url(location) else str(location)
