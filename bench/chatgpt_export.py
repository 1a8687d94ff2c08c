"""A generated ChatGPT data export (`conversations.json`) of about a given size, in the
shape of tests/fixtures/importers/chatgpt: for the import benchmark and the memory test.

Each conversation has `TURNS` question/answer pairs on its current branch, a
regenerated answer left as a branch, and a hidden system root; texts mix ASCII with
some non-ASCII words. Written one conversation at a time, never held whole.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

TURNS = 20
WORDS = [
    "the",
    "export",
    "of",
    "a",
    "conversation",
    "holds",
    "many",
    "words",
    "plus",
    "café,",
    "日本語",
    "and",
    "emoji",
    "🙂",
]
START = 1_700_000_000.0


def write_export(path: Path, size: int, seed: int = 12) -> tuple[int, int]:
    """Write about `size` bytes of export to `path`; (conversations, messages on the
    current branches) written."""
    rng = random.Random(seed)
    written = conversations = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        while written < size:
            text = json.dumps(_conversation(conversations, rng), ensure_ascii=False)
            out.write(("," if conversations else "") + text)
            written += len(text.encode())
            conversations += 1
        out.write("]")
    return conversations, conversations * TURNS * 2


def _conversation(number: int, rng: random.Random) -> dict[str, Any]:
    cid = f"00000000-0000-4000-8000-{number:012d}"
    t = START + number * 3600.0
    mapping = {"root": _node("root", None, _message("root", "system", "", t, hidden=True))}
    parent = "root"
    for turn in range(TURNS):
        for role in ("user", "assistant"):
            key = f"{role[0]}{turn}"
            t += 1.25
            mapping[key] = _node(key, parent, _message(key, role, _text(rng), t))
            mapping[parent]["children"].append(key)
            parent = key
    mapping["alt"] = _node("alt", "u0", _message("alt", "assistant", _text(rng), t))
    mapping["u0"]["children"].append("alt")
    return {
        "id": cid, "conversation_id": cid, "title": f"Conversation {number} ✨",
        "create_time": START + number * 3600.0, "update_time": t, "mapping": mapping,
        "current_node": parent, "default_model_slug": "gpt-4o", "is_archived": False,
    }  # fmt: skip


def _node(key: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {"id": key, "message": message, "parent": parent, "children": []}


def _message(key: str, role: str, text: str, t: float, hidden: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"model_slug": "gpt-4o"} if role == "assistant" else {}
    if hidden:
        metadata["is_visually_hidden_from_conversation"] = True
    return {
        "id": key, "author": {"role": role, "name": None, "metadata": {}}, "create_time": t,
        "content": {"content_type": "text", "parts": [text]}, "status": "finished_successfully",
        "weight": 1.0, "metadata": metadata, "recipient": "all",
    }  # fmt: skip


def _text(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(20, 160)))


def main(argv: list[str]) -> None:
    """`python -m bench.chatgpt_export PATH MEGABYTES`: write it, print what it holds."""
    conversations, messages = write_export(Path(argv[0]), int(float(argv[1]) * (1 << 20)))
    print(conversations, messages)


if __name__ == "__main__":
    main(sys.argv[1:])
