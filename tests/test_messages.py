"""Message, Session and Memory round-trip through dicts and JSON; bad input is refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from zerda import InvalidMessageError, Memory, Message, Session, ZerdaError


def stamped() -> Message:
    return Message("user", 'héllo\n"quoted"', {"k": [1, 2]}).stamped(7)


def test_message_round_trip_dict_and_json() -> None:
    message = stamped()
    assert message.uuid and message.created_at is not None
    assert message.created_at.tzinfo is not None
    assert Message.from_dict(message.to_dict()) == message
    assert Message.from_dict(json.loads(json.dumps(message.to_dict()))) == message
    data = message.to_dict()
    assert set(data) == {
        "uuid",
        "created_at",
        "role",
        "role_type",
        "content",
        "token_count",
        "metadata",
    }
    assert data["created_at"].endswith("Z")


def test_bare_message_dict() -> None:
    message = Message.from_dict({"role": "assistant", "content": "hi"})
    assert (message.uuid, message.created_at, message.token_count) == (None, None, None)
    assert message.metadata == {}


def test_stamped_keeps_existing_fields() -> None:
    message = stamped()
    again = message.stamped(99)
    assert (again.uuid, again.created_at, again.token_count) == (
        message.uuid,
        message.created_at,
        7,
    )


def test_session_round_trip() -> None:
    session = Session("s1", "u1", {"topic": "x"}, datetime(2024, 5, 1, 12, 0, tzinfo=UTC))
    assert Session.from_dict(json.loads(json.dumps(session.to_dict()))) == session
    assert session.to_dict()["created_at"] == "2024-05-01T12:00:00.000000Z"


def test_memory_round_trip() -> None:
    memory = Memory([stamped(), Message("ai", "ok").stamped(1)], summary="s")
    assert Memory.from_dict(json.loads(json.dumps(memory.to_dict()))) == memory
    assert Memory.from_dict({}) == Memory()


@pytest.mark.parametrize(
    ("given", "role_type"),
    [
        ("human", "user"),
        ("ai", "assistant"),
        ("developer", "system"),
        ("function", "function"),
        ("Alice", "norole"),
        ("narrator", "norole"),
    ],
)
def test_roles_are_kept_as_given_with_a_derived_type(given: str, role_type: str) -> None:
    assert (Message(given, "x").role, Message(given, "x").role_type) == (given, role_type)
    data = Message.from_dict({"role": given, "content": "x"}).to_dict()
    assert (data["role"], data["role_type"]) == (given, role_type)


def test_a_role_type_given_is_kept() -> None:
    message = Message("Alice", "hi", role_type="user")
    assert Message.from_dict(message.to_dict()) == message
    assert message.to_dict()["role_type"] == "user"


@pytest.mark.parametrize("role", ["system", "user", "assistant", "tool"])
def test_known_roles(role: str) -> None:
    assert Message(role, "x").role == role


@pytest.mark.parametrize(
    "data",
    [
        {"role": "", "content": "x"},
        {"role": "  ", "content": "x"},
        {"role": "a\x1b[31m", "content": "x"},
        {"role": "r" * 257, "content": "x"},
        {"role": "user", "content": "x", "role_type": "robot"},
        {"role": "user", "content": "x", "extra": [1]},
        {"role": None, "content": "x"},
        {"role": ["user"], "content": "x"},
        {"role": "user"},
        {"content": "x"},
        {"role": "user", "content": 5},
        {"role": "user", "content": "x", "metadata": [1]},
        {"role": "user", "content": "x", "created_at": "yesterday"},
        {"role": "user", "content": "x", "token_count": "many"},
        {"role": "user", "content": "x", "token_count": -1},
        {"role": "user", "content": "x", "token_count": True},
        {"role": "user", "content": "x", "uuid": 5},
    ],
)
def test_bad_message_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(InvalidMessageError) as caught:
        Message.from_dict(data)
    assert isinstance(caught.value, ZerdaError)


def test_bad_role_in_constructor() -> None:
    with pytest.raises(InvalidMessageError, match="control"):
        Message("ro\nbot", "x")


@pytest.mark.parametrize("data", [{}, {"id": 5}, {"id": "s", "created_at": "never"}, []])
def test_bad_session_dict_is_refused(data: object) -> None:
    with pytest.raises(ZerdaError):
        Session.from_dict(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("data", [{"messages": "x"}, {"messages": [{"role": "x"}]}, []])
def test_bad_memory_dict_is_refused(data: object) -> None:
    with pytest.raises(ZerdaError):
        Memory.from_dict(data)  # type: ignore[arg-type]
