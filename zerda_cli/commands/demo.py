"""`zerda demo`: records a short conversation through the library and shows each view of it.

The library loads only once the demo runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from zerda_cli import render

if TYPE_CHECKING:
    from zerda.store import SessionStore

CONVERSATION = [
    (
        "I'm getting 'RecursionError: maximum recursion depth exceeded' in my JSON parser.",
        "That usually means a nested structure recurses without a base case. Does it happen "
        "on every input, or only on deeply nested documents?",
    ),
    (
        "Only on deep documents, around 1,200 levels of nested arrays.",
        "CPython's default recursion limit is 1000 frames, and each nesting level costs one. "
        "Raise it with sys.setrecursionlimit() or rewrite the parser with an explicit stack.",
    ),
    (
        "Raising the limit feels fragile. How would the explicit stack look?",
        "Keep a list of open containers: push a new list or dict on '[' or '{', pop it on the "
        "closing bracket and attach it to the container below. Depth then costs heap, not frames.",
    ),
    (
        "Nice, that works. Can I cap the depth so hostile input can't eat memory?",
        "Yes: check len(stack) before each push and raise a ValueError past, say, 10,000 levels. "
        "That bounds memory and gives callers a clear error.",
    ),
]
TOKEN_BUDGET = 160
SEARCH = "recursion"


def step(command: str, purpose: str) -> None:
    """Announce the next view: the command that shows it, and what it is."""
    if render.on_terminal():
        from zerda_cli.render.pieces import make_console

        console = make_console()
        console.print()
        console.rule(f"$ {command}", align="left", style="dim")
        console.print(purpose, style="italic")
    else:
        sys.stdout.write(f"\n==> {command}\n{purpose}\n\n")
    sys.stdout.flush()


def free_session_id(store: SessionStore, base: str) -> str:
    """`base`, or `base-2`, `base-3`... whichever does not exist yet (never overwrite)."""
    candidate, number = base, 1
    while store.exists(candidate):
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def record(store: SessionStore, session_id: str) -> None:
    """Save the conversation turn by turn through a memory bound to the store."""
    from zerda.memory import ConversationBufferMemory

    memory = ConversationBufferMemory(store=store, session_id=session_id)
    for question, answer in CONVERSATION:
        memory.save_context({"input": question}, {"output": answer})


def show_views(store: SessionStore, sid: str, home_flag: str) -> None:
    """Each `zerda` view of the session, under the command that shows it."""
    from zerda.store._matching import Matcher
    from zerda_cli.options.contexts import load_memory

    step(f"zerda show {sid}{home_flag}", "The transcript, with times and exact token counts.")
    details, summary = store.get_session(sid), store.get_summary(sid)
    render.transcript(details, summary, store.iter_messages(sid), None, page=False)
    step(f"zerda stats {sid}{home_flag}", "What the session holds, in numbers.")
    render.stats(store.session_stats(sid), as_json=False)
    step(
        f"zerda window {sid} -k 2{home_flag}",
        "The last 2 turns: what ConversationBufferWindowMemory(k=2) loads.",
    )
    window = load_memory(store, sid, "window", k=2, max_tokens=0)
    render.memory_view(f"Session {sid}: window, k=2", window, None)
    step(
        f"zerda context {sid} --memory token --max-tokens {TOKEN_BUDGET}{home_flag}",
        f"The newest turns within {TOKEN_BUDGET} tokens: "
        "what ConversationTokenBufferMemory hands a model.",
    )
    budget = load_memory(store, sid, "token", k=0, max_tokens=TOKEN_BUDGET)
    render.memory_view(f"Session {sid}: context from the token memory", budget, None)
    step(f"zerda search {SEARCH}{home_flag}", f"Every message mentioning {SEARCH!r}, any case.")
    render.search(list(store.search(SEARCH)), Matcher(SEARCH), repr(SEARCH), as_json=False)


def demonstrate(home: Path, kept: bool) -> None:
    """Record into `home`, show everything, and say where the session is (or that it is gone)."""
    from zerda.store import SessionStore

    store = SessionStore(home)
    sid = free_session_id(store, "demo")
    home_flag = f" --home {home}" if kept else ""
    sys.stdout.write(f"zerda demo: recording {len(CONVERSATION)} turns as session {sid!r}\n")
    sys.stdout.write(f"home: {home}{'' if kept else ' (temporary, removed at the end)'}\n")
    sys.stdout.write("through ConversationBufferMemory(store=SessionStore(home), session_id=...)\n")
    record(store, sid)
    show_views(store, sid, home_flag)
    if kept:
        sys.stdout.write(f"\nThe session stays in {home}: zerda show {sid} --home {home}\n")
    else:
        sys.stdout.write("\nThe temporary home is removed. Keep one: zerda demo --home DIR\n")


def run_demo(home: Path | None) -> None:
    """Run the demo in `home`, or in a temporary home that is removed afterwards."""
    if home is not None:
        demonstrate(home.expanduser(), kept=True)
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="zerda-demo-") as temp:
        demonstrate(Path(temp), kept=False)


def demo(
    home: Annotated[
        Path | None,
        typer.Option("--home", metavar="PATH", help="Keep the demo session here."),
    ] = None,
) -> None:
    """Record a short conversation in a temporary home and show what zerda does with it."""
    run_demo(home)
