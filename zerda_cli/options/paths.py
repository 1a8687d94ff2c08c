"""Where the `zerda` command keeps its files: the data home, config and state directories.

An explicit home (`--home PATH` or `ZERDA_HOME`) holds everything, so one
directory isolates a whole setup (tests, demos). Otherwise sessions go to
platformdirs' data dir, config to its config dir, state (REPL history) to its state dir.
"""

from __future__ import annotations

import os
from pathlib import Path

from zerda._paths import platform_dir


def explicit_home(home: str | os.PathLike[str] | None = None) -> Path | None:
    """`home` if given, else `$ZERDA_HOME` if set, else None."""
    if home is not None and str(home):
        return Path(home).expanduser()
    env = os.environ.get("ZERDA_HOME")
    return Path(env).expanduser() if env else None


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The data home: `home`, `$ZERDA_HOME`, or platformdirs' user data dir for zerda."""
    return explicit_home(home) or platform_dir("data")


def config_dir(home: str | os.PathLike[str] | None = None) -> Path:
    """Config files: the explicit home itself, else platformdirs' user config dir."""
    return explicit_home(home) or platform_dir("config")


def config_path(home: str | os.PathLike[str] | None = None) -> Path:
    """Where the config file is looked for: `$ZERDA_CONFIG`, else `config.toml` in the
    config dir."""
    override = os.environ.get("ZERDA_CONFIG")
    return Path(override).expanduser() if override else config_dir(home) / "config.toml"


def state_dir(home: str | os.PathLike[str] | None = None) -> Path:
    """State (REPL history): `<explicit home>/state`, else platformdirs' user state dir."""
    chosen = explicit_home(home)
    return chosen / "state" if chosen is not None else platform_dir("state")
