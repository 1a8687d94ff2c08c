"""`zerda browse`: the full-screen browser of the history (see `zerda_cli.browse.screen`)."""

from __future__ import annotations

from zerda_cli.browse.start import launch
from zerda_cli.options.params import HomeOpt, StoreOpt


def browse(home: HomeOpt = None, location: StoreOpt = None) -> None:
    """Find and manage sessions full-screen: type to search sessions and messages as you
    type, Enter to read one; rename, title, fork, export, delete or continue it in chat.

    Keys are shown at the bottom; Esc leaves. Needs a terminal on both sides.
    """
    launch(home, location)
