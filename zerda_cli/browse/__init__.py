"""`zerda browse`: a full-screen browser of the history (prompt-toolkit): `rows` (what the
lists and the transcript show, from the store, terminal-safe), `screen` (the Application:
layout, keys, prompts), `export` (a session written from it), `start` (starting it, with
no Typer: the quick path runs it too) and `command` (the Typer command)."""
