"""Settings of `zerda chat`: defaults, then the TOML config file, then environment, then flags.

The config file is `config.toml` in the config dir (`zerda_cli.options.paths.config_dir`),
table `[chat]` (`zerda_cli.options.settings` reads the rest of it). API keys are never read
from it: they come from the environment only.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from zerda.errors import InvalidArgumentError
from zerda.memory._spec import MEMORY_KINDS as MEMORY_KINDS
from zerda.memory._spec import MemorySpec as MemorySpec
from zerda.memory._spec import parse_memory as parse_memory_spec
from zerda_cli.chat.choices import BACKENDS, COMMAND_FORMATS, SUMMARIZERS
from zerda_cli.options.paths import config_path as config_path
from zerda_cli.options.settings import ConfigError as ConfigError

KEY_VARIABLES = ("ZERDA_API_KEY", "OPENAI_API_KEY")

# Environment variables, by setting name; the first one set wins.
ENVIRONMENT = {
    "backend": ("ZERDA_BACKEND",),
    "command": ("ZERDA_COMMAND",),
    "command_format": ("ZERDA_COMMAND_FORMAT",),
    "base_url": ("ZERDA_BASE_URL", "OPENAI_BASE_URL"),
    "model": ("ZERDA_MODEL",),
    "timeout": ("ZERDA_TIMEOUT",),
    "memory": ("ZERDA_MEMORY",),
    "system": ("ZERDA_SYSTEM",),
    "summarizer": ("ZERDA_SUMMARIZER",),
}


def parse_memory(text: str) -> MemorySpec:
    """Parse a memory setting (`zerda.memory._spec.parse_memory`); a bad one is a ConfigError."""
    try:
        return parse_memory_spec(text)
    except InvalidArgumentError as exc:
        raise ConfigError(str(exc)) from None


@dataclass(frozen=True)
class ChatConfig:
    """Everything `zerda chat` needs to know besides the session."""

    backend: str | None = None
    command: str | None = None
    command_format: str = "json"
    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o-mini"
    timeout: float = 60.0
    memory: str = "window 10"
    summarizer: str = "extractive"
    system: str | None = None
    show: int = 3
    input_history: bool = True
    plain: bool = False

    @property
    def backend_name(self) -> str:
        """The chosen backend: as set, else `command` when a command is set, else `manual`."""
        if self.backend:
            return self.backend
        return "command" if self.command else "manual"

    @property
    def memory_spec(self) -> MemorySpec:
        """The parsed `memory` setting."""
        return parse_memory(self.memory)

    def api_key(self) -> str | None:
        """The API key from the environment (never from a file, never stored)."""
        for name in KEY_VARIABLES:
            if os.environ.get(name):
                return os.environ[name]
        return None


def _coerce(name: str, value: Any, source: str) -> Any:
    """Convert a raw value to the field's type, or raise ConfigError naming its source."""
    if name == "timeout":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{source}: timeout must be a number of seconds") from None
        if not (number > 0 and math.isfinite(number)):
            raise ConfigError(f"{source}: timeout must be a number of seconds above 0")
        return number
    if name == "show":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{source}: show must be a whole number >= 0")
        return value
    if name in ("input_history", "plain"):
        if not isinstance(value, bool):
            raise ConfigError(f"{source}: {name} must be true or false")
        return value
    if not isinstance(value, str):
        raise ConfigError(f"{source}: {name} must be a string")
    return value


def _from_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    table = data.get("chat", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [chat] must be a table")
    known = {f.name for f in fields(ChatConfig)}
    for key in table:
        if "key" in key.lower():
            raise ConfigError(
                f"{path}: {key} is not read from files; set ZERDA_API_KEY or OPENAI_API_KEY"
            )
        if key not in known:
            raise ConfigError(f"{path}: unknown setting {key!r} in [chat]")
    return {k: _coerce(k, v, str(path)) for k, v in table.items()}


def _from_environment() -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, variables in ENVIRONMENT.items():
        for variable in variables:
            if os.environ.get(variable):
                values[name] = _coerce(name, os.environ[variable], variable)
                break
    return values


def validate(config: ChatConfig) -> ChatConfig:
    """Check values that only make sense together; return the config unchanged."""
    if config.backend_name not in BACKENDS:
        raise ConfigError(f"unknown backend {config.backend_name!r}: use {', '.join(BACKENDS)}")
    if config.command_format not in COMMAND_FORMATS:
        raise ConfigError(
            f"unknown command format {config.command_format!r}: use {' or '.join(COMMAND_FORMATS)}"
        )
    if config.summarizer not in SUMMARIZERS:
        raise ConfigError(f"unknown summarizer {config.summarizer!r}: use extractive or model")
    if config.summarizer == "model" and config.backend_name == "manual":
        raise ConfigError(
            "the model summarizer asks the chat's model: use --backend openai or command"
        )
    if config.backend_name == "command" and not (config.command or "").strip():
        raise ConfigError("the command backend needs --command 'PROGRAM ARGS'")
    config.memory_spec  # noqa: B018 - parsing is the check
    return config


def load_config(
    home: str | os.PathLike[str] | None = None, flags: dict[str, Any] | None = None
) -> ChatConfig:
    """Defaults < config file < environment < flags (flags given as None are unset)."""
    values = _from_file(config_path(home))
    values.update(_from_environment())
    values.update({k: v for k, v in (flags or {}).items() if v is not None})
    return validate(replace(ChatConfig(), **values))
