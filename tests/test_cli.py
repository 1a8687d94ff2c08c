"""The `zerda` commands in-process: parsing, exit codes, every output format, import/export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zerda import SessionStore
from zerda.memory import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationTokenBufferMemory,
)
from zerda.store._matching import Matcher
from zerda.tokens import TokenCounter
from zerda_cli.render.formats import match_parts

TURNS = [
    ("What is the capital of France?", "Paris."),
    ("And of Italy?", "Rome, since 1871."),
    ("Which is bigger?", "Rome has about 2.8 million people, Paris about 2.1 million."),
]


@pytest.fixture
def chat(store: SessionStore) -> str:
    """A session `chat` holding TURNS."""
    for user, assistant in TURNS:
        store.append_turn("chat", user, assistant)
    return "chat"


def test_add_turn_then_show_as_text(zerda, store: SessionStore) -> None:
    assert zerda("add", "s", "hello there", "hi!").code == 0
    messages = list(store.iter_messages("s"))
    assert [(m.role, m.content) for m in messages] == [
        ("user", "hello there"),
        ("assistant", "hi!"),
    ]
    shown = zerda("show", "s")
    assert shown.code == 0
    assert "user  " in shown.out and "\n  hello there\n" in shown.out
    assert f"{messages[1].token_count} token" in shown.out
    assert "-- s: 2 messages" in shown.out


def test_add_single_message_with_role_and_meta(zerda, store: SessionStore) -> None:
    result = zerda("add", "s", "--role", "system", "Be brief.", "--meta", "k=v", "-m", "n=1=2")
    assert result.code == 0
    [message] = store.iter_messages("s")
    assert (message.role, message.content, message.metadata) == (
        "system",
        "Be brief.",
        {"k": "v", "n": "1=2"},
    )


def test_add_reads_one_side_from_stdin(zerda, store: SessionStore) -> None:
    assert zerda("add", "s", "-", "answer", stdin="question ünïcode\n".encode()).code == 0
    assert [m.content for m in store.iter_messages("s")] == ["question ünïcode", "answer"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("add", "s", "only-one"), "expected INPUT and OUTPUT"),
        (("add", "s", "--role", "user", "a", "b"), "expected CONTENT with --role"),
        (("add", "s", "-", "-"), "only one argument can be '-'"),
        (("add", "../etc", "a", "b"), "is not a session id"),
        (("add", "s", "--role", "a\x1bb", "x"), "control characters"),
        (("add", "s", "--role", "", "x"), "non-empty"),
        (("add", "s", "a", "b", "--meta", "novalue"), "expected KEY=VALUE"),
        (("window", "s", "-k", "-1"), "must be >= 0"),
        (("show", "s", "--json", "--jsonl"), "choose one of"),
        (("show", "s", "--with-session"), "--with-session goes with --jsonl"),
        (("nonsense",), "No such command"),
        (("search", ""), "the query is empty"),
        (("search", "x", "--session", "a/b"), "is not a session id"),
    ],
)
def test_usage_errors_exit_2_with_one_line(zerda, home: Path, args, needle) -> None:
    result = zerda(*args)
    assert result.code == 2
    assert result.err.startswith("error: ") and result.err.count("\n") == 1
    assert needle in result.err
    assert not (home / "sessions").exists()


def test_bad_stdin_writes_nothing(zerda, store: SessionStore) -> None:
    not_utf8 = zerda("add", "s", "-", "answer", stdin=b"caf\xe9\n")
    assert not_utf8.code == 1
    assert "not valid UTF-8 (byte 0xe9 at offset 3); nothing was written" in not_utf8.err
    empty = zerda("add", "s", "question", "-", stdin=b"\n")
    assert empty.code == 1 and "stdin was empty" in empty.err
    assert not store.exists("s")


def test_unknown_session_is_an_error(zerda) -> None:
    for command in ("show", "stats", "window", "context", "export"):
        result = zerda(command, "missing")
        assert (result.code, result.err) == (1, "error: session not found: missing\n")


def test_show_json_jsonl_and_openai(zerda, chat: str, store: SessionStore) -> None:
    stored = [m.to_dict() for m in store.iter_messages(chat)]
    document = zerda("show", chat, "--json").json()
    assert document["session"]["id"] == chat and document["messages"] == stored
    lines = zerda("show", chat, "--jsonl", "--with-session").out.splitlines()
    assert json.loads(lines[0]) == {"type": "session", **store.get_session(chat).to_dict()}
    assert [json.loads(line) for line in lines[1:]] == stored
    assert [json.loads(line) for line in zerda("show", chat, "--jsonl").out.splitlines()] == stored
    assert zerda("show", chat, "--format", "openai").json() == [
        {"role": m["role"], "content": m["content"]} for m in stored
    ]
    assert [
        json.loads(x) for x in zerda("show", chat, "--jsonl", "--last", "2").out.split("\n")[:-1]
    ] == stored[-2:]


def test_show_markdown(zerda, chat: str) -> None:
    out = zerda("show", chat, "--format", "markdown").out
    assert out.startswith("# Session chat\n")
    assert "**assistant** · " in out and "Rome, since 1871." in out


def test_stats_json(zerda, chat: str, store: SessionStore) -> None:
    data = zerda("stats", chat, "--json").json()
    messages = list(store.iter_messages(chat))
    assert data["messages"] == 6 and data["turn_count"] == data["message_count"] == 3
    assert data["token_count"] == sum(m.token_count or 0 for m in messages)
    assert data["estimated_tokens"] == data["total_characters"] // 4
    assert data["file_size"] == (store.sessions_dir / "chat.jsonl").stat().st_size
    assert data["encoding"] == "cl100k_base"


def test_stats_plain_is_key_value_lines(zerda, chat: str) -> None:
    lines = dict(line.split(None, 1) for line in zerda("stats", chat).out.splitlines())
    assert lines["session_id"] == "chat" and lines["turn_count"] == "3"


def test_window_is_what_the_window_memory_loads(zerda, chat: str, store: SessionStore) -> None:
    data = zerda("window", chat, "-k", "2", "--json").json()
    memory = ConversationBufferWindowMemory(k=2, store=store, session_id=chat)
    assert data["turns"] == memory.chat_memory
    assert data["history"] == memory.load_memory_variables({})["history"]
    assert (
        zerda("window", chat, "-k", "2").out == memory.load_memory_variables({})["history"] + "\n"
    )


@pytest.mark.parametrize(
    ("args", "build"),
    [
        (("--memory", "buffer"), lambda s: ConversationBufferMemory(store=s, session_id="chat")),
        (
            ("-m", "window", "-k", "1"),
            lambda s: ConversationBufferWindowMemory(1, store=s, session_id="chat"),
        ),
        (
            ("-m", "token", "--max-tokens", "30"),
            lambda s: ConversationTokenBufferMemory(30, store=s, session_id="chat"),
        ),
    ],
)
def test_context_is_the_memory_context(zerda, chat: str, store: SessionStore, args, build) -> None:
    expected = build(store)
    assert zerda("context", chat, *args, "--json").json() == expected.context_messages()
    text = expected.load_memory_variables({})["history"]
    assert zerda("context", chat, *args).out == text + "\n"


def test_context_summary_folds_a_session_without_summary(zerda, chat: str) -> None:
    [system] = zerda("context", chat, "--memory", "summary", "--json").json()
    assert system["role"] == "system"
    assert "What is the capital of France?" in system["content"]
    assert "Which is bigger?" in system["content"]


def test_clear_and_delete_need_yes_without_a_terminal(
    zerda, chat: str, store: SessionStore
) -> None:
    for command in ("clear", "delete"):
        refused = zerda(command, chat)
        assert refused.code == 1 and "pass --yes" in refused.err
    assert len(list(store.iter_messages(chat))) == 6
    assert zerda("clear", chat, "--yes").code == 0
    assert store.exists(chat) and list(store.iter_messages(chat)) == []
    assert zerda("delete", chat, "-y").code == 0
    assert not store.exists(chat)


def test_sessions_json_and_plain(zerda, chat: str, store: SessionStore) -> None:
    store.append_turn("other", "a", "b")
    data = zerda("sessions", "--json").json()
    assert [d["session_id"] for d in data] == ["other", "chat"]
    assert data[1]["messages"] == 6
    lines = zerda("sessions").out.splitlines()
    assert lines[0].split() == ["SESSION", "MESSAGES", "TOKENS", "LAST_ACTIVITY", "TITLE"]
    assert lines[2].split()[:2] == ["chat", "6"]


def test_sessions_warns_about_an_unreadable_session(zerda, chat: str, store: SessionStore) -> None:
    with (store.sessions_dir / "broken.jsonl").open("wb") as f:
        f.write(b"not json at all\n{}\n")
    result = zerda("sessions", "--json")
    assert result.code == 0 and [d["session_id"] for d in result.json()] == ["chat"]
    assert result.err.startswith("warning: skipped session broken:") and result.err.count("\n") == 1


def test_corrupt_session_is_one_line_error(zerda, store: SessionStore) -> None:
    store.append_turn("s", "a", "b")
    path = store.sessions_dir / "s.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"role":"user"', b'"role":"user",,'))
    result = zerda("show", "s")
    assert result.code == 1
    assert (
        result.err.startswith("error: ") and "line 2" in result.err and result.err.count("\n") == 1
    )


def test_show_jsonl_is_one_message_a_line_and_nothing_else(zerda, store: SessionStore) -> None:
    store.append_turn("s", "Hi", "Hello!")
    store.set_summary("s", "a greeting")
    lines = [json.loads(line) for line in zerda("show", "s", "--jsonl").out.splitlines()]
    assert [(m["role"], m["content"]) for m in lines] == [("user", "Hi"), ("assistant", "Hello!")]
    headed = zerda("show", "s", "--jsonl", "--with-session").out.splitlines()
    assert [json.loads(line).get("type") for line in headed[:2]] == ["session", "summary"]
    assert [json.loads(line) for line in headed[2:]] == lines


def test_torn_last_line_is_a_one_line_warning(zerda, store: SessionStore) -> None:
    store.append_turn("s", "a", "b")
    with (store.sessions_dir / "s.jsonl").open("ab") as f:
        f.write(b'{"type":"message","ro')
    result = zerda("show", "s", "--jsonl")
    assert result.code == 0 and len(result.out.splitlines()) == 2  # the 2 messages
    lines = result.err.splitlines()
    assert lines and all(line.startswith("warning: ") and "torn" in line for line in lines)
    assert len(set(lines)) == len(lines)


def test_export_errors_name_the_path(zerda, chat: str, tmp_path: Path) -> None:
    missing = zerda("export", chat, "-o", str(tmp_path / "no" / "x.jsonl"))
    assert missing.err == f"error: no such directory: {tmp_path / 'no'}\n"
    assert zerda("export", chat, "-o", str(tmp_path)).err == f"error: is a directory: {tmp_path}\n"


def test_export_then_import_round_trip(
    zerda, chat: str, store: SessionStore, tmp_path: Path
) -> None:
    target = tmp_path / "chat.jsonl"
    assert zerda("export", chat, "-o", str(target)).code == 0
    assert target.stat().st_mode & 0o777 == 0o600
    assert zerda("import", "copy", str(target)).code == 0
    original = list(store.iter_messages(chat))
    copied = list(store.iter_messages("copy"))
    assert [(m.role, m.content, m.created_at) for m in copied] == [
        (m.role, m.content, m.created_at) for m in original
    ]
    exported = zerda("export", chat, "--format", "json").json()
    assert zerda("import", "copy2", "-", stdin=json.dumps(exported).encode()).code == 0
    assert [m.content for m in store.iter_messages("copy2")] == [m.content for m in original]


def test_import_openai_array(zerda, store: SessionStore) -> None:
    array = [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
        {"role": "assistant", "content": "Hello."},
    ]
    result = zerda("import", "s", "-", stdin=json.dumps(array).encode())
    assert result.code == 0 and "imported 3 messages" in result.err
    assert [(m.role, m.content) for m in store.iter_messages("s")] == [
        ("system", "Be terse."),
        ("user", "Hi"),
        ("assistant", "Hello."),
    ]


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (
            b'{"role":"user","content":"ok"}\n{"role":"","content":"x"}\n',
            "line 2: message role must be a non-empty string",
        ),
        (b'{"role":"user","content":"ok"}\nnot json\n', "line 2: not valid JSON"),
        (
            b'[{"role":"user","content":"ok"},{"role":"user","content":5}]',
            "item 2: content must be",
        ),
        (b'[{"role":"user","content":"ok"},"x"]', "item 2: expected a JSON object"),
        (b"", "is empty"),
        (b"[]", "holds no messages"),
        (b"\xff\xfe", "not valid UTF-8"),
    ],
)
def test_import_validates_everything_before_writing(
    zerda, chat: str, store: SessionStore, data: bytes, needle: str
) -> None:
    before = (store.sessions_dir / "chat.jsonl").read_bytes()
    result = zerda("import", chat, "-", stdin=data)
    assert result.code == 1 and needle in result.err and result.err.count("\n") == 1
    assert (store.sessions_dir / "chat.jsonl").read_bytes() == before


def test_import_missing_file(zerda, tmp_path: Path) -> None:
    result = zerda("import", "s", str(tmp_path / "nope.jsonl"))
    assert result.code == 1 and result.err.startswith("error: No such file or directory: ")


def test_search(zerda, chat: str, store: SessionStore) -> None:
    store.append_turn("other", "Nothing here", "Paris again, in another session")
    hits = zerda("search", "PARIS", "--json").json()
    assert {(h["session_id"], h["role"]) for h in hits} == {
        ("chat", "assistant"),
        ("other", "assistant"),
    }
    assert [h["session_id"] for h in zerda("search", "paris", "-s", "other", "--json").json()] == [
        "other"
    ]
    lines = zerda("search", "rome").out.splitlines()
    assert len(lines) == 2 and all(line.startswith("chat  ") for line in lines)
    none = zerda("search", "zzz")
    assert none.code == 1 and none.out == "" and "no messages match" in none.err


def test_plain_output_neutralises_stored_control_characters(zerda, store: SessionStore) -> None:
    hostile = "A\x1b]52;c;aGk=\x07B\x1b[2JC\x9b31mD\rE\u202eF [bold red]G[/]"
    store.append_turn("s", hostile, "ok\r\nfine\tyes")
    for args in (
        ("show", "s"),
        ("show", "s", "-f", "markdown"),
        ("search", "bold red"),
        ("window", "s"),
    ):
        out = zerda(*args).out
        assert not any(c in out for c in "\x1b\x07\x9b\r\u202e"), args
        assert "[bold red]G[/]" in out
    out = zerda("show", "s").out
    assert "A\\x1b]52;c;aGk=\\x07B\\x1b[2JC\\x9b31mD\\x0dE\\u202eF" in out
    assert "ok\n  fine\tyes" in out


def test_json_output_is_exact_and_terminal_safe(zerda, store: SessionStore) -> None:
    hostile = "A\x1b]52;c;aGk=\x07B\x9b31m\u202eC"
    store.append_turn("s", hostile, "ok")
    outputs = {
        "json": zerda("show", "s", "--json").out,
        "jsonl": zerda("show", "s", "--jsonl").out,
        "search": zerda("search", "A", "--json").out,
        "openai": zerda("show", "s", "--format", "openai").out,
    }
    for name, out in outputs.items():
        assert not any(c in out for c in "\x1b\x07\x9b\u202e"), name
    assert json.loads(outputs["json"])["messages"][0]["content"] == hostile
    assert json.loads(outputs["jsonl"].splitlines()[0])["content"] == hostile
    assert json.loads(outputs["search"])[0]["content"] == hostile
    assert json.loads(outputs["openai"])[0]["content"] == hostile


def test_version(zerda) -> None:
    from zerda import __version__

    assert zerda("--version").out == f"zerda {__version__}\n"


def test_no_arguments_prints_help(zerda) -> None:
    result = zerda()
    assert result.code == 0 and "Usage: zerda" in result.out


def _command_paths() -> list[tuple[str, ...]]:
    from typer.main import get_command

    from zerda_cli.app import app

    def walk(command: object, path: tuple[str, ...]) -> list[tuple[str, ...]]:
        below = getattr(command, "commands", {})
        return [path] + [p for name, sub in below.items() for p in walk(sub, (*path, name))]

    return walk(get_command(app), ())


def test_every_help_names_arguments_once_and_flows_to_the_width(zerda) -> None:
    """Usage lines give each argument's name once, in capitals (`[SESSION]`, not
    `[[SESSION]]` or `query`), and each paragraph of a description is one line on a wide
    terminal: the docstring's own line breaks do not show."""
    paths = _command_paths()
    assert len(paths) > 25
    for path in paths:
        shown = zerda(*path, "--help", env={"COLUMNS": "400", "TERM": "dumb"}).out
        lines = [line.strip() for line in shown.splitlines()]
        usage = next(line for line in lines if line.startswith("Usage:"))
        named = usage.partition("[OPTIONS]")[2]
        assert "[[" not in named and named == named.upper(), usage
        text = lines[lines.index(usage) + 1 : next(i for i, x in enumerate(lines) if "─" in x)]
        paragraphs = "\n".join(text).strip().split("\n\n")
        assert all("\n" not in paragraph for paragraph in paragraphs), (path, paragraphs)
    listed = zerda("--help", env={"COLUMNS": "400", "TERM": "dumb"}).out
    doctor = next(line for line in listed.splitlines() if "│ doctor" in line)
    assert "files not 0600, hard links; on a PostgreSQL store" in doctor


def test_chat_refuses_a_bad_session_id_as_a_usage_error(zerda, home: Path) -> None:
    result = zerda("chat", "bad id")
    assert result.code == 2
    assert result.err.startswith("error: ") and result.err.count("\n") == 1
    assert "'bad id' is not a session id" in result.err
    assert not (home / "sessions").exists()


def test_chat_errors_are_one_inert_line(
    zerda, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "conf\x1b]0;pwned\x07\n.toml"
    config.write_text("chat = 1\n", encoding="utf-8")
    monkeypatch.setenv("ZERDA_CONFIG", str(config))
    result = zerda("chat")
    assert result.code == 2  # a bad setting is a usage error
    assert "\x1b" not in result.err and "\x07" not in result.err
    assert result.err.count("\n") == 1 and "\\x1b]0;pwned\\x07" in result.err
    assert "[chat] must be a table" in result.err


@pytest.mark.parametrize(
    ("args", "source"),
    [
        (("add", "s", "t", "caf\udce9"), "argument 2 is not valid UTF-8 (byte 0xe9 at offset 3)"),
        (("add", "s", "--role", "user", "\udcff"), "argument 1 is not valid UTF-8 (byte 0xff"),
        (("add", "s", "t", "b", "--meta", "k=\udcff"), "--meta is not valid UTF-8 (byte 0xff at"),
    ],
)
def test_arguments_that_are_not_utf8_write_nothing(
    zerda, store: SessionStore, home: Path, args, source
) -> None:
    result = zerda(*args)
    assert result.code == 1
    assert result.err.startswith(f"error: {source}")
    assert result.err.endswith("; nothing was written\n") and result.err.count("\n") == 1
    assert not store.exists("s") and not (home / "sessions").exists()


def test_clear_and_delete_count_messages_without_counting_tokens(
    zerda, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    imported = SessionStore(home, fsync=False, count_on_write=False)
    for n in range(3):
        imported.append_turn("big", f"q{n}", f"a{n}")

    def no_counting(*args: object) -> None:
        raise AssertionError("tokens were counted")

    monkeypatch.setattr(TokenCounter, "count", no_counting)
    for command in ("clear", "delete"):  # refused (no terminal) once the count is known
        refused = zerda(command, "big")
        assert refused.code == 1 and "pass --yes" in refused.err
    assert zerda("delete", "big", "--yes").code == 0
    assert not imported.exists("big")


@pytest.mark.parametrize(
    ("content", "query", "parts"),
    [
        ("İİİİ then recursion here", "recursion", ("İİİİ then ", "recursion", " here")),
        ("a RECURSION b", "recursion", ("a ", "RECURSION", " b")),
        ("the Straße sign", "STRASSE", ("the ", "Straße", " sign")),
    ],
)
def test_search_highlights_the_match_in_the_original_text(content, query, parts) -> None:
    assert match_parts(content, Matcher(query).spans(content)[0]) == parts


def test_commands_load_secrets_only_when_a_chat_session_id_is_made() -> None:
    code = (
        "import sys, zerda_cli.app\n"
        "from zerda_cli.chat.command import new_session_id\n"
        "before = 'secrets' in sys.modules\n"
        "new_session_id()\n"
        "print(before, 'secrets' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (result.returncode, result.stdout) == (0, "False True\n"), result.stderr


@pytest.mark.parametrize(
    "args", [("show", "s", "--format", "text"), ("export", "s"), ("search", "word")]
)
def test_a_reader_that_stops_early_is_no_error(
    home: Path, store: SessionStore, args: tuple[str, ...]
) -> None:
    for n in range(60):  # well past a pipe's buffer, so zerda is still writing
        store.append_turn("s", f"word {n} " + "q" * 2000, "a" * 2000)
    with subprocess.Popen(
        [sys.executable, "-m", "zerda_cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline()
        proc.stdout.close()
        assert (proc.wait(), proc.stderr.read()) == (0, b"")
