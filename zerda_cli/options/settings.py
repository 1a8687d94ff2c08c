"""config.toml, the settings file of the `zerda` command (`paths.config_path` says where):
what a bad one raises, and the settings outside the chat's table.

`store =` at its top is read by `location`, `retention` under `[history]` by `zerda
prune` (here), and the `[chat]` table by `zerda_cli.chat.config`.
"""

from __future__ import annotations

import os
import tomllib

from zerda.errors import ZerdaError
from zerda_cli.options.paths import config_path


class ConfigError(ZerdaError):
    """A setting of config.toml (or of `zerda chat`) is missing or has a bad value (a usage
    error: exit 2)."""


def configured_retention(home: str | os.PathLike[str] | None = None) -> str | None:
    """`retention` in the `[history]` table of the config file (a span such as "90d"),
    if it sets one: how long `zerda prune` keeps sessions without activity."""
    path = config_path(home)
    if not path.is_file():
        return None
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("history", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    value = table.get("retention") if isinstance(table, dict) else None
    if value is not None and not isinstance(value, str):
        raise ConfigError(f'{path}: retention in [history] must be a span such as "90d"')
    return value
