"""`zerda browse` on a real terminal (tmux): keystrokes in, the screen's contents read back."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_runner import ZERDA

from zerda import SessionStore

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None and not os.environ.get("CI"), reason="no tmux")


class Screen:
    """A tmux session running one command on a 100x30 terminal."""

    def __init__(self, name: str, command: str, env: dict[str, str]) -> None:
        self.name = name
        exports = " ".join(f"{key}={value}" for key, value in env.items())
        self._tmux(
            "new-session", "-d", "-s", name, "-x", "100", "-y", "30", f"env {exports} {command}"
        )

    def _tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run([TMUX, *args], capture_output=True, text=True, timeout=30)
        return done.stdout

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def text(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def wait_for(self, check: Callable[[str], bool], timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.text()
            if check(shown) or time.monotonic() > deadline:
                assert check(shown), shown
                return shown
            time.sleep(0.1)

    def alive(self) -> bool:
        assert TMUX is not None
        return (
            subprocess.run([TMUX, "has-session", "-t", self.name], capture_output=True).returncode
            == 0
        )

    def close(self) -> None:
        if self.alive():
            self._tmux("kill-session", "-t", self.name)


@pytest.fixture
def browse(home: Path) -> Iterator[Callable[[], Screen]]:
    made: list[Screen] = []

    def start() -> Screen:
        env = {"ZERDA_HOME": str(home), "TERM": "xterm-256color", "PATH": os.environ["PATH"]}
        screen = Screen(f"zerda-browse-{os.getpid()}-{len(made)}", f"{ZERDA} browse", env)
        made.append(screen)
        return screen

    yield start
    for screen in made:
        screen.close()


def test_type_to_search_open_a_transcript_and_go_back(home: Path, browse) -> None:  # type: ignore[no-untyped-def]
    store = SessionStore(home)
    store.append_turn("trip", "Where do zebrafish live?", "In rivers of South Asia.")
    store.append_turn("work", "Plan the release", "Ship on Monday.")
    store.update_session("work", metadata={"title": "Release plan"})
    screen = browse()
    first = screen.wait_for(lambda s: "trip" in s and "Release plan" in s)
    assert first.index("work") < first.index("trip")  # newest first
    screen.keys("zebra")
    hits = screen.wait_for(lambda s: "search: zebra" in s and "Where do zebrafish" in s)
    assert "Plan the release" not in hits
    screen.keys("Enter")
    shown = screen.wait_for(lambda s: "Session trip" in s)
    assert "In rivers of South Asia." in shown and "q back" in shown
    screen.keys("q")
    screen.wait_for(lambda s: "Enter open" in s)
    screen.keys("Escape")
    screen.wait_for(lambda s: not screen.alive() or "$" in s or s.strip() == "", timeout=10)


def test_rename_title_fork_and_delete_from_the_keyboard(home: Path, browse) -> None:  # type: ignore[no-untyped-def]
    store = SessionStore(home)
    store.append_turn("old", "first question", "first answer")
    screen = browse()
    screen.wait_for(lambda s: "old" in s)
    screen.keys("C-r")
    screen.wait_for(lambda s: "rename old to:" in s)
    screen.keys("new", "Enter")
    screen.wait_for(lambda s: "renamed old to new" in s)
    assert store.session_ids() == ["new"]
    screen.keys("C-t")
    screen.keys("My title", "Enter")
    screen.wait_for(lambda s: "My title" in s)
    assert store.get_session("new").metadata["title"] == "My title"
    screen.keys("C-f")
    screen.keys("copy", "Enter")
    screen.wait_for(lambda s: "forked new as copy" in s)
    assert store.session_ids() == ["copy", "new"]
    screen.keys("C-d")
    screen.wait_for(lambda s: "type yes" in s)
    screen.keys("no", "Enter")
    screen.wait_for(lambda s: "not deleted" in s)
    assert len(store.session_ids()) == 2
    screen.keys("C-d")
    screen.keys("yes", "Enter")
    screen.wait_for(lambda s: "deleted " in s)
    assert len(store.session_ids()) == 1


def test_stored_control_characters_never_reach_the_terminal(home: Path, browse) -> None:  # type: ignore[no-untyped-def]
    SessionStore(home).append_turn("evil", "A\x1b]2;pwned\x07B\x1b[2J", "ok")
    screen = browse()
    shown = screen.wait_for(lambda s: "evil" in s)
    assert "\\x1b" in shown and "pwned" in shown  # shown as visible escapes, not obeyed
    screen.keys("Enter")
    shown = screen.wait_for(lambda s: "Session evil" in s)
    assert "\\x1b]2;pwned\\x07B\\x1b[2J" in shown


def test_browse_needs_a_terminal(home: Path) -> None:
    done = subprocess.run(
        [ZERDA, "browse"],
        capture_output=True,
        text=True,
        env={**os.environ, "ZERDA_HOME": str(home)},
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.startswith(
        "error: zerda browse draws on a terminal"
    )


def test_the_browsers_export_is_zerdas_export_and_imports_back(home: Path, tmp_path: Path) -> None:
    from zerda.messages import Message
    from zerda_cli.browse.export import export_to

    store = SessionStore(home)
    store.add_message("s", Message("system", "Be brief.", {"k": [1, {"x": None}]}))
    store.append_turn("s", "Ünïcode?\nline two", "yes\ttab \x1b[31m escape")
    store.set_summary("s", "a short talk")
    store.update_session("s", metadata={"title": "Mixed"})
    written = export_to(store, "s", tmp_path / "s.jsonl")
    assert written.stat().st_mode & 0o777 == 0o600
    env = {**os.environ, "ZERDA_HOME": str(home)}
    exported = subprocess.run([ZERDA, "export", "s"], capture_output=True, env=env, timeout=60)
    assert written.read_bytes() == exported.stdout  # the same bytes as `zerda export`
    back = subprocess.run(
        [ZERDA, "import", "copy", str(written)], capture_output=True, env=env, timeout=60
    )
    assert back.returncode == 0, back.stderr
    original, copied = list(store.iter_messages("s")), list(store.iter_messages("copy"))
    assert [(m.role, m.content, m.metadata) for m in copied] == [
        (m.role, m.content, m.metadata) for m in original
    ]
    assert store.get_summary("copy").content == "a short talk"  # type: ignore[union-attr]
