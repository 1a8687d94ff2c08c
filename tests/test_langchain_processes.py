"""Eight processes, each running a RunnableWithMessageHistory loop on one session, lose nothing.

Each process is a real interpreter (subprocess) with its own store object on the same
home: half call `invoke`, half `ainvoke`, against an echo runnable, with and without a
memory spec. Afterwards the session holds every question and every reply, each reply
right after its question (a turn is one write), each process's turns in its order.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from zerda import SessionStore

PROCESSES = 8
TURNS = 20
LOOP = """
import asyncio, sys, warnings
warnings.simplefilter("ignore")
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory
from zerda import SessionStore
from zerda.integrations.langchain import ZerdaChatMessageHistory

home, worker, turns, memory = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
store = SessionStore(home, fsync=False)
echo = RunnableLambda(lambda value: f"echo {value['question']} after {len(value['history'])}")
chain = RunnableWithMessageHistory(
    echo,
    lambda session_id: ZerdaChatMessageHistory(session_id, store, memory=memory or None),
    input_messages_key="question",
    history_messages_key="history",
)
config = {"configurable": {"session_id": "shared"}}
questions = [f"p{worker}-{n}" for n in range(turns)]
if worker % 2:
    async def run():
        for question in questions:
            await chain.ainvoke({"question": question}, config)
    asyncio.run(run())
else:
    for question in questions:
        chain.invoke({"question": question}, config)
"""


@pytest.mark.parametrize("memory", ["", "summary:40"])
def test_eight_processes_lose_no_message(tmp_path: Path, memory: str) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", LOOP, str(tmp_path), str(worker), str(TURNS), memory],
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(PROCESSES)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    messages = SessionStore(tmp_path).get_memory("shared").messages
    assert len(messages) == 2 * PROCESSES * TURNS
    pairs = list(zip(messages[::2], messages[1::2], strict=True))
    for question, reply in pairs:
        assert (question.role, reply.role) == ("human", "ai")
        assert reply.content.startswith(f"echo {question.content} after ")
    for worker in range(PROCESSES):
        mine = [q.content for q, _ in pairs if q.content.startswith(f"p{worker}-")]
        assert mine == [f"p{worker}-{n}" for n in range(TURNS)]
