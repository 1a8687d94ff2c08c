"""Who answers in `zerda chat`: the user (manual), a program the user names, or an HTTP API.

The program and the API are the library's model clients (`zerda.clients`); only the
manual backend, which needs the REPL's reply prompt, lives here. Every backend
returns a `Reply` whose iteration ends normally only for a complete reply; a
failure raises ClientError (BackendError here) with one line for people.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from zerda.clients._base import ChatClient, ClientError, Ending, Messages, Reply

if TYPE_CHECKING:
    from zerda_cli.chat.config import ChatConfig

Backend = ChatClient
BackendError = ClientError

__all__ = ["Backend", "BackendError", "ManualBackend", "Messages", "make_backend"]


class ManualBackend:
    """The user types the reply; `ask` shows the prompt and returns what was typed."""

    name = "manual"
    model: str | None = None

    def __init__(self, ask: Callable[[], str] | None = None) -> None:
        self.ask = ask or _no_terminal

    def reply(self, messages: Messages) -> Reply:
        """What the user types at the reply prompt."""
        return Reply(self.name, None, self._typed)

    def _typed(self, ending: Ending) -> Iterator[str]:
        yield self.ask()

    def cancel(self) -> None:
        """Nothing runs in the background: the prompt itself takes Ctrl-C."""


def _no_terminal() -> str:
    raise BackendError("the manual backend needs a terminal: use --backend command or openai")


def make_backend(config: ChatConfig, session_id: str) -> Backend:
    """The backend the config names (manual, command or openai); BackendError if unusable."""
    name = config.backend_name
    if name == "command":
        from zerda.clients._command import CommandClient

        return CommandClient(
            config.command or "",
            text_format=config.command_format == "text",
            env={"ZERDA_SESSION": session_id},
            secret=config.api_key(),
        )
    if name == "openai":
        from zerda.clients._openai import OpenAIClient

        return OpenAIClient(config.base_url, config.model, config.api_key(), config.timeout)
    return ManualBackend()
