"""Plain coercion of command-line values, so `zerda` starts without importing pydantic.

Typer 0.29 coerces every parameter through a pydantic TypeAdapter, built on first
use: over 100 ms of imports and schema building per run, more than the rest of
`zerda add` together. The parameters of `zerda` are strings, flags, paths,
numbers and enums, which need none of that; this module gives them a direct
converter (a parameter with a `parser`, that parser, raising ValueError). Any other
parameter, and Typer versions without that machinery (which use click's types and are
fast already), are left as they are.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Union, get_args, get_origin

Convert = Callable[[Any], Any]


def _strip_optional(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        kinds = [a for a in get_args(annotation) if a is not type(None)]
        return kinds[0] if len(kinds) == 1 else annotation
    return annotation


def _as_int(low: Any, high: Any) -> Convert:
    def convert(value: Any) -> int:
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not a whole number") from None
        if (low is not None and number < low) or (high is not None and number > high):
            bounds = f">= {low}" if high is None else f"between {low} and {high}"
            raise ValueError(f"{number} is out of range: must be {bounds}")
        return number

    return convert


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "t", "yes", "y", "on"):
        return True
    if text in ("0", "false", "f", "no", "n", "off"):
        return False
    raise ValueError(f"{value!r} is not a boolean")


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a number") from None


def _as_enum(kind: type[Enum]) -> Convert:
    def convert(value: Any) -> Enum:
        try:
            return kind(value)
        except ValueError:
            allowed = ", ".join(str(m.value) for m in kind)
            raise ValueError(f"{value!r} is not one of: {allowed}") from None

    return convert


PATH_CHECKS = ("exists", "resolve_path", "allow_dash", "path_type", "writable")


def converter(annotation: Any, info: Any) -> Convert | None:
    """A direct converter for str, bool, int, float, unchecked Path and Enum; else None.

    Optional and list annotations convert their item type.
    """
    kind = _strip_optional(annotation)
    if get_origin(kind) is list:
        kind = get_args(kind)[0]
    if kind is str:
        return str
    if kind is Path and not any(getattr(info, name, None) for name in PATH_CHECKS):
        return Path
    if kind is bool:
        return _as_bool
    if kind is int:
        return _as_int(info.min, info.max)
    if kind is float and info.min is None and info.max is None:
        return _as_float
    if isinstance(kind, type) and issubclass(kind, Enum):
        return _as_enum(kind)
    return None


def install(command: Any) -> None:
    """Give every plain parameter of `command` and its subcommands a direct converter."""
    try:
        from typer._click.exceptions import BadParameter
        from typer._coercion import RuntimeParam
    except ImportError:
        return

    @dataclass(frozen=True)
    class DirectParam(RuntimeParam):
        convert: Convert

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                if isinstance(value, list | tuple):
                    return [self.convert(v) for v in value]
                return self.convert(value)
            except ValueError as exc:
                raise BadParameter(str(exc), ctx=ctx, param=param) from None

    for param in all_params(command):
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", "absent") is not None:
            continue
        info = descriptor.parameter_info
        if descriptor.file_annotation is not None:
            continue
        parser = getattr(info, "parser", None)
        convert = parser if parser is not None else converter(descriptor.annotation, info)
        if convert is not None:
            param._runtime_param = DirectParam(info, descriptor.annotation, convert)


def all_params(command: Any) -> list[Any]:
    """The parameters of `command` and its subcommands, their (cached) --help options too."""
    names = command.context_settings.get("help_option_names", ["--help"])
    params = []
    for each in [command, *getattr(command, "commands", {}).values()]:
        context = each.context_class(each, help_option_names=names)
        params += [*each.params, each.get_help_option(context)]
    return [p for p in params if p is not None]
