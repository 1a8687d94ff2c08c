"""Token counts are exact for cl100k_base with no network, and an honest estimate otherwise."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

from zerda import count_tokens, get_counter

# Probes that the child process makes no connection: any connect() is recorded and refused.
NO_NETWORK = """
import json, socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[1:] or args))
    raise OSError("network disabled in this test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
import zerda.tokens as tokens
{body}
print(json.dumps({{"result": result, "attempts": attempts}}))
"""

OFFLINE_ENV = {
    "PATH": "/usr/bin:/bin",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "TIKTOKEN_CACHE_DIR": "",
}


def run_offline(body: str, tmp_path: object) -> dict[str, object]:
    env = dict(OFFLINE_ENV, TIKTOKEN_CACHE_DIR=str(tmp_path), HOME=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-c", NO_NETWORK.format(body=body)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return data


def test_known_exact_counts() -> None:
    counter = get_counter("cl100k_base")
    assert counter.exact and counter.encoding == "cl100k_base"
    assert counter.count("hello world") == 2
    assert counter.count("") == 0
    assert count_tokens("hello world") == 2
    assert count_tokens("The quick brown fox jumps over the lazy dog.") == 10


def test_special_token_text_is_plain_text() -> None:
    assert count_tokens("<|endoftext|>") > 1


def test_counter_loads_once() -> None:
    assert get_counter() is get_counter("cl100k_base")


def test_exact_counts_offline_in_a_fresh_process(tmp_path: object) -> None:
    body = (
        "c = tokens.get_counter('cl100k_base')\n"
        "result = [c.exact, c.count('hello world'), c.count('héllo wörld, 日本語')]"
    )
    data = run_offline(body, tmp_path)
    assert data["attempts"] == []
    result = data["result"]
    assert isinstance(result, list)
    exact, hello, mixed = result
    assert exact is True and hello == 2
    assert mixed == count_tokens("héllo wörld, 日本語")


def test_encoding_without_offline_file_falls_back_without_network(tmp_path: object) -> None:
    text = "x" * 41
    body = (
        "c = tokens.get_counter('o200k_base')\n"
        f"result = [c.exact, c.encoding, c.count({text!r}), tokens.count_tokens('abcdefgh', "
        "'o200k_base')]"
    )
    data = run_offline(body, tmp_path)
    assert data["attempts"] == []
    assert data["result"] == [False, "o200k_base", 10, 2]


def test_unknown_encoding_falls_back() -> None:
    counter = get_counter("no_such_encoding")
    assert counter.exact is False
    assert counter.count("abcdefghij") == 2


def test_the_probe_sees_a_connection(tmp_path: object) -> None:
    body = (
        "try:\n"
        "    socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
        "except OSError:\n"
        "    pass\n"
        "result = None"
    )
    assert run_offline(body, tmp_path)["attempts"] != []
    assert socket is not None
