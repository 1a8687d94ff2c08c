"""Shared fixtures: a private temporary ZERDA_HOME and a store on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from zerda import SessionStore


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data home, also exported as ZERDA_HOME for code that reads the environment."""
    path = tmp_path / "home"
    monkeypatch.setenv("ZERDA_HOME", str(path))
    monkeypatch.delenv("ZERDA_STORE", raising=False)  # a store chosen outside the tests
    return path


@pytest.fixture
def store(home: Path) -> SessionStore:
    """A store on `home`; fsync off, since no test here cuts the power."""
    return SessionStore(home, fsync=False)
