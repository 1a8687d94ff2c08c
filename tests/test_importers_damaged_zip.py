"""A damaged or outsized export zip is one line, never a traceback."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from zerda.importers import (
    ImportFailed,
    Problem,
    UnsafeArchiveError,
    detect,
    read,
)
from zerda.importers import (
    _detection as detection,
)
from zerda.importers import (
    _sources as sources,
)

FIXTURE = Path(__file__).parent / "fixtures" / "importers" / "chatgpt" / "conversations.json"


def _zip(path: Path, method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        archive.write(FIXTURE, "conversations.json")
    return path


def _damaged(tmp_path: Path, kind: str) -> Path:
    method = zipfile.ZIP_STORED if kind == "crc" else zipfile.ZIP_DEFLATED
    data = bytearray(_zip(tmp_path / "export.zip", method).read_bytes())
    start = data.find(b"PK\x03\x04")
    name_length, extra_length = data[start + 26], data[start + 28]
    body = start + 30 + name_length + extra_length
    if kind == "method":
        for signature, at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
            data[data.find(signature) + at] = 99
    elif kind == "crc":
        data[body + 100] ^= 0x20  # a letter's case: the JSON stays valid, the CRC not
    else:
        data[body + 40 : body + 60] = b"\xff" * 20
    path = tmp_path / "export.zip"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("kind", ["crc", "data", "method"])
def test_a_damaged_member_is_one_line(tmp_path: Path, kind: str) -> None:
    path = _damaged(tmp_path, kind)
    with pytest.raises(ImportFailed, match=r"is damaged \(|not a readable zip") as caught:
        list(read(path, "chatgpt"))
    assert str(caught.value).startswith(f"{path}: ")
    assert "\n" not in str(caught.value)


def test_only_members_at_the_top_are_read(tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(FIXTURE, "conversations.json")
        archive.writestr("old/conversations.json", "not json at all")
    assert len(list(read(path, "chatgpt"))) == 4


def test_too_many_members_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "MAX_MEMBERS", 3)
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(FIXTURE, "conversations.json")
        for n in range(3):
            archive.writestr(f"file-{n}.png", b"")
    with pytest.raises(UnsafeArchiveError, match="more than 3 members"):
        list(read(path, "chatgpt"))


def test_a_conversation_id_that_comes_twice_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "conversations-000.json").write_bytes(FIXTURE.read_bytes())
    (tmp_path / "conversations-001.json").write_bytes(FIXTURE.read_bytes())
    found = list(read(tmp_path, "chatgpt"))
    problems = [f for f in found if isinstance(f, Problem)]
    assert len(found) - len(problems) == 4
    assert len(problems) == 4
    assert problems[0].reason == "its id comes twice in the export; the first was imported"


@pytest.mark.parametrize("fmt", ["chatgpt", "claude"])
def test_a_directory_or_zip_without_conversations_is_an_error(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ImportFailed, match=r"holds no conversations\.json"):
        list(read(tmp_path / "empty", fmt))
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("chat.html", "<html></html>")
    with pytest.raises(ImportFailed, match=r"holds no conversations\.json"):
        list(read(path, fmt))


def test_a_big_export_directory_is_told_by_its_conversations_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(detection, "LISTED", 0)  # as if it came after the entries looked at
    (tmp_path / "conversations.json").write_bytes(FIXTURE.read_bytes())
    assert detect(tmp_path) == "chatgpt"
