"""`zerda serve` as a Zep memory server: a real server process, on the file store and on
PostgreSQL, driven by the real zep-python 1.5.0 client (tests/zep_client_scenarios.py,
in a venv of its own) and, for what that client never sends, by plain HTTP."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_helpers import (
    POSTGRES_VARIABLE,
    Server,
    drop_database,
    new_database,
    run_client,
    start,
    unavailable,
    zep_python,
)

from zerda.entities import stored_entities
from zerda.store._opening import open_store
from zerda_cli.__main__ import main

KEY = "zerda-test-" + secrets.token_hex(16)
MAX_BODY = 65_536
SEED = [
    ("human", "Who was Octavia Butler?"),
    (
        "ai",
        "Octavia Estelle Butler (June 22, 1947 – February 24, 2006) was an American science "  # noqa: RUF001
        "fiction author.",
    ),
    ("human", "Which books of hers were made into movies?"),
]


@pytest.fixture(scope="module", params=["file", "postgres"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """One server per store for the module, asking for KEY and bounding bodies."""
    zep_python()
    admin = os.environ.get(POSTGRES_VARIABLE) if request.param == "postgres" else None
    if request.param == "postgres" and not admin:
        unavailable(f"no PostgreSQL server: set {POSTGRES_VARIABLE}")
    where = tmp_path_factory.mktemp("serve")
    location = new_database(admin) if admin else str(where / "home")
    found = start(location, where / "log", "--max-body", str(MAX_BODY), key=KEY)
    yield found
    found.stop()
    if admin:
        drop_database(admin, location)


def client(server: Server, scenario: str, session_id: str, key: str | None = KEY) -> Any:
    return run_client(server, scenario, session_id, key)


def seeded(server: Server) -> str:
    """A new session holding the seed's example."""
    session_id = secrets.token_hex(16)  # the seed's uuid.uuid4().hex
    assert client(server, "seed", session_id)["result"] == "OK"
    return session_id


def stored(server: Server, session_id: str) -> list[dict[str, Any]]:
    return list(client(server, "memory", session_id)["messages"])


def zep_entities(text: str) -> list[dict[str, Any]]:
    """What Zep's extractor put under `metadata.system.entities` for `text`, zerda's way."""
    return [
        {
            "Label": e.label,
            "Name": e.name,
            "Matches": [{"Start": m.start, "End": m.end, "Text": m.text} for m in e.matches],
        }
        for e in stored_entities(text)
    ]


def test_the_seeds_example_comes_back_in_order_with_its_stamps(server: Server) -> None:
    found = client(server, "seed", secrets.token_hex(16))
    assert found["result"] == "OK" and found["summary"] is None
    assert [(m["role"], m["content"]) for m in found["messages"]] == SEED
    for message in found["messages"]:
        assert len(message["uuid"]) == 36 and message["created_at"].endswith("Z")
        assert message["token_count"] > 0
    # "returned with UUIDs, entities extracted from the conversation, token counts, ..."
    first, second, third = (m["metadata"] for m in found["messages"])
    assert first == {
        "system": {
            "entities": [
                {
                    "Label": "PERSON",
                    "Name": "Octavia Butler",
                    "Matches": [{"Start": 8, "End": 22, "Text": "Octavia Butler"}],
                }
            ]
        }
    }
    assert second == {"system": {"entities": zep_entities(SEED[1][1])}}
    assert [e["Label"] for e in second["system"]["entities"]] == ["PERSON", "DATE", "DATE"]
    assert third is None  # nothing named: nothing added


def test_metadata_comes_back_exactly(server: Server) -> None:
    found = client(server, "metadata", secrets.token_hex(16))["messages"]
    assert [m["metadata"].get("foo") if m["metadata"] else None for m in found] == [
        None,
        None,
        "bar",
    ]
    assert found[2]["metadata"] == {"foo": "bar"}
    for message in found[:2]:
        assert message["metadata"] == {"system": {"entities": zep_entities(message["content"])}}


def test_lastn_gives_the_last_messages(server: Server) -> None:
    session_id = seeded(server)
    assert client(server, "lastn", session_id)["messages"] == stored(server, session_id)[1:]


def test_sessions_are_made_updated_read_and_listed(server: Server) -> None:
    session_id = seeded(server)
    found = client(server, "sessions", session_id)
    assert found["made"]["metadata"] == {"topic": "books"}
    assert found["made"]["user_id"] == "reader" and found["made"]["created_at"].endswith("Z")
    assert found["updated"]["metadata"] == {"topic": "books", "year": 1993}
    assert found["got"] == found["updated"]
    assert session_id in found["listed"] and found["listed"] == sorted(found["listed"])
    assert [s for page in found["pages"] for s in page] == found["listed"]
    assert all(1 <= len(page) <= 2 for page in found["pages"])


def test_the_summary_comes_with_the_memory(server: Server) -> None:
    session_id = seeded(server)
    store = open_store(server.location)
    store.set_summary(session_id, "Octavia Butler wrote science fiction.")
    store.close()
    summary = client(server, "memory", session_id)["summary"]
    assert summary["content"] == "Octavia Butler wrote science fiction."
    assert len(summary["uuid"]) == 36 and summary["token_count"] > 0
    # zep-python's Summary has no metadata field: Zep's JSON gives the summary's entities.
    url = f"{server.url}/api/v1/sessions/{session_id}/memory"
    raw = httpx.get(url, headers=_auth()).json()["summary"]
    assert raw["metadata"] == {"system": {"entities": zep_entities(summary["content"])}}
    posted = client(server, "summary_posted", session_id)
    assert posted["summary"]["content"] == "They spoke of Octavia Butler."
    assert posted["messages"] == stored(server, session_id)


def test_imported_history_gains_its_entities_from_zerda_entities(server: Server) -> None:
    session_id = secrets.token_hex(16)
    imported = open_store(server.location, extract_entities=False)
    imported.append_turn(session_id, "Is Lagos bigger than Cairo?", "Lagos, by a little.")
    assert [m.get("metadata") for m in stored(server, session_id)] == [None, None]
    imported.fill_entities(session_id)
    imported.close()
    found = stored(server, session_id)
    assert [m["metadata"]["system"]["entities"] for m in found] == [
        zep_entities(m["content"]) for m in found
    ]
    assert [e["Name"] for e in found[0]["metadata"]["system"]["entities"]] == ["Lagos", "Cairo"]


def test_search_finds_the_sessions_messages_best_first(server: Server) -> None:
    found = client(server, "search", seeded(server))
    assert {r["message"]["content"] for r in found} == {SEED[0][1], SEED[1][1]}
    scores = [r["dist"] for r in found]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)


def test_messages_by_page_and_uuid_and_their_metadata_updated(server: Server) -> None:
    session_id = secrets.token_hex(16)
    client(server, "metadata", session_id)
    found = client(server, "messages", session_id)
    before = stored(server, session_id)
    assert found["page"] == before[2:] and found["one"]["uuid"] == before[0]["uuid"]
    assert found["updated"] == {**found["one"], "metadata": {**before[0]["metadata"], "seen": True}}
    assert before[0] == found["updated"] and found["missing"]["error"] == "NotFoundError"


def test_delete_memory_removes_the_session(server: Server) -> None:
    found = client(server, "delete", seeded(server))
    assert found == {"result": "OK", "error": "NotFoundError"}


def test_a_missing_session_is_not_found(server: Server) -> None:
    found = client(server, "missing", secrets.token_hex(16))
    assert {k: v["error"] for k, v in found.items()} == dict.fromkeys(found, "NotFoundError")
    assert set(found) == {"memory", "session", "update", "delete"}


def test_the_key_is_required_and_a_refusal_says_nothing(server: Server) -> None:
    session_id = seeded(server)
    refused = {"error": "AuthError", "response": {"status_code": 401, "message": ""}}
    assert client(server, "calls", session_id, key=None) == refused
    assert client(server, "calls", session_id, key=KEY + "x") == refused
    assert client(server, "calls", session_id) == "ok"
    unknown = httpx.get(server.url + "/api/v1/anything")
    assert (unknown.status_code, unknown.text) == (401, "")
    assert httpx.get(server.url + "/healthz").text == "."


def test_a_body_over_the_bound_is_413_and_nothing_is_lost(server: Server) -> None:
    session_id = seeded(server)
    before = stored(server, session_id)
    found = client(server, "too_large", session_id)
    assert found["response"]["status_code"] == 413
    chunks = (b"x" * 4096 for _ in range(MAX_BODY // 4096 + 1))  # no Content-Length
    streamed = _post(server, session_id, chunks)
    assert streamed.status_code == 413 and streamed.text.count("\n") == 1
    assert stored(server, session_id) == before


def test_bad_json_or_a_bad_message_is_400_and_nothing_is_lost(server: Server) -> None:
    session_id = seeded(server)
    before = stored(server, session_id)
    bad = _post(server, session_id, b'{"messages": [')
    assert bad.status_code == 400 and bad.text.startswith("the body is not JSON")
    half = b'{"messages": [{"role": "human", "content": "ok"}, {"content": "no role"}]}'
    refused = _post(server, session_id, half)
    assert (refused.status_code, refused.text) == (400, "message role must be a non-empty string\n")
    assert stored(server, session_id) == before


def test_no_cors_headers_are_sent(server: Server) -> None:
    origin = {"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "GET"}
    for response in (
        httpx.options(server.url + "/api/v1/sessions", headers=origin),
        httpx.get(server.url + "/api/v1/sessions", headers={**origin, **_auth()}),
    ):
        assert not [h for h in response.headers if h.lower().startswith("access-control")]


def test_the_log_shows_each_request_on_stderr_and_never_the_key(server: Server) -> None:
    httpx.get(server.url + "/api/v1/sessions", headers={"Authorization": "Bearer wrong-key"})
    httpx.get(server.url + "/api/v1/sessions", headers=_auth())
    wanted = ('"GET /api/v1/sessions HTTP/1.1" 401', '"GET /api/v1/sessions HTTP/1.1" 200')
    deadline = time.monotonic() + 30
    while not all(line in server.log.read_text() for line in wanted):
        assert time.monotonic() < deadline, server.log.read_text()
        time.sleep(0.05)
    log = server.log.read_text()
    assert '"GET /api/v1/sessions HTTP/1.1" 401' in log
    assert '"GET /api/v1/sessions HTTP/1.1" 200' in log
    assert KEY not in log and "wrong-key" not in log


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {KEY}"}


def _post(server: Server, session_id: str, body: Any) -> httpx.Response:
    url = f"{server.url}/api/v1/sessions/{session_id}/memory"
    return httpx.post(url, content=body, headers=_auth())


def test_without_a_key_on_loopback_with_workers_and_sigterm_finishes_a_request(
    tmp_path: Path,
) -> None:
    zep_python()
    server = start(str(tmp_path / "home"), tmp_path / "log", "--no-auth", "--workers", "2")
    session_id = seeded(server)  # and the client sends no key
    answer = _slow_post(server, session_id, lambda: server.proc.send_signal(signal.SIGTERM))
    assert answer.status_code == 200 and answer.text == "OK"
    server.stopped()
    memory = open_store(tmp_path / "home").get_memory(session_id)
    assert memory.messages[-1].content == "sent while the server stopped"


def _slow_post(server: Server, session_id: str, meanwhile: Any) -> httpx.Response:
    """A memory posted in two parts, `meanwhile()` called once the server has read the
    first."""
    first_sent, go_on = threading.Event(), threading.Event()

    def body() -> Iterator[bytes]:
        yield b'{"messages": [{"role": "human", '
        first_sent.set()  # httpx asks for more once the first part is written
        go_on.wait(60)
        yield b'"content": "sent while the server stopped"}]}'

    url = f"{server.url}/api/v1/sessions/{session_id}/memory"
    found: list[httpx.Response | Exception] = []

    def send() -> None:
        try:
            found.append(httpx.post(url, content=body(), timeout=60))
        except Exception as exc:  # shown by the assertion below, not lost in the thread
            found.append(exc)

    sender = threading.Thread(target=send)
    sender.start()
    assert first_sent.wait(60), "the first part was never sent"
    deadline = time.monotonic() + 60
    while not _read_by_the_server(int(server.url.rsplit(":", 1)[1])):
        assert time.monotonic() < deadline, "the server never read the first part"
        time.sleep(0.01)
    meanwhile()
    time.sleep(0.5)
    go_on.set()
    sender.join(90)
    assert found and isinstance(found[0], httpx.Response), found
    return found[0]


def _read_by_the_server(port: int) -> bool:
    """An open connection to `port` on 127.0.0.1 whose bytes the server has read: its
    side in /proc/net/tcp is established (01) with an empty receive queue."""
    with open("/proc/net/tcp") as table:
        rows = [line.split() for line in table][1:]
    return any(
        int(row[1].split(":")[1], 16) == port
        and row[3] == "01"
        and int(row[4].split(":")[1], 16) == 0
        for row in rows
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([], "an API key is needed"),
        (["--no-auth", "--host", "0.0.0.0"], "0.0.0.0 is not a loopback address"),
        (["--no-auth", "--api-key-file", "k"], "--no-auth and --api-key-file disagree"),
        (["--api-key-file", "/nonexistent/key"], "No such file or directory"),
        (["--workers", "0"], "--workers"),
        (["--port", "70000"], "--port"),
        (["--max-body", "0"], "--max-body"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(
    args: list[str],
    says: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
) -> None:
    monkeypatch.delenv("ZERDA_API_KEY", raising=False)
    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def test_an_address_in_use_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--no-auth", "--port", str(port)]) == 1
    assert capsys.readouterr().err == (
        f"error: cannot listen on 127.0.0.1:{port}: address already in use\n"
    )


def test_the_key_comes_from_a_file_or_the_environment_not_from_argv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    (tmp_path / "key").write_text("has space\n")
    assert main(["serve", "--api-key-file", str(tmp_path / "key")]) == 2
    monkeypatch.setenv("ZERDA_API_KEY", "   ")
    assert main(["serve"]) == 2
    assert main(["serve", "--api-key", "k"]) == 2
    assert "visible ASCII" in capsys.readouterr().err


def test_a_callers_own_system_entities_come_back_as_sent(server: Server) -> None:
    session_id = secrets.token_hex(16)
    mine = {"system": {"entities": ["mine"], "intent": "asks"}, "k": 1}
    message = {"role": "human", "content": "Ada Lovelace in London", "metadata": mine}
    assert _post(server, session_id, json.dumps({"messages": [message]})).status_code == 200
    url = f"{server.url}/api/v1/sessions/{session_id}/memory"
    [found] = httpx.get(url, headers=_auth()).json()["messages"]
    assert found["metadata"] == mine
