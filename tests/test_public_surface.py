"""What `import zerda` offers: every name in `__all__` resolves, the stores under their
names, the memory classes at the top, and nothing of PostgreSQL loaded until used."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import zerda
from zerda.store.base import Store


def test_every_public_name_resolves() -> None:
    for name in zerda.__all__:
        assert getattr(zerda, name) is not None, name
    assert zerda.SessionStore is zerda.FileStore
    assert issubclass(zerda.InMemoryStore, zerda.Store)
    assert zerda.ConversationBufferMemory.__module__ == "zerda.memory._buffer"


def test_the_store_contract_is_twelve_primitives() -> None:
    assert sorted(Store.__abstractmethods__) == [
        "add_memory",
        "clear",
        "create_session",
        "delete_session",
        "get_session",
        "get_summary",
        "iter_messages",
        "rename_session",
        "replace_messages",
        "session_ids",
        "set_summary",
        "update_session",
    ]


def test_opening_a_file_store_loads_nothing_of_postgresql(tmp_path: object) -> None:
    code = f"""
        import sys
        import zerda
        assert [m for m in sys.modules if m.startswith("zerda.")] == ["zerda.errors"], sorted(
            m for m in sys.modules if m.startswith("zerda.")
        )
        store = zerda.open_store({str(tmp_path)!r})
        store.append_turn("s", "q", "a")
        loaded = [m for m in sys.modules if m.startswith(("psycopg", "zerda.store.postgres."))]
        assert loaded == ["zerda.store.postgres._urls"], loaded
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_every_library_exception_is_in_the_one_tree() -> None:
    import importlib
    import pkgutil

    import zerda.errors

    found = []
    for module in pkgutil.walk_packages(zerda.__path__, "zerda."):
        if module.name.startswith(("zerda.server", "zerda.mcp")):
            continue  # their extras may not be installed; their errors are HTTP and MCP's
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and not issubclass(value, Warning)
                and value.__module__ == module.name
            ):
                found.append(value)
    assert found, "no exception classes found"
    assert [e for e in found if not issubclass(e, zerda.ZerdaError)] == []
    for name in ("MessageTooLargeError", "ImportFailed", "UnsafeArchiveError", "NotADocument"):
        assert getattr(zerda.errors, name).__module__ == "zerda.errors"
