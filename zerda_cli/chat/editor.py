"""Writing a message in the user's editor (`/edit`, Ctrl-X Ctrl-E in `zerda chat`).

The editor is $VISUAL, else $EDITOR (either may hold arguments), else the first of
the usual ones found. The text goes through a private temporary file, removed after.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile

from zerda.errors import ZerdaError

FALLBACKS = ("editor", "nano", "vi")


class EditorError(ZerdaError):
    """No editor could be run, or it failed; the message being written is unchanged."""


def editor_command() -> list[str]:
    """The editor's argv (without the file name); EditorError when there is none."""
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "").strip()
        if value:
            try:
                argv = shlex.split(value)
            except ValueError as exc:
                raise EditorError(f"cannot parse ${variable}: {exc}") from None
            if argv:
                return argv
    for name in FALLBACKS:
        if shutil.which(name):
            return [name]
    raise EditorError("no editor found: set $EDITOR (or $VISUAL)")


def edit_text(text: str) -> str:
    """`text` as the user left it in the editor, its final newline dropped."""
    argv = editor_command()
    with tempfile.TemporaryDirectory(prefix="zerda-edit-") as folder:
        path = os.path.join(folder, "message.md")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            status = subprocess.call([*argv, path])
        except OSError as exc:
            raise EditorError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
        if status != 0:
            raise EditorError(f"{os.path.basename(argv[0])} exited with status {status}")
        try:
            with open(path, encoding="utf-8") as handle:
                edited = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise EditorError(f"cannot read the edited message: {exc}") from None
    return edited.removesuffix("\n")
