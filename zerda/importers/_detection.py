"""Which tool wrote an export, told from a peek at it (never a whole big file).

A SQLite file is `llm`'s logs.db; a `.yaml`/`.yml` file is an aichat session; a zip,
or a directory, holding `conversations.json` is ChatGPT's or Claude's export (told by
the first conversation's keys). A JSON array is told by its first element's keys:
`mapping`/`current_node` ChatGPT, `chat_messages` Claude, `type` and `data` LangChain,
`role` OpenAI messages, or shell_gpt's chat cache when the file has no extension
(shell_gpt names its cache files without one). A JSON object or JSON Lines is zerda's
own export.
"""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

import ijson  # type: ignore[import-untyped]

from zerda.errors import ImportFailed
from zerda.importers._sources import CLOSING, MAX_DEPTH, OPENING, ZIP_MAGIC, streams

PEEK = 1 << 16  # bytes read to tell a format
LISTED = 1000  # entries of a directory looked at
SQLITE = b"SQLite format 3\x00"
YAML = (".yaml", ".yml")
EXPORT = re.compile(r"conversations(-\d+)?\.json")
# Formats whose file is one session's messages, read by the command's own import path.
SINGLE_SESSION = frozenset({"zerda", "openai"})


def detect(path: Path) -> str:
    """The format of the export at `path` (a name of `FORMATS`, or `zerda`/`openai`);
    ImportFailed when it cannot be told."""
    if path.is_dir():
        return _directory(path)
    with path.open("rb") as handle:
        head = handle.read(PEEK)
    if head.startswith(SQLITE):
        return "llm"
    if head.startswith(ZIP_MAGIC):
        return _export(path)
    if path.suffix.lower() in YAML:
        return "aichat"
    found = _json(head, bare=not path.suffix)
    if found is None:
        raise ImportFailed(f"{path}: cannot tell which tool wrote it; name it with --from")
    return found


def _json(head: bytes, *, bare: bool) -> str | None:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        return "zerda"
    if not text.startswith(b"["):
        return None
    keys = _first_keys(text)
    if keys & {"mapping", "current_node"}:
        return "chatgpt"
    if "chat_messages" in keys or {"uuid", "name", "account"} <= keys:
        return "claude"
    if {"type", "data"} <= keys:
        return "langchain"
    if "role" in keys or not keys:
        return "sgpt" if bare else "openai"
    return None


def _first_keys(text: bytes) -> set[str]:
    """The keys of the first element of the array `text` starts (as far as it goes, and
    no deeper than MAX_DEPTH)."""
    keys: set[str] = set()
    depth = 0
    try:
        for event, value in ijson.basic_parse(io.BytesIO(text)):
            if event in OPENING:
                depth += 1
            elif event in CLOSING:
                depth -= 1
            elif event == "map_key" and depth == 2:
                keys.add(value)
            if depth > MAX_DEPTH or (depth == 1 and event in CLOSING):
                break
    except ijson.JSONError:
        pass  # the peek ends inside the element: the keys so far tell
    return keys


def _export(path: Path) -> str:
    """ChatGPT or Claude, from the conversations file of a zip or directory."""
    files = streams(path, lambda base: bool(EXPORT.fullmatch(base)))
    name, stream = next(files)  # streams raises ImportFailed when there is none
    try:
        found = _json(stream.read(PEEK), bare=False)
    finally:
        files.close()
    if found in ("chatgpt", "claude"):
        return found
    raise ImportFailed(f"{name}: neither ChatGPT's nor Claude's conversations")


def _directory(path: Path) -> str:
    """The format of what a directory holds: an export's conversations files and llm's
    logs.db are looked for by name, other tools' files among its first LISTED entries."""
    if any(EXPORT.fullmatch(p.name) for p in path.glob("conversations*.json")):
        return _export(path)
    if (path / "logs.db").is_file():
        return "llm"
    names = [p.name for p in itertools.islice(path.iterdir(), LISTED)]
    if any(name.lower().endswith(YAML) for name in names):
        return "aichat"
    for name in sorted(n for n in names if "." not in n and (path / n).is_file()):
        with (path / name).open("rb") as handle:
            if _json(handle.read(PEEK), bare=True) == "sgpt":
                return "sgpt"
    raise ImportFailed(f"{path}: cannot tell which tool wrote what it holds; name it with --from")
