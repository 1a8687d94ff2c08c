"""Neutralising stored text so it can never drive a terminal: controls become visible escapes."""

from __future__ import annotations

import json
import re
from typing import Any

# C0 controls except tab and newline, DEL, C1 controls (U+0080-U+009F: 8-bit CSI/OSC),
# and the bidi overrides that can reorder what a reader sees ("Trojan source").
# CRLF is a line break, so it is matched first and kept as one; a lone CR is neutralised.
CONTROL = re.compile(r"\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# What may never appear raw even inside JSON strings (json.dumps escapes C0 itself).
_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(char: str) -> str:
    """The printable escape for one control character: `\\x1b`, `\\x9b`, `\\u202e`."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _replace(match: re.Match[str]) -> str:
    text = match.group()
    return "\n" if text == "\r\n" else visible(text)


def neutralize(text: str) -> str:
    """`text` with every control character except newline and tab shown as a visible escape."""
    return CONTROL.sub(_replace, text)


def one_line(text: str) -> str:
    """`text` neutralised and flattened to a single line (newlines and tabs as spaces)."""
    return " ".join(neutralize(text).split())


def to_json(data: Any, *, indent: int | None = 2) -> str:
    """JSON text that is safe on a terminal and still decodes to exactly `data`.

    Non-ASCII stays readable; C1 controls and bidi overrides, which `json.dumps`
    leaves raw, are written as `\\uXXXX` escapes.
    """
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
