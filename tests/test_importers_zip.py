"""Export zips are read in place, never extracted, and hostile ones refused in one line."""

from __future__ import annotations

import os
import stat
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_runner import ZERDA
from importer_helpers import conversations

from zerda.importers import ImportFailed, UnsafeArchiveError, detect, read
from zerda.importers import _sources as sources

FIXTURES = Path(__file__).parent / "fixtures" / "importers"


def export_zip(path: Path, fmt: str, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(FIXTURES / fmt / "conversations.json", "conversations.json")
        archive.writestr("chat.html", "<html></html>")
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("fmt", ["chatgpt", "claude"])
def test_an_export_zip_reads_as_its_conversations_json(tmp_path: Path, fmt: str) -> None:
    archive = export_zip(tmp_path / "export.zip", fmt)
    assert detect(archive) == fmt
    zipped = conversations(read(archive, fmt))
    plain = conversations(read(FIXTURES / fmt / "conversations.json", fmt))
    assert [c.messages for c in zipped] == [c.messages for c in plain]
    assert list(tmp_path.iterdir()) == [archive]  # nothing extracted


def _symlink(archive: zipfile.ZipFile) -> None:
    info = zipfile.ZipInfo("link.json")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive.writestr(info, "/etc/passwd")


BOMB = b"[" + b" " * (64 << 20) + b"]"  # 64 MiB deflating to about 64 KiB
HOSTILE: dict[str, tuple[Callable[[zipfile.ZipFile], None], str]] = {
    "traversal": (lambda a: a.writestr("../../evil.json", "[]"), "has an unsafe path"),
    "absolute": (lambda a: a.writestr("/tmp/evil.json", "[]"), "has an unsafe path"),
    "symlink": (_symlink, "is a symlink"),
    "bomb": (lambda a: a.writestr("conversations-001.json", BOMB), "zip bomb"),
}  # fmt: skip


def _hostile(tmp_path: Path, kind: str) -> Path:
    path = export_zip(tmp_path / f"{kind}.zip", "chatgpt")
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        HOSTILE[kind][0](archive)
    return path


def _encrypted(tmp_path: Path) -> Path:
    """An export whose member is marked encrypted (bit 0 of its flags, in both headers)."""
    data = bytearray(export_zip(tmp_path / "encrypted.zip", "chatgpt").read_bytes())
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = data.find(signature)
        data[start + at] |= 1
    path = tmp_path / "encrypted.zip"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_zip_is_refused_whole(tmp_path: Path, kind: str) -> None:
    path = _hostile(tmp_path, kind)
    with pytest.raises(UnsafeArchiveError, match=HOSTILE[kind][1]):
        list(read(path, "chatgpt"))
    assert sorted(os.listdir(tmp_path)) == [path.name]


def test_an_encrypted_member_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafeArchiveError, match="is encrypted"):
        list(read(_encrypted(tmp_path), "chatgpt"))


def test_inflation_is_counted_as_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Headers can lie: the bytes a member gives are counted, and refused past the cap."""
    path = _hostile(tmp_path, "bomb")
    monkeypatch.setattr(sources, "_check_member", lambda path, info: None)
    with pytest.raises(UnsafeArchiveError, match="inflates too far"):
        list(read(path, "chatgpt"))


def test_a_broken_zip_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(ImportFailed, match="not a readable zip archive"):
        list(read(path, "chatgpt"))


@pytest.mark.parametrize("kind", [*sorted(HOSTILE), "encrypted"])
def test_the_command_refuses_a_hostile_zip_in_one_line(
    tmp_path: Path, home: Path, kind: str
) -> None:
    path = _encrypted(tmp_path) if kind == "encrypted" else _hostile(tmp_path, kind)
    env = {**os.environ, "ZERDA_HOME": str(home)}
    done = subprocess.run(
        [ZERDA, "import", str(path)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {path}: refused: member ")
    assert done.stderr.count("\n") == 1
    assert not (home / "sessions").exists()
