"""The `zerda` command: a terminal chat-history manager over the zerda library.

The parts, bottom first (each imports only those above it in this list; checked by
tests/test_cli_layers.py, which also forbids import cycles):

- `render`: output; Rich on a terminal, plain text or JSON when piped.
- `options`: what the commands share: their options and parsing, input, errors, where the
  sessions are and opening the store.
- `basics`: the Typer-free work of `add`, `show`, `stats`, `sessions` and `search`, which
  both the quick path and the full commands call.
- `chat` and `browse`: the two interactive commands, each a package with its Typer
  command in `command.py`.
- `commands`: every other command, one module per command (or a few close ones).
- `quick`: the quick path, which parses the commands a shell runs most without Typer.
- `app`: the Typer app, which only registers the commands.
- `__main__`: the entry point (`zerda`, `python -m zerda_cli`): the quick path when it
  takes the arguments, else the app; every failure one line on stderr.
"""
