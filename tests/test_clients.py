"""The library's model clients: loaded only when used, each reply carrying its provenance."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chat_server import chat_server

from zerda.clients import CommandClient, OpenAIClient, Provenance
from zerda.clients._base import PROVENANCE_KEY, TRUNCATED_KEY

CONTEXT = [{"role": "user", "content": "Hi"}]


def loaded_after(code: str) -> list[str]:
    probe = (
        f"import sys\n{code}\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('zerda.clients')"
        " or m == 'urllib.request')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_import_zerda_loads_no_client_and_the_package_loads_each_client_on_use() -> None:
    assert loaded_after("import zerda") == []
    assert "zerda.clients._openai" not in loaded_after("import zerda.clients")
    assert "zerda.clients._openai" in loaded_after("from zerda.clients import OpenAIClient")


def test_a_command_reply_carries_its_provenance(tmp_path: Path) -> None:
    script = tmp_path / "answer.py"
    script.write_text("import sys\nsys.stdin.read()\nprint('one')\nprint('two')\n")
    reply = CommandClient([sys.executable, str(script)]).reply(CONTEXT)
    assert reply.provenance is None
    assert reply.read() == "one\ntwo\n"
    assert reply.provenance is not None
    made = reply.provenance.as_dict()
    assert made["backend"] == "command" and made["finish_reason"] == "stop"
    assert made["model"].endswith("answer.py")
    assert 0 <= made["first_byte_ms"] <= made["total_ms"]


def test_an_http_reply_carries_model_finish_reason_and_usage() -> None:
    with chat_server() as server:
        reply = OpenAIClient(server.url("usage"), "m", None, timeout=10).reply(CONTEXT)
        assert reply.read() == "echo: Hi"
    assert reply.provenance is not None
    assert reply.provenance.usage == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    assert reply.provenance.finish_reason == "stop"
    assert reply.provenance.model == "served-m"
    metadata = reply.provenance.metadata()
    assert TRUNCATED_KEY not in metadata
    assert Provenance.from_metadata(metadata) == reply.provenance
    assert metadata[PROVENANCE_KEY]["usage"]["total_tokens"] == 5


def test_a_server_that_refuses_stream_options_is_asked_again_without_them() -> None:
    with chat_server() as server:
        client = OpenAIClient(server.url("no-stream-options"), "m", None, timeout=10)
        assert client.reply(CONTEXT).read() == "echo: Hi"
        assert client.reply(CONTEXT).read() == "echo: Hi"  # not refused a second time
    asked = ["stream_options" in r["body"] for r in server.requests]
    assert asked == [True, False, False]
