"""`zerda chat` on a terminal: the prompt-toolkit prompts, their input history, the loop."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.styles import Style

from zerda._paths import private_dir
from zerda_cli.chat.backends import ManualBackend
from zerda_cli.chat.editor import EditorError, edit_text
from zerda_cli.chat.slash_commands import SlashCompleter
from zerda_cli.chat.view import ASSISTANT_LABEL, USER_LABEL

if TYPE_CHECKING:
    from zerda_cli.chat.repl import Chat

STYLE = Style.from_dict(
    {
        "user": "bold ansicyan",
        "assistant": "bold ansigreen",
        "continuation": "ansibrightblack",
        "bottom-toolbar": "noreverse bg:ansibrightblack fg:ansiwhite",
    }
)


def _bindings(chat: Chat) -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        """Alt-Enter (sent as Esc Enter) inserts a line break instead of sending."""
        event.current_buffer.insert_text("\n")

    @bindings.add("c-x", "c-e")
    def _edit(event: KeyPressEvent) -> None:
        """Ctrl-X Ctrl-E: the message in $EDITOR; back at the prompt, Enter sends it."""
        buffer = event.current_buffer

        async def edit() -> None:
            try:
                text = await run_in_terminal(lambda: edit_text(buffer.text), in_executor=True)
            except EditorError as exc:
                message = str(exc)
                await run_in_terminal(lambda: chat.view.error(message))
                return
            buffer.document = Document(text, len(text))

        event.app.create_background_task(edit())

    return bindings


def _continuation(width: int, line_number: int, wrap_count: int) -> FormattedText:
    return FormattedText([("class:continuation", "… ".rjust(width))])


class Prompts:
    """The two prompts of a chat: the user's message and (manual backend) the reply."""

    def __init__(self, chat: Chat, history: Path | None) -> None:
        self.chat = chat
        store = chat.store
        input_history: History = FileHistory(str(history)) if history else InMemoryHistory()
        common = {
            "multiline": False,
            "key_bindings": _bindings(chat),
            "prompt_continuation": _continuation,
            "bottom_toolbar": lambda: FormattedText([("class:bottom-toolbar", chat.toolbar())]),
            "style": STYLE,
            "enable_history_search": False,
        }
        self.messages: PromptSession[str] = PromptSession(
            history=input_history,
            auto_suggest=AutoSuggestFromHistory(),
            completer=SlashCompleter(store.session_ids),
            complete_while_typing=True,
            **common,  # type: ignore[arg-type]
        )
        self.replies: PromptSession[str] = PromptSession(
            history=InMemoryHistory(),
            erase_when_done=True,
            **common,  # type: ignore[arg-type]
        )

    def message(self) -> str:
        """The user's next line (KeyboardInterrupt on Ctrl-C, EOFError on Ctrl-D); it
        starts with the draft /edit left, if any."""
        draft, self.chat.draft = self.chat.draft, ""
        return self.messages.prompt(
            FormattedText([("class:user", USER_LABEL + " ")]), default=draft
        )

    def reply(self) -> str:
        """The assistant's reply typed by the user (manual backend)."""
        return self.replies.prompt(FormattedText([("class:assistant", ASSISTANT_LABEL + " ")]))

    def confirm(self, question: str) -> bool:
        """True only for y or yes; Ctrl-C and Ctrl-D say no."""
        try:
            answer: str = PromptSession[str]().prompt(question)
        except (KeyboardInterrupt, EOFError):
            return False
        return answer.strip().lower() in ("y", "yes")


def history_file(directory: Path) -> Path:
    """The input-history file in `directory`: created private (0600), never through a symlink."""
    private_dir(directory)
    path = directory / "history"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path


def run_terminal(chat: Chat, history: Path | None) -> None:
    """The interactive loop: a message at a time until /exit or Ctrl-D."""
    prompts = Prompts(chat, history)
    if isinstance(chat.backend, ManualBackend):
        chat.backend.ask = prompts.reply
    chat.confirm = prompts.confirm
    chat.welcome()
    while True:
        try:
            line = prompts.message()
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        if not chat.handle(line):
            break
    chat.goodbye()
