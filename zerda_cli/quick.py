"""The quick path: `zerda add`, `show`, `stats`, `sessions`, `search` and `browse` in their
common forms, parsed without Typer, so the commands a shell runs most start in a fraction
of the time.

What this parser does not know for certain (help, an option it does not take, a value of
the wrong kind, `--`, a bad session id, a role or KEY=VALUE the full command would
refuse) goes to the full command instead, which parses the arguments again and says
what is wrong. Nothing is read or written before that choice, and both paths then run
the same functions (`zerda_cli.basics`), so they give the same output. ZERDA_QUICK=0
turns the quick path off.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zerda_cli import basics

VARIABLE = "ZERDA_QUICK"
Parsed = dict[str, Any]
Convert = Callable[[str], Any]  # raises ValueError for a value the full command refuses


def _count(low: int) -> Convert:
    def convert(text: str) -> int:
        number = int(text)  # int() takes what click's INT takes here: digits, a sign, blanks
        if number < low:
            raise ValueError(text)
        return number

    return convert


def _sort_key(text: str) -> str:
    from zerda.store._overview import ORDERS

    if text not in ORDERS:
        raise ValueError(text)
    return text


def _path(text: str) -> Any:
    from pathlib import Path

    return Path(text)


@dataclass(frozen=True)
class Flag:
    """An option without a value: sets `dest` to `value`."""

    dest: str
    value: Any = True


@dataclass(frozen=True)
class Value:
    """An option with one value (the last one given wins), or, `many`, a list of them."""

    dest: str
    convert: Convert = str
    many: bool = False


Option = Flag | Value
WHERE: dict[str, Option] = {"--home": Value("home", _path), "--store": Value("location")}
OPTIONS: dict[str, dict[str, Option]] = {
    "add": {
        "--role": Value("role"),
        "-r": Value("role"),
        "--meta": Value("meta", many=True),
        "-m": Value("meta", many=True),
        "--json": Flag("as_json"),
        **WHERE,
    },
    "show": {
        "--last": Value("last", _count(0)),
        "-n": Value("last", _count(0)),
        "--json": Flag("as_json"),
        "--jsonl": Flag("jsonl"),
        "--with-session": Flag("with_session"),
        "--pager": Flag("pager"),
        "--no-pager": Flag("pager", False),
        **WHERE,
    },
    "stats": {"--json": Flag("as_json"), **WHERE},
    "sessions": {
        "--limit": Value("limit", _count(1)),
        "-n": Value("limit", _count(1)),
        "--sort": Value("sort", _sort_key),
        "--reverse": Flag("reverse"),
        "-r": Flag("reverse"),
        "--json": Flag("as_json"),
        **WHERE,
    },
    "search": {
        "--session": Value("session"),
        "-s": Value("session"),
        "--role": Value("role", many=True),
        "--limit": Value("limit", _count(1)),
        "--words": Flag("words"),
        "-w": Flag("words"),
        "--rank": Flag("rank"),
        "--json": Flag("as_json"),
        **WHERE,
    },
    "browse": WHERE,
}
# How many arguments each command takes besides its options (at least, at most).
ARGUMENTS = {
    "add": (2, None),
    "show": (1, 1),
    "stats": (1, 1),
    "sessions": (0, 0),
    "search": (1, 1),
    "browse": (0, 0),
}


def parse(command: str, args: list[str]) -> tuple[list[str], Parsed] | None:
    """The arguments and options of `command`, or None to leave them to the full command."""
    options = OPTIONS[command]
    arguments: list[str] = []
    parsed: Parsed = {}
    at = 0
    while at < len(args):
        arg = args[at]
        at += 1
        if arg == "-" or not arg.startswith("-"):
            arguments.append(arg)
            continue
        name, equals, given = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        option = options.get(name)
        if option is None or (isinstance(option, Flag) and equals):
            return None
        if isinstance(option, Flag):
            parsed[option.dest] = option.value
            continue
        if not equals:
            if at == len(args) or args[at].startswith("-"):
                return None  # a value that looks like an option: the full command decides
            given, at = args[at], at + 1
        try:
            value = option.convert(given)
        except ValueError:
            return None
        if option.many:
            parsed.setdefault(option.dest, []).append(value)
        else:
            parsed[option.dest] = value
    low, high = ARGUMENTS[command]
    if len(arguments) < low or (high is not None and len(arguments) > high):
        return None
    return arguments, parsed


def _session_ok(session: str) -> bool:
    from zerda._paths import SESSION_ID

    return SESSION_ID.fullmatch(session) is not None


def _metadata(pairs: list[str]) -> dict[str, Any] | None:
    """`--meta KEY=VALUE` pairs as `zerda_cli.options.params.parse_meta` reads them, or None
    when one of them is something it refuses."""
    from zerda_cli.options.errors import InputError
    from zerda_cli.options.inputs import argument

    metadata: dict[str, Any] = {}
    for pair in pairs:
        try:
            key, sep, value = argument(pair, "--meta").partition("=")
        except InputError:
            return None
        if not sep or not key.strip():
            return None
        metadata[key.strip()] = value
    return metadata


def _role_ok(role: str) -> bool:
    from zerda.errors import InvalidMessageError
    from zerda.messages import check_role
    from zerda_cli.options.errors import InputError
    from zerda_cli.options.inputs import argument

    try:
        check_role(argument(role, "--role"))
    except (InvalidMessageError, InputError):
        return False
    return True


def _add(arguments: list[str], parsed: Parsed) -> Callable[[], None] | None:
    role = parsed.get("role")
    metadata = _metadata(parsed.get("meta", []))
    if metadata is None or (role is not None and not _role_ok(role)):
        return None
    session, texts = arguments[0], arguments[1:]
    where = (parsed.get("home"), parsed.get("location"))

    def run() -> None:
        basics.check_add_shape(texts, role)
        basics.add(session, texts, role, metadata, parsed.get("as_json", False), *where)

    return run


def _show(arguments: list[str], parsed: Parsed) -> Callable[[], None]:
    as_json, jsonl = parsed.get("as_json", False), parsed.get("jsonl", False)
    with_session = parsed.get("with_session", False)
    where = (parsed.get("home"), parsed.get("location"))

    def run() -> None:
        rendering = basics.show_format(as_json, jsonl, with_session, None)
        last, pager = parsed.get("last"), parsed.get("pager", True)
        basics.show(arguments[0], last, rendering, pager, None, None, False, *where)

    return run


def _stats(arguments: list[str], parsed: Parsed) -> Callable[[], None]:
    where = (parsed.get("home"), parsed.get("location"))
    return lambda: basics.stats(arguments[0], parsed.get("as_json", False), False, *where)


def _sessions(arguments: list[str], parsed: Parsed) -> Callable[[], None]:
    limit, sort = parsed.get("limit"), parsed.get("sort", "activity")
    flags = (parsed.get("reverse", False), parsed.get("as_json", False))
    where = (parsed.get("home"), parsed.get("location"))
    return lambda: basics.sessions(None, None, limit, sort, *flags, *where)


def _search(arguments: list[str], parsed: Parsed) -> Run | None:
    session = parsed.get("session")
    if session is not None and not _session_ok(session):
        return None
    where = (parsed.get("home"), parsed.get("location"))

    def run() -> int:
        rank = parsed.get("rank", False)
        query, label = basics.search_query(arguments[0], False, parsed.get("words", False), rank)
        roles = basics.role_names(parsed.get("role", []))
        filters = basics.Filters(session, roles, None, None, parsed.get("limit"), False, *where)
        return 0 if basics.search(query, label, filters, rank, parsed.get("as_json", False)) else 1

    return run


def _browse(arguments: list[str], parsed: Parsed) -> Run:
    from zerda_cli.browse.start import launch

    return lambda: launch(parsed.get("home"), parsed.get("location"))


Run = Callable[[], int | None]  # the exit status, None for 0
BUILDERS: dict[str, Callable[[list[str], Parsed], Run | None]] = {
    "add": _add,
    "show": _show,
    "stats": _stats,
    "sessions": _sessions,
    "search": _search,
    "browse": _browse,
}


def plan(argv: list[str]) -> Run | None:
    """What to run for `argv` on the quick path, or None for the full command."""
    if os.environ.get(VARIABLE) == "0" or not argv or argv[0] not in BUILDERS:
        return None
    found = parse(argv[0], argv[1:])
    if found is None:
        return None
    arguments, parsed = found
    if argv[0] in ("add", "show", "stats") and not _session_ok(arguments[0]):
        return None
    return BUILDERS[argv[0]](arguments, parsed)
