"""Entity extraction against a hand-labelled gold set (bench/entities_gold.jsonl, made as
bench/entities_gold.md says): precision, recall and F1 per label and overall, for exact
matches (same label, same start and end) and for partial ones (same label, overlapping
spans, each span matched once); and extraction speed over the set's messages.

`python -m bench.entities` prints the table; `entities()` gives the rows of the bench.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.harness import Row
from zerda.entities import LABELS, extract

SECTION = "entities"
GOLD = Path(__file__).with_name("entities_gold.jsonl")
SPEED_SECONDS = 0.5  # time the whole set, round after round, for at least this long

Span = tuple[str, int, int]  # label, start, end


@dataclass
class Score:
    """Counts of one label (or all) and the figures they give."""

    found: int = 0  # spans the extractor gave
    gold: int = 0  # spans the gold set holds
    hits: int = 0  # spans matched

    @property
    def precision(self) -> float:
        return self.hits / self.found if self.found else 0.0

    @property
    def recall(self) -> float:
        return self.hits / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        both = self.precision + self.recall
        return 2 * self.precision * self.recall / both if both else 0.0


def load(path: Path = GOLD) -> list[tuple[str, list[Span]]]:
    """The gold messages: (text, [(label, start, end), ...])."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            data = json.loads(line)
            spans = [(e["label"], e["start"], e["end"]) for e in data["entities"]]
            rows.append((data["text"], spans))
    return rows


def predicted(text: str) -> list[Span]:
    """The extractor's spans of `text`."""
    return [(e.label, m.start, m.end) for e in extract(text) for m in e.matches]


def exact(found: list[Span], gold: list[Span]) -> list[Span]:
    """The gold spans found with their label and both offsets."""
    return sorted(set(found) & set(gold))


def overlapping(found: list[Span], gold: list[Span]) -> list[Span]:
    """The gold spans overlapped by a found span of the same label, each found span
    used once (left to right)."""
    unused = sorted(found, key=lambda span: (span[1], span[2]))
    hits = []
    for span in sorted(gold, key=lambda span: (span[1], span[2])):
        for other in unused:
            if other[0] == span[0] and other[1] < span[2] and span[1] < other[2]:
                unused.remove(other)
                hits.append(span)
                break
    return hits


def score(
    rows: list[tuple[str, list[Span]]], match: Callable[[list[Span], list[Span]], list[Span]]
) -> dict[str, Score]:
    """Per label and "overall"."""
    scores = {label: Score() for label in (*LABELS, "overall")}
    for text, gold in rows:
        found = predicted(text)
        for label, spans in (("found", found), ("gold", gold), ("hits", match(found, gold))):
            for span in spans:
                for key in (span[0], "overall"):
                    setattr(scores[key], label, getattr(scores[key], label) + 1)
    return scores


def speed(rows: list[tuple[str, list[Span]]]) -> tuple[float, float]:
    """(messages per second, characters per second) over whole rounds of the set."""
    texts = [text for text, _ in rows]
    characters = sum(map(len, texts))
    rounds, started = 0, time.perf_counter()
    while True:
        for text in texts:
            extract(text)
        rounds += 1
        elapsed = time.perf_counter() - started
        if elapsed >= SPEED_SECONDS:
            return rounds * len(texts) / elapsed, rounds * characters / elapsed


def entities() -> list[Row]:
    """F1 overall and per label (exact and partial), precision and recall in the notes;
    speed in messages and characters a second."""
    rows = load()
    extract("warm up the patterns")
    strict, loose = score(rows, exact), score(rows, overlapping)
    out = []
    for label in ("overall", *LABELS):
        s, p = strict[label], loose[label]
        if not s.gold and not s.found:
            continue
        note = (
            f"exact P {s.precision:.2f} R {s.recall:.2f} ({s.hits}/{s.found} found, "
            f"{s.hits}/{s.gold} gold); partial P {p.precision:.2f} R {p.recall:.2f} "
            f"F1 {p.f1:.2f}"
        )
        extra = {
            "exact": {"precision": s.precision, "recall": s.recall, "f1": s.f1},
            "partial": {"precision": p.precision, "recall": p.recall, "f1": p.f1},
            "found": s.found,
            "gold": s.gold,
        }
        out.append(
            Row(SECTION, f"{label} F1 (exact span and label)", "F1", s.f1, None, "", note, extra)
        )
    messages, characters = speed(rows)
    size = f"{len(rows)} gold messages"
    out.append(Row(SECTION, f"extraction speed, messages ({size})", "per s", messages))
    out.append(Row(SECTION, f"extraction speed, characters ({size})", "per s", characters))
    return out + write_cost()


def write_cost(turns: int = 200, filled: int = 1_000) -> list[Row]:
    """What storing entities costs a writer, side by side in one run: a turn of realistic
    length (bench.corpus: a question of about 280 characters, a reply of about 1,100)
    appended to the file store with and without extraction; and `fill_entities` over a
    session of `filled` such messages stored without them."""
    import tempfile

    from bench.corpus import conversation
    from zerda.store.files._store import SessionStore

    pairs = list(conversation(turns))
    with tempfile.TemporaryDirectory() as home:
        costs = {}
        for extracting in (False, True):
            store = SessionStore(Path(home) / str(extracting), extract_entities=extracting)
            store.append_turn("warm", "q", "a")
            started = time.perf_counter()
            for question, reply in pairs:
                store.append_turn("s", question, reply)
            costs[extracting] = (time.perf_counter() - started) / turns * 1000
        plain = SessionStore(Path(home) / "fill", extract_entities=False)
        for question, reply in conversation(filled // 2):
            plain.append_turn("s", question, reply)
        started = time.perf_counter()
        count = plain.fill_entities("s")
        rate = count / (time.perf_counter() - started)
    note = f"{turns} turns; extraction adds {costs[True] - costs[False]:.2f} ms a turn"
    return [
        Row(SECTION, "append a turn, extracting entities (file store)", "ms", costs[True],
            costs[False], "the same without", note),
        Row(SECTION, f"fill_entities over {count:,} stored messages (file store)", "per s", rate),
    ]  # fmt: skip


def report(rows: list[Row]) -> str:
    """The table `python -m bench.entities` prints."""
    lines = [
        f"{'label':<9} {'gold':>5} {'found':>5}  {'P':>5} {'R':>5} {'F1':>5}   "
        f"{'partial P':>9} {'R':>5} {'F1':>5}"
    ]
    for row in rows:
        if row.unit != "F1":
            continue
        exact_, partial, label = row.extra["exact"], row.extra["partial"], row.case.split()[0]
        lines.append(
            f"{label:<9} {row.extra['gold']:>5} {row.extra['found']:>5}  "
            f"{exact_['precision']:>5.2f} {exact_['recall']:>5.2f} {exact_['f1']:>5.2f}   "
            f"{partial['precision']:>9.2f} {partial['recall']:>5.2f} {partial['f1']:>5.2f}"
        )
    for row in rows:
        if row.unit == "per s" and row.zerda is not None:
            lines.append(f"{row.case}: {row.zerda:,.0f}/s")
        elif row.unit == "ms" and row.zerda is not None:
            lines.append(f"{row.case}: {row.zerda:.2f} ms ({row.peer_name}: {row.peer:.2f} ms)")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(entities()))
