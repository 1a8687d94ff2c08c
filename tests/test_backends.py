"""The backends of `zerda chat`: a real program per turn, a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from chat_server import chat_server, free_port

from zerda.clients._base import ClientError
from zerda.clients._command import CommandClient, as_text
from zerda.clients._openai import OpenAIClient
from zerda_cli.chat.config import ConfigError, load_config, parse_memory

CONTEXT = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello!"},
    {"role": "user", "content": "Ünïcode? 🦊"},
]


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "assistant.py"
    path.write_text("import json, sys, time\n" + body)
    return f"{sys.executable} {path}"


# -- command ---------------------------------------------------------------------------


def test_command_gets_json_context_and_its_stdout_streams_back(tmp_path: Path) -> None:
    """The program writes its first piece and waits for the test to have read it: the
    reply streams, it is not read at the end."""
    go = tmp_path / "go"
    command = script(
        tmp_path,
        "import pathlib\n"
        "data = json.load(sys.stdin)\n"
        "for n, m in enumerate(data['messages']):\n"
        "    sys.stdout.write(m['role'] + '=' + m['content'] + ';'); sys.stdout.flush()\n"
        "    deadline = time.monotonic() + 120\n"
        f"    while n == 0 and not pathlib.Path({str(go)!r}).exists():\n"
        "        assert time.monotonic() < deadline, 'the first piece was never read'\n"
        "        time.sleep(0.01)\n",
    )
    pieces = CommandClient(command).reply(CONTEXT)
    first = next(pieces)
    go.touch()
    assert first == "system=Be brief.;"
    assert first + "".join(pieces) == "".join(f"{m['role']}={m['content']};" for m in CONTEXT)


def test_command_text_format_gets_role_lines(tmp_path: Path) -> None:
    command = script(tmp_path, "sys.stdout.write(sys.stdin.read().upper())\n")
    reply = "".join(CommandClient(command, text_format=True).reply(CONTEXT))
    assert reply == as_text(CONTEXT).upper()
    assert reply.startswith("SYSTEM: BE BRIEF.\nUSER: HI\nASSISTANT: HELLO!\n")


def test_command_sees_session_id(tmp_path: Path) -> None:
    command = script(tmp_path, "import os; print(os.environ['ZERDA_SESSION'])\n")
    reply = "".join(CommandClient(command, env={"ZERDA_SESSION": "s-1"}).reply(CONTEXT))
    assert reply == "s-1\n"


def test_command_failure_is_one_line_with_its_last_stderr_line(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "print('partial')\nprint('trace\\nmodel overloaded', file=sys.stderr)\nsys.exit(3)\n",
    )
    with pytest.raises(ClientError) as caught:
        list(CommandClient(command).reply(CONTEXT))
    program = Path(sys.executable).name
    assert str(caught.value) == f"{program} exited with status 3: model overloaded"


def test_missing_command_and_bad_quoting_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ClientError, match="command not found: no-such-zerda-program"):
        list(CommandClient("no-such-zerda-program --x").reply(CONTEXT))
    with pytest.raises(ClientError, match="cannot parse --command"):
        CommandClient("say 'unclosed")


def test_command_that_ignores_stdin_still_answers(tmp_path: Path) -> None:
    command = script(tmp_path, "print('fixed answer')\n")
    big = [{"role": "user", "content": "x" * 1_000_000}]
    assert "".join(CommandClient(command).reply(big)) == "fixed answer\n"


def test_closing_a_reply_early_ends_the_program(tmp_path: Path) -> None:
    command = script(tmp_path, "import os\nprint(os.getpid(), flush=True)\ntime.sleep(30)\n")
    pieces = CommandClient(command).reply(CONTEXT)
    pid = int(next(pieces))
    os.kill(pid, 0)  # running
    pieces.close()  # what the REPL does on Ctrl-C
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


# -- openai ------------------------------------------------------------------------------


def test_openai_streams_deltas_and_sends_model_messages_and_key() -> None:
    with chat_server() as server:
        backend = OpenAIClient(server.url("stream"), "test-model", "sk-secret", timeout=10)
        pieces = list(backend.reply(CONTEXT))
    assert "".join(pieces) == "echo: Ünïcode? 🦊"
    assert len(pieces) > 1
    request = server.requests[0]
    assert request["path"] == "/stream/v1/chat/completions"
    assert request["body"] == {
        "model": "test-model",
        "messages": CONTEXT,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert request["headers"]["Authorization"] == "Bearer sk-secret"


def test_openai_accepts_a_non_streamed_answer() -> None:
    with chat_server() as server:
        backend = OpenAIClient(server.url("plain"), "m", None, timeout=10)
        assert "".join(backend.reply(CONTEXT)) == "echo: Ünïcode? 🦊"
        assert "Authorization" not in server.requests[0]["headers"]


@pytest.mark.parametrize(
    "status,expected",
    [
        (401, "HTTP 401 from 127.0.0.1:{port}: the API key was refused"),
        (429, "HTTP 429 from 127.0.0.1:{port}: rate limited or out of quota; retry after 7 s"),
        (500, "HTTP 500 from 127.0.0.1:{port}: the server failed"),
        (503, "HTTP 503 from 127.0.0.1:{port}: the server failed"),
        (404, "HTTP 404 from 127.0.0.1:{port}: not found: check --base-url"),
    ],
)
def test_openai_http_errors_are_one_clear_line(status: int, expected: str) -> None:
    with chat_server() as server:
        backend = OpenAIClient(server.url(f"status-{status}"), "m", "sk-x", timeout=10)
        with pytest.raises(ClientError) as caught:
            list(backend.reply(CONTEXT))
    message = str(caught.value)
    assert message.startswith(expected.format(port=server.server_address[1]))
    assert message.endswith("(the server says no)")
    assert "\n" not in message


def test_openai_never_shows_the_key_even_when_the_server_quotes_it() -> None:
    with chat_server() as server:
        backend = OpenAIClient(server.url("echo-key"), "m", "sk-very-secret-123", timeout=10)
        with pytest.raises(ClientError) as caught:
            list(backend.reply(CONTEXT))
    assert "sk-very-secret-123" not in str(caught.value)
    assert "[key]" in str(caught.value)
    assert "sk-very-secret-123" not in repr(backend)


def test_openai_without_key_says_which_variable_to_set() -> None:
    with chat_server() as server:
        backend = OpenAIClient(server.url("status-401"), "m", None, timeout=10)
        with pytest.raises(ClientError, match="no API key: set ZERDA_API_KEY or OPENAI_API_KEY"):
            list(backend.reply(CONTEXT))


def test_openai_connection_refused() -> None:
    port = free_port()
    backend = OpenAIClient(f"http://127.0.0.1:{port}/v1", "m", None, timeout=10)
    with pytest.raises(ClientError) as caught:
        list(backend.reply(CONTEXT))
    assert str(caught.value) == (
        f"cannot connect to 127.0.0.1:{port}: connection refused (is the server running?)"
    )


def test_openai_timeouts_before_and_during_the_reply() -> None:
    # The timeout covers connecting and the first piece too: 2 s leaves a loaded machine room.
    with chat_server(pause=8.0) as server:
        waiting = OpenAIClient(server.url("hang"), "m", None, timeout=2.0)
        with pytest.raises(ClientError, match=r"within 2 s \(timeout\)"):
            list(waiting.reply(CONTEXT))
        stalled = OpenAIClient(server.url("slow"), "m", None, timeout=2.0)
        pieces = stalled.reply(CONTEXT)
        assert next(pieces) == "ech"
        with pytest.raises(ClientError, match=r"stopped sending for 2 s \(timeout\)"):
            list(pieces)


@pytest.mark.parametrize("url", ["localhost:8080", "http://[::1/v1", "http://host:port/v1"])
def test_openai_refuses_a_bad_base_url(url: str) -> None:
    with pytest.raises(ClientError, match="bad --base-url"):
        OpenAIClient(url, "m", None)


@pytest.mark.parametrize(
    "url", ["http://u:sk-SECRET@127.0.0.1:9/v1", "https://sk-SECRET@[::1/v1", "http://u@h"]
)
def test_openai_refuses_credentials_in_the_base_url_without_repeating_them(url: str) -> None:
    with pytest.raises(ClientError, match="ZERDA_API_KEY or OPENAI_API_KEY") as refused:
        OpenAIClient(url, "m", None)
    assert "SECRET" not in str(refused.value) and "u@" not in str(refused.value)


def test_openai_errors_name_the_host_and_port_only() -> None:
    assert OpenAIClient("http://127.0.0.1:8080/v1", "m", None).host == "127.0.0.1:8080"
    assert OpenAIClient("https://[::1]:9/v1/", "m", None).host == "[::1]:9"
    assert OpenAIClient("https://Example.COM/v1", "m", None).host == "example.com"


# -- config -------------------------------------------------------------------------------


def test_config_file_then_environment_then_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ZERDA_BACKEND", "ZERDA_MODEL", "ZERDA_MEMORY", "ZERDA_CONFIG", "ZERDA_COMMAND"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "config.toml").write_text(
        '[chat]\nbackend = "openai"\nmodel = "from-file"\nmemory = "token 500"\nshow = 1\n'
    )
    config = load_config(tmp_path)
    assert (config.backend_name, config.model, config.memory_spec.describe(), config.show) == (
        "openai",
        "from-file",
        "token 500",
        1,
    )
    monkeypatch.setenv("ZERDA_MODEL", "from-env")
    assert load_config(tmp_path).model == "from-env"
    assert load_config(tmp_path, {"model": "from-flag", "show": None}).model == "from-flag"


def test_a_command_alone_picks_the_command_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZERDA_BACKEND", raising=False)
    assert load_config(tmp_path, {"command": "cat"}).backend_name == "command"
    with pytest.raises(ConfigError, match="needs --command"):
        load_config(tmp_path, {"backend": "command", "command": " "})


@pytest.mark.parametrize(
    "text,error",
    [
        ('[chat]\napi_key = "sk-1"\n', "not read from files; set ZERDA_API_KEY"),
        ('[chat]\ncolour = "red"\n', "unknown setting 'colour'"),
        ('[chat]\ntimeout = "soon"\n', "timeout must be a number"),
        ("[chat\n", "cannot read"),
    ],
)
def test_bad_config_files_are_clear_errors(tmp_path: Path, text: str, error: str) -> None:
    (tmp_path / "config.toml").write_text(text)
    with pytest.raises(ConfigError, match=error):
        load_config(tmp_path)


def test_memory_settings_parse() -> None:
    assert parse_memory("window:4").describe() == "window 4"
    assert parse_memory("summary").describe() == "summary 2000"
    assert parse_memory("buffer").describe() == "buffer"
    for bad in ("buffer 3", "window 0", "token x", "forever"):
        with pytest.raises(ConfigError):
            parse_memory(bad)


def test_api_key_comes_from_the_environment_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ZERDA_API_KEY", "sk-env")
    assert load_config(None, {}).api_key() == "sk-env"
    assert "sk-env" not in json.dumps(load_config(None, {}).__dict__)
