"""The browser's full-screen Application: a query line, the list under it (or a session's
transcript), a prompt line for renames, titles, forks and deletions, and a key line.

List: type to filter (sessions and messages, as you type), Up/Down, PgUp/PgDn,
Home/End, Enter opens the transcript; Ctrl-R rename, Ctrl-T title, Ctrl-F fork, Ctrl-E
export, Ctrl-D delete (asks), Ctrl-O continue in `zerda chat`, Esc or Ctrl-C quits.
Transcript: Up/Down, PgUp/PgDn, Home/End, the mouse wheel; the same actions on plain
keys (r, t, f, e, d, c); q or Esc goes back to the list.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import BufferControl, FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from zerda.errors import ZerdaError
from zerda.store.base import Store
from zerda_cli.browse import rows
from zerda_cli.render.sanitize import one_line

LIST_KEYS = " Enter open  ^R rename  ^T title  ^F fork  ^E export  ^D delete  ^O chat  Esc quit"
VIEW_KEYS = " q back  r rename  t title  f fork  e export  d delete  c chat  (wheel, PgUp/PgDn)"


@dataclass
class State:
    """What the browser shows: the list and its selection, or an open transcript."""

    store: Store
    listed: list[rows.Row] = field(default_factory=list)
    selected: int = 0
    opened: str | None = None  # the session whose transcript is shown
    lines: list[rows.Line] = field(default_factory=list)
    top: int = 0  # the transcript's first line on screen
    message: str = ""  # the last action's outcome, or an error
    asking: Callable[[str], None] | None = None  # what the prompt line's answer goes to
    chat: str | None = None  # the session to continue in `zerda chat` on leaving


class _Wheel(FormattedTextControl):
    """The list or transcript: the mouse wheel moves it three lines a notch."""

    def __init__(self, text: Callable[[], StyleAndTextTuples], move: Callable[[int], None]):
        super().__init__(text, focusable=False, show_cursor=False)
        self.move = move

    def mouse_handler(self, mouse_event: MouseEvent) -> object:
        if mouse_event.event_type == MouseEventType.SCROLL_UP:
            self.move(-3)
        elif mouse_event.event_type == MouseEventType.SCROLL_DOWN:
            self.move(3)
        else:
            return NotImplemented
        return None


class Browser:
    """The Application and the key bindings over a State."""

    def __init__(self, store: Store) -> None:
        self.state = State(store)
        viewing = Condition(lambda: self.state.opened is not None)
        self.query = Buffer(
            multiline=False, read_only=viewing, on_text_changed=lambda _: self.typed()
        )
        self.generation = 0
        self.searching = threading.Lock()
        self.answer = Buffer(multiline=False)
        self.prompt_label = ""
        self.height = 20
        self.app: Application[None] = Application(
            layout=Layout(self._layout(), focused_element=self.query),
            key_bindings=self._keys(),
            full_screen=True,
            mouse_support=True,
        )
        self.refilter()

    # -- layout ---------------------------------------------------------------------

    def _layout(self) -> HSplit:
        listing = _Wheel(self._body, self.move)
        asking = Condition(lambda: self.state.asking is not None)
        return HSplit(
            [
                Window(
                    BufferControl(self.query, input_processors=[]),
                    height=1,
                    get_line_prefix=lambda *_: [("bold", "search: ")],
                ),
                Window(height=1, char="─", style="ansibrightblack"),
                Window(listing, wrap_lines=False, height=Dimension(weight=1)),
                Window(
                    BufferControl(self.answer),
                    height=lambda: 1 if asking() else 0,
                    get_line_prefix=lambda *_: [("bold", self.prompt_label)],
                ),
                Window(FormattedTextControl(self._footer), height=1, style="reverse"),
            ]
        )

    def _body(self) -> StyleAndTextTuples:
        """The list, scrolled to keep the selection on screen, or the transcript."""
        info = self.app.output.get_size() if hasattr(self, "app") else None
        self.height = max(1, (info.rows if info else 24) - 4)
        state = self.state
        if state.opened is not None:
            shown = state.lines[state.top : state.top + self.height]
        else:
            start = max(0, state.selected - self.height + 1)
            shown = []
            for index, row in enumerate(state.listed[start : start + self.height], start):
                mark = "reverse" if index == state.selected else ""
                shown.append([(f"{style} {mark}", text) for style, text in row.text])
            if not state.listed:
                shown = [[("ansibrightblack", "  nothing matches")]]
        out: StyleAndTextTuples = []
        for line in shown:
            out += [*line, ("", "\n")]
        return out

    def _footer(self) -> StyleAndTextTuples:
        if self.state.message:  # the last action's outcome, until the next one
            return [("bold", f" {one_line(self.state.message)}")]
        return [("", VIEW_KEYS if self.state.opened is not None else LIST_KEYS)]

    # -- what keys do ---------------------------------------------------------------

    def typed(self) -> None:
        """The query changed: the list follows in the background, so typing never waits
        on a search."""
        self.state.message = ""
        self.refilter(wait=False)

    def refilter(self, changed: bool = False, wait: bool = True) -> None:
        """The list again for the query as it is now (after a change of the browser's own,
        `changed`, with the archive index checked against the files first); `wait=False`
        makes it in a worker thread, dropped if the query changes meanwhile."""
        self.generation += 1
        if wait:
            self._make_list(self.generation, self.query.text, changed, in_loop=True)
            return
        args = (self.generation, self.query.text, changed, False)
        threading.Thread(target=self._make_list, args=args, daemon=True).start()

    def _make_list(self, generation: int, query: str, changed: bool, in_loop: bool) -> None:
        """Make the list for `query`; hand it to the event loop's thread, which alone
        changes what is shown (unless the query changed meanwhile)."""
        import warnings

        with self.searching:  # one search at a time; one for an older query is skipped
            if generation != self.generation:
                return
            if changed and hasattr(self.state.store, "mark_index_stale"):
                self.state.store.mark_index_stale()  # under the lock: no search undoes it
            with warnings.catch_warnings(record=True) as caught:  # never over the screen
                warnings.simplefilter("always")
                try:
                    listed, problem = rows.rows_for(self.state.store, query), ""
                except Exception as exc:
                    listed, problem = [], one_line(str(exc) or type(exc).__name__)
            if problem or caught:
                problem = problem or str(caught[0].message)

        def show() -> None:
            if generation != self.generation:
                return
            self.state.listed, self.state.selected = listed, 0
            if problem:
                self.state.message = problem
            self.app.invalidate()

        loop = self.app.loop if self.app.is_running else None
        if in_loop or loop is None:
            show()
        else:
            loop.call_soon_threadsafe(show)

    def move(self, by: int) -> None:
        state = self.state
        if state.opened is not None:
            last = max(0, len(state.lines) - self.height)
            state.top = min(max(0, state.top + by), last)
        else:
            state.selected = min(max(0, state.selected + by), max(0, len(state.listed) - 1))

    def current(self) -> str | None:
        """The session the keys act on: the open one, else the selected row's."""
        if self.state.opened is not None:
            return self.state.opened
        listed = self.state.listed
        if not listed:
            return None
        return listed[min(self.state.selected, len(listed) - 1)].session_id

    def open(self) -> None:
        sid = self.current()
        if sid is None:
            return
        try:
            self.state.lines = rows.transcript(self.state.store, sid, self.query.text)
        except ZerdaError as exc:
            self.state.message = str(exc)
            return
        self.state.opened, self.state.top = sid, 0

    def close(self) -> None:
        self.state.opened = None
        self.refilter()

    def ask(self, label: str, answer: Callable[[str], None]) -> None:
        """Show the prompt line; Enter hands what was typed to `answer`, Esc cancels."""
        self.prompt_label, self.state.asking = label, answer
        self.answer.reset()
        self.app.layout.focus(self.answer)

    def answered(self, cancelled: bool) -> None:
        answer, self.state.asking = self.state.asking, None
        self.app.layout.focus(self.query)
        if answer is None or cancelled:
            self.state.message = "cancelled"
            return
        try:
            answer(self.answer.text)
        except (ZerdaError, OSError) as exc:
            self.state.message = str(exc)

    # -- actions --------------------------------------------------------------------

    def action(self, name: str) -> None:
        sid = self.current()
        if sid is None:
            return
        shown = one_line(sid)
        if name == "chat":
            self.state.chat = sid
            self.app.exit()
        elif name == "rename":
            self.ask(f"rename {shown} to: ", lambda new: self._renamed(sid, new.strip()))
        elif name == "title":
            self.ask(f"title of {shown}: ", lambda text: self._titled(sid, text.strip()))
        elif name == "fork":
            self.ask(f"fork {shown} as: ", lambda new: self._forked(sid, new.strip()))
        elif name == "export":
            self.ask(f"export {shown} to: ", lambda path: self._exported(sid, path.strip()))
        elif name == "delete":
            self.ask(f"delete {shown}? type yes: ", lambda text: self._deleted(sid, text))

    def _renamed(self, sid: str, new: str) -> None:
        self.state.store.rename_session(sid, new)
        self.state.message = f"renamed {one_line(sid)} to {one_line(new)}"
        self._after_change(new)

    def _titled(self, sid: str, title: str) -> None:
        self.state.store.update_session(sid, metadata={"title": title or None})
        self.state.message = f"title of {one_line(sid)} set"
        self._after_change(sid)

    def _forked(self, sid: str, new: str) -> None:
        self.state.store.fork_session(sid, new)
        self.state.message = f"forked {one_line(sid)} as {one_line(new)}"
        self._after_change(self.state.opened)

    def _exported(self, sid: str, path: str) -> None:
        from zerda_cli.browse.export import export_to

        written = export_to(self.state.store, sid, Path(path or f"{sid}.jsonl").expanduser())
        self.state.message = f"exported {one_line(sid)} to {one_line(str(written))}"

    def _deleted(self, sid: str, answer: str) -> None:
        if answer.strip().lower() != "yes":
            self.state.message = "not deleted"
            return
        self.state.store.delete_session(sid)
        self.state.opened = None
        self.refilter(changed=True)
        self.state.message = f"deleted {one_line(sid)}"

    def _after_change(self, opened: str | None) -> None:
        message = self.state.message
        if self.state.opened is not None and opened is not None:
            self.state.opened = opened
            self.state.lines = rows.transcript(self.state.store, opened, self.query.text)
        self.refilter(changed=True)
        self.state.message = message

    # -- key bindings ---------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        keys = KeyBindings()
        asking = Condition(lambda: self.state.asking is not None)
        viewing = Condition(lambda: self.state.opened is not None) & ~asking
        listing = Condition(lambda: self.state.opened is None) & ~asking
        moves = {"up": -1, "down": 1, "pageup": -10, "pagedown": 10, "home": -(10**9), "end": 10**9}
        for key, by in moves.items():
            keys.add(key, filter=~asking)(lambda _e, by=by: self._paged(by))
        keys.add("enter", filter=listing)(lambda _e: self.open())
        keys.add("enter", filter=asking)(lambda _e: self.answered(False))
        keys.add("escape", filter=asking, eager=True)(lambda _e: self.answered(True))
        keys.add("escape", filter=viewing, eager=True)(lambda _e: self.close())
        keys.add("q", filter=viewing)(lambda _e: self.close())
        keys.add("escape", filter=listing, eager=True)(lambda e: e.app.exit())
        keys.add("c-c")(lambda e: e.app.exit())
        keys.add("<any>", filter=viewing)(lambda _e: None)  # the query is not typed into
        actions = {"r": "rename", "t": "title", "f": "fork", "e": "export", "d": "delete"}
        for key, name in {**actions, "c": "chat"}.items():
            keys.add(key, filter=viewing)(lambda _e, name=name: self.action(name))
        for key, name in {**actions, "o": "chat"}.items():
            keys.add(f"c-{key}", filter=listing)(lambda _e, name=name: self.action(name))
        return keys

    def _paged(self, by: int) -> None:
        page = self.height - 1
        self.move(by * page // 10 if abs(by) == 10 else by)


def run(store: Store) -> str | None:
    """Browse `store` until the user quits; the session to continue in chat, if asked."""
    browser = Browser(store)
    browser.app.run()
    return browser.state.chat
