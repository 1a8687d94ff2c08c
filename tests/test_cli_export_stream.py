"""`zerda export` and `zerda show` stream: exact output in every format, bounded memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import Runner

HEADER = {
    "type": "session",
    "version": 1,
    "created_at": "2024-05-01T08:00:00Z",
    "user_id": "ada",
    "metadata": {"project": "zerda ✓"},
    "encoding": "cl100k_base",
}
# A version-1 file (as zerda 0.1 wrote it): it must keep reading, and export in the
# current form (roles with their role_type, times with microseconds, the session and
# summary as records of the JSON Lines export).
# Every kind of thing a transcript holds: system and tool roles, a summary, non-ASCII,
# terminal controls (C0, C1, DEL, bidi), CRLF, a lone CR, a tab, quotes and an empty message.
RECORDS = [
    {**HEADER, "id": "g"},
    {
        "type": "message",
        "uuid": "u1",
        "created_at": "2024-05-01T08:00:01Z",
        "role": "system",
        "content": "Be brief.",
        "token_count": 3,
        "metadata": {},
    },
    {
        "type": "message",
        "uuid": "u2",
        "created_at": "2024-05-01T08:00:02.5Z",
        "role": "user",
        "content": "Café? ünïcode 日本語 🦊\nsecond line\n\n",
        "token_count": 1,
        "metadata": {"k": "v"},
    },
    {
        "type": "message",
        "uuid": "u3",
        "created_at": "2024-05-01T08:00:03Z",
        "role": "assistant",
        "content": "red \x1b[31mX\x1b[0m csi \x9b1m bidi \u202eevil\u202c del \x7f\r\ncrlf\rcr\ttab"
        ' "q" \\ end',
        "token_count": 12,
        "metadata": {},
    },
    {
        "type": "message",
        "uuid": "u4",
        "created_at": "2024-05-01T08:00:04Z",
        "role": "tool",
        "content": "",
        "token_count": 0,
        "metadata": {"tool": "calc", "n": [1, 2]},
    },
    {
        "type": "summary",
        "content": "They \x1b greeted; ünï.\nTwo lines.",
        "created_at": "2024-05-01T08:00:05Z",
    },
]

EXPECTED = {
    "text": (
        "summary\n"
        "  They \\x1b greeted; ünï.\n"
        "  Two lines.\n"
        "\n"
        "system  2024-05-01T08:00:01Z  3 tokens\n"
        "  Be brief.\n"
        "\n"
        "user  2024-05-01T08:00:02Z  1 token\n"
        "  Café? ünïcode 日本語 🦊\n"
        "  second line\n"
        "\n"
        "\n"
        "\n"
        "assistant  2024-05-01T08:00:03Z  12 tokens\n"
        "  red \\x1b[31mX\\x1b[0m csi \\x9b1m bidi \\u202eevil\\u202c del \\x7f\n"
        '  crlf\\x0dcr\ttab "q" \\ end\n'
        "\n"
        "tool  2024-05-01T08:00:04Z  0 tokens\n"
        "\n"
        "\n"
        "-- g: 4 messages, 16 tokens\n"
    ),
    "markdown": (
        "# Session g\n"
        "\n"
        "> **Summary:** They \\x1b greeted; ünï.\n"
        "Two lines.\n"
        "\n"
        "**system** · 2024-05-01T08:00:01Z · 3 tokens\n"
        "\n"
        "Be brief.\n"
        "\n"
        "**user** · 2024-05-01T08:00:02Z · 1 token\n"
        "\n"
        "Café? ünïcode 日本語 🦊\n"
        "second line\n"
        "\n"
        "**assistant** · 2024-05-01T08:00:03Z · 12 tokens\n"
        "\n"
        "red \\x1b[31mX\\x1b[0m csi \\x9b1m bidi \\u202eevil\\u202c del \\x7f\n"
        'crlf\\x0dcr\ttab "q" \\ end\n'
        "\n"
        "**tool** · 2024-05-01T08:00:04Z · 0 tokens\n"
        "\n"
        "\n"
        "\n"
        "---\n"
        "\n"
        "*4 messages, 16 tokens*\n"
    ),
    "jsonl": (
        '{"type": "session", "id": "g", "user_id": "ada", "metadata":'
        ' {"project": "zerda ✓"}, "created_at": "2024-05-01T08:00:00.000000Z"}\n'
        '{"type": "summary", "uuid": null, "created_at": "2024-05-01T'
        '08:00:05.000000Z", "content": "They \\u001b greeted; ünï.\\nTw'
        'o lines.", "token_count": null, "metadata": {}}\n'
        '{"uuid": "u1", "created_at": "2024-05-01T08:00:01.000000Z", '
        '"role": "system", "role_type": "system", "content": "Be brie'
        'f.", "token_count": 3, "metadata": {}}\n'
        '{"uuid": "u2", "created_at": "2024-05-01T08:00:02.500000Z", '
        '"role": "user", "role_type": "user", "content": "Café? ünïco'
        'de 日本語 🦊\\nsecond line\\n\\n", "token_count": 1, "metadata": {"k": "v"}}\n'
        '{"uuid": "u3", "created_at": "2024-05-01T08:00:03.000000Z", '
        '"role": "assistant", "role_type": "assistant", "content": "r'
        "ed \\u001b[31mX\\u001b[0m csi \\u009b1m bidi \\u202eevil\\u202c d"
        'el \\u007f\\r\\ncrlf\\rcr\\ttab \\"q\\" \\\\ end", "token_count": 12,'
        ' "metadata": {}}\n'
        '{"uuid": "u4", "created_at": "2024-05-01T08:00:04.000000Z", '
        '"role": "tool", "role_type": "tool", "content": "", "token_c'
        'ount": 0, "metadata": {"tool": "calc", "n": [1, 2]}}\n'
    ),
    "json": (
        "{\n"
        '  "session": {\n'
        '    "id": "g",\n'
        '    "user_id": "ada",\n'
        '    "metadata": {\n'
        '      "project": "zerda ✓"\n'
        "    },\n"
        '    "created_at": "2024-05-01T08:00:00.000000Z"\n'
        "  },\n"
        '  "summary": {\n'
        '    "uuid": null,\n'
        '    "created_at": "2024-05-01T08:00:05.000000Z",\n'
        '    "content": "They \\u001b greeted; ünï.\\nTwo lines.",\n'
        '    "token_count": null,\n'
        '    "metadata": {}\n'
        "  },\n"
        '  "messages": [\n'
        "    {\n"
        '      "uuid": "u1",\n'
        '      "created_at": "2024-05-01T08:00:01.000000Z",\n'
        '      "role": "system",\n'
        '      "role_type": "system",\n'
        '      "content": "Be brief.",\n'
        '      "token_count": 3,\n'
        '      "metadata": {}\n'
        "    },\n"
        "    {\n"
        '      "uuid": "u2",\n'
        '      "created_at": "2024-05-01T08:00:02.500000Z",\n'
        '      "role": "user",\n'
        '      "role_type": "user",\n'
        '      "content": "Café? ünïcode 日本語 🦊\\nsecond line\\n\\n",\n'
        '      "token_count": 1,\n'
        '      "metadata": {\n'
        '        "k": "v"\n'
        "      }\n"
        "    },\n"
        "    {\n"
        '      "uuid": "u3",\n'
        '      "created_at": "2024-05-01T08:00:03.000000Z",\n'
        '      "role": "assistant",\n'
        '      "role_type": "assistant",\n'
        '      "content": "red \\u001b[31mX\\u001b[0m csi \\u009b1m bidi'
        ' \\u202eevil\\u202c del \\u007f\\r\\ncrlf\\rcr\\ttab \\"q\\" \\\\ end",\n'
        '      "token_count": 12,\n'
        '      "metadata": {}\n'
        "    },\n"
        "    {\n"
        '      "uuid": "u4",\n'
        '      "created_at": "2024-05-01T08:00:04.000000Z",\n'
        '      "role": "tool",\n'
        '      "role_type": "tool",\n'
        '      "content": "",\n'
        '      "token_count": 0,\n'
        '      "metadata": {\n'
        '        "tool": "calc",\n'
        '        "n": [\n'
        "          1,\n"
        "          2\n"
        "        ]\n"
        "      }\n"
        "    }\n"
        "  ]\n"
        "}\n"
    ),
    "openai": (
        "[\n"
        "  {\n"
        '    "role": "system",\n'
        '    "content": "Be brief."\n'
        "  },\n"
        "  {\n"
        '    "role": "user",\n'
        '    "content": "Café? ünïcode 日本語 🦊\\nsecond line\\n\\n"\n'
        "  },\n"
        "  {\n"
        '    "role": "assistant",\n'
        '    "content": "red \\u001b[31mX\\u001b[0m csi \\u009b1m bidi \\u202eevil\\u202c del '
        '\\u007f\\r\\ncrlf\\rcr\\ttab \\"q\\" \\\\ end"\n'
        "  },\n"
        "  {\n"
        '    "role": "tool",\n'
        '    "content": ""\n'
        "  }\n"
        "]\n"
    ),
}
EMPTY = {
    "text": ("-- e: 0 messages, 0 tokens\n"),
    "markdown": ("# Session e\n\n---\n\n*0 messages, 0 tokens*\n"),
    "jsonl": (
        '{"type": "session", "id": "e", "user_id": null, "metadata": '
        '{}, "created_at": "2024-05-01T08:00:00.000000Z"}\n'
    ),
    "json": (
        "{\n"
        '  "session": {\n'
        '    "id": "e",\n'
        '    "user_id": null,\n'
        '    "metadata": {},\n'
        '    "created_at": "2024-05-01T08:00:00.000000Z"\n'
        "  },\n"
        '  "summary": null,\n'
        '  "messages": []\n'
        "}\n"
    ),
    "openai": ("[]\n"),
}


def write_session(home: Path, records: list[dict[str, object]]) -> None:
    """A session file written directly, so every uuid, time and count is known."""
    (home / "sessions").mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records]
    (home / "sessions" / f"{records[0]['id']}.jsonl").write_text("".join(lines), encoding="utf-8")


def run(zerda: Runner, *args: str) -> str:
    """stdout of `zerda ARGS` run in-process, which must succeed without a warning."""
    done = zerda(*args)
    assert done.code == 0 and "warning" not in done.err and "error" not in done.err
    return done.out


@pytest.mark.parametrize("fmt", sorted(EXPECTED))
def test_export_and_show_write_exactly_the_documented_output(
    fmt: str, home: Path, tmp_path: Path, zerda: Runner
) -> None:
    write_session(home, RECORDS)
    assert run(zerda, "export", "g", "--format", fmt) == EXPECTED[fmt]
    show_option = {"json": ["--json"], "jsonl": ["--jsonl", "--with-session"]}.get(
        fmt, ["--format", fmt]
    )
    assert run(zerda, "show", "g", *show_option) == EXPECTED[fmt]
    target = tmp_path / f"g.{fmt}"
    run(zerda, "export", "g", "--format", fmt, "-o", str(target))
    assert target.read_text(encoding="utf-8") == EXPECTED[fmt]
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("fmt", sorted(EMPTY))
def test_export_of_a_session_without_messages(fmt: str, home: Path, zerda: Runner) -> None:
    write_session(home, [{**HEADER, "id": "e", "user_id": None, "metadata": {}}])
    assert run(zerda, "export", "e", "--format", fmt) == EMPTY[fmt]


def test_show_last_still_reads_only_the_end(home: Path, zerda: Runner) -> None:
    write_session(home, RECORDS)
    lines = run(zerda, "show", "g", "--jsonl", "--last", "2").splitlines(True)
    expected = EXPECTED["jsonl"].splitlines(True)
    assert "".join(lines) == "".join(expected[-2:])  # the last 2 messages, nothing else
    args = ("show", "g", "--jsonl", "--with-session", "--last", "2")
    with_session = run(zerda, *args).splitlines(True)
    assert "".join(with_session) == "".join(expected[:2] + expected[-2:])  # session, summary


def write_long_session(home: Path, count: int) -> None:
    """`count` messages of about 400 characters each, counted, written straight to the file."""
    (home / "sessions").mkdir(parents=True)
    text = "word " * 80
    with (home / "sessions" / "long.jsonl").open("w", encoding="utf-8") as out:
        out.write(json.dumps({**HEADER, "id": "long"}) + "\n")
        out.writelines(
            f'{{"type":"message","uuid":"{i:032x}","created_at":"2024-05-01T08:00:00Z",'
            f'"role":"user","content":"{i} {text}","token_count":81,"metadata":{{}}}}\n'
            for i in range(count)
        )


# Peak memory of a child that runs `zerda` as a child of its own, so no other test's
# subprocesses count towards RUSAGE_CHILDREN.
PEAK_RSS = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
COUNT = 100_000
PEAK_LIMIT_KB = 80_000  # reading the whole list in peaks near 130 MB; streaming near 30 MB


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_export_does_not_hold_all_messages(fmt: str, home: Path) -> None:
    write_long_session(home, COUNT)
    command = [sys.executable, "-m", "zerda_cli", "export", "long", "--home", str(home)]
    env = {**os.environ, "CI": "true"}
    run_it = [sys.executable, "-c", PEAK_RSS, *command, "--format", fmt]
    peak_kb = int(
        subprocess.run(run_it, capture_output=True, text=True, env=env, check=True).stdout
    )
    assert 0 < peak_kb < PEAK_LIMIT_KB
