"""PostgreSQL URLs: telling one from a directory, and showing one without its password.

Light on purpose (only `re`): choosing a store imports this, never the store itself.
"""

from __future__ import annotations

import re

SCHEMES = ("postgresql://", "postgres://")
# A `password=` query parameter: what comes before it (? or &), and whether more follow.
PASSWORD_PARAMETER = re.compile(r"([?&])password=[^&#]*(&?)")


def is_url(location: object) -> bool:
    """True when `location` is a PostgreSQL URL (`postgresql://...` or `postgres://...`)."""
    return isinstance(location, str) and location.startswith(SCHEMES)


def redact(url: str) -> str:
    """`url` without its password (in the user part or a `password=` parameter), the
    rest as given."""
    scheme, sep, rest = url.partition("://")
    netloc, tail = split_netloc(rest)
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}@{host}"
    tail = PASSWORD_PARAMETER.sub(lambda m: m[1] if m[2] else "", tail)
    return f"{scheme}{sep}{netloc}{tail}"


def split_netloc(rest: str) -> tuple[str, str]:
    """`user:pass@host:port` and what follows it (path, query, fragment) of a URL's text
    after `://`, however malformed (urlsplit refuses some, such as a bad IPv6 host).

    The user part ends at the last `@`: a password holding `/`, `?` or `#` unescaped
    stays in it, to be hidden (wrongly counting a later `@` in as well hides more)."""
    host = rest.rfind("@") + 1
    cut = min((at for at in (rest.find(c, host) for c in "/?#") if at >= 0), default=len(rest))
    return rest[:cut], rest[cut:]
