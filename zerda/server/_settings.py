"""The server's settings: checked before it starts, and handed to its workers in their
environment (never on a command line, where other users could read the key in `ps`).

Loads no web framework, so a command can check its flags before Starlette is imported.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

MAX_BODY = 8 * 1024 * 1024  # bytes of a request body, at most, unless told otherwise
STORE_VARIABLE = "ZERDA_SERVE_STORE"
MAX_BODY_VARIABLE = "ZERDA_SERVE_MAX_BODY"
NO_AUTH_VARIABLE = "ZERDA_SERVE_NO_AUTH"
KEY_VARIABLE = "ZERDA_API_KEY"
_KEY = re.compile(r"[\x21-\x7e]{1,4096}")  # what an HTTP header carries as it is


@dataclass(frozen=True)
class Settings:
    """Where the sessions are (a directory or URL; None: the default home), the key
    requests must carry (None: none), and the largest body taken, in bytes."""

    location: str | None
    api_key: str | None
    max_body: int = MAX_BODY

    def check(self, host: str = "127.0.0.1") -> Settings:
        """These settings, or ValueError saying what is wrong with them on `host`."""
        if self.api_key is not None and not _KEY.fullmatch(self.api_key):
            raise ValueError("the API key must be 1-4096 visible ASCII characters")
        if self.api_key is None and not is_loopback(host):
            raise ValueError(f"{host} is not a loopback address: a server on it needs an API key")
        if self.max_body < 1:
            raise ValueError("the body size bound must be a positive number of bytes")
        return self

    def export(self) -> None:
        """Put these settings in the environment, where `from_environment` finds them."""
        os.environ.pop(KEY_VARIABLE, None)
        os.environ.pop(NO_AUTH_VARIABLE, None)
        if self.api_key is None:
            os.environ[NO_AUTH_VARIABLE] = "1"
        else:
            os.environ[KEY_VARIABLE] = self.api_key
        os.environ[MAX_BODY_VARIABLE] = str(self.max_body)
        os.environ[STORE_VARIABLE] = self.location or ""


def from_environment() -> Settings:
    """The settings `export` left (a key in $ZERDA_API_KEY, none only with
    $ZERDA_SERVE_NO_AUTH=1); ValueError when they are missing or wrong."""
    key = os.environ.get(KEY_VARIABLE) or None
    if key is None and os.environ.get(NO_AUTH_VARIABLE) != "1":
        raise ValueError(f"no API key: set {KEY_VARIABLE} (or {NO_AUTH_VARIABLE}=1)")
    max_body = int(os.environ.get(MAX_BODY_VARIABLE) or MAX_BODY)
    return Settings(os.environ.get(STORE_VARIABLE) or None, key, max_body).check()


def is_loopback(host: str) -> bool:
    """True when `host` is a loopback address (or `localhost`)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
