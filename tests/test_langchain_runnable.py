"""langchain-core's RunnableWithMessageHistory tests, run against ZerdaChatMessageHistory.

Ported from langchain-ai/langchain, libs/core/tests/unit_tests/runnables/test_history.py
(commit 6221bee2e286dcb5f48eaaa49be993a4b5efe918). The adaptation:

- Every history is a `ZerdaChatMessageHistory` on a temporary zerda `SessionStore`
  instead of an `InMemoryChatMessageHistory` in a dict. The original's
  `assert store == {"1": InMemoryChatMessageHistory(messages=[...])}` becomes an
  assertion on what the store holds: `{session_id: messages}` read back through fresh
  history objects, so the messages are checked as persisted, not as held in memory.
- `test_using_custom_config_specs`: the factory keys sessions by (user_id,
  conversation_id); here that pair names the zerda session `<user_id>-<conversation_id>`.
- The async tests run with `asyncio.run` inside plain tests (zerda's suite has no async
  test plugin); their bodies are the original's.
- Left out: `test_get_input_schema_input_dict`, `test_get_output_schema` and
  `test_get_input_schema_input_messages`, which check the JSON schemas
  RunnableWithMessageHistory declares for its own input and output; no history is
  involved in them.
- `_RunnableLambdaWithRaiseError` keeps only `with_listeners` (the tests using it are
  sync), and `test_get_output_messages_with_value_error` matches the end of the error
  text ("Got False."), whose start changed case across langchain-core versions. Both
  tests also check what the session holds afterwards.
- RunnableWithMessageHistory warns that it is deprecated (langchain-core >= 1.3.3);
  the warning is silenced here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.runnables.base import RunnableBinding, RunnableLambda
from langchain_core.runnables.config import RunnableConfig
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_core.runnables.utils import ConfigurableFieldSpec, Input, Output

from zerda import SessionStore
from zerda.integrations.langchain import ZerdaChatMessageHistory

pytestmark = pytest.mark.filterwarnings(
    "ignore::langchain_core._api.deprecation.LangChainDeprecationWarning"
)


def held(store: SessionStore) -> dict[str, list[BaseMessage]]:
    """Every session of the store and its messages, read back from disk."""
    return {sid: ZerdaChatMessageHistory(sid, store).messages for sid in store.session_ids()}


def test_interfaces(store: SessionStore) -> None:
    history = ZerdaChatMessageHistory("s", store)
    history.add_message(SystemMessage(content="system"))
    history.add_user_message("human 1")
    history.add_ai_message("ai")
    history.add_message(HumanMessage(content="human 2"))
    assert str(history) == "System: system\nHuman: human 1\nAI: ai\nHuman: human 2"


def _get_get_session_history(store: SessionStore) -> Callable[..., ZerdaChatMessageHistory]:
    def get_session_history(session_id: str, **kwargs: Any) -> ZerdaChatMessageHistory:
        return ZerdaChatMessageHistory(session_id, store)

    return get_session_history


def _said(messages: list[BaseMessage]) -> str:
    return "you said: " + "\n".join(str(m.content) for m in messages if isinstance(m, HumanMessage))


def _said_with_input(input: dict[str, Any]) -> str:
    return "you said: " + "\n".join(
        [str(m.content) for m in input["history"] if isinstance(m, HumanMessage)] + [input["input"]]
    )


def test_input_messages(store: SessionStore) -> None:
    runnable = RunnableLambda(_said)
    get_session_history = _get_get_session_history(store)
    with_history = RunnableWithMessageHistory(runnable, get_session_history)
    config: RunnableConfig = {"configurable": {"session_id": "1"}}
    output = with_history.invoke([HumanMessage(content="hello")], config)
    assert output == "you said: hello"
    output = with_history.invoke([HumanMessage(content="good bye")], config)
    assert output == "you said: hello\ngood bye"
    output = [*with_history.stream([HumanMessage(content="hi again")], config)]
    assert output == ["you said: hello\ngood bye\nhi again"]
    assert held(store) == {
        "1": [
            HumanMessage(content="hello"),
            AIMessage(content="you said: hello"),
            HumanMessage(content="good bye"),
            AIMessage(content="you said: hello\ngood bye"),
            HumanMessage(content="hi again"),
            AIMessage(content="you said: hello\ngood bye\nhi again"),
        ]
    }


def test_input_messages_async(store: SessionStore) -> None:
    async def scenario() -> None:
        runnable = RunnableLambda(_said)
        get_session_history = _get_get_session_history(store)
        with_history = RunnableWithMessageHistory(runnable, get_session_history)
        config: RunnableConfig = {"configurable": {"session_id": "1_async"}}
        output = await with_history.ainvoke([HumanMessage(content="hello")], config)
        assert output == "you said: hello"
        output = await with_history.ainvoke([HumanMessage(content="good bye")], config)
        assert output == "you said: hello\ngood bye"
        chunks = [c async for c in with_history.astream([HumanMessage(content="hi again")], config)]
        assert chunks == ["you said: hello\ngood bye\nhi again"]
        assert held(store) == {
            "1_async": [
                HumanMessage(content="hello"),
                AIMessage(content="you said: hello"),
                HumanMessage(content="good bye"),
                AIMessage(content="you said: hello\ngood bye"),
                HumanMessage(content="hi again"),
                AIMessage(content="you said: hello\ngood bye\nhi again"),
            ]
        }

    asyncio.run(scenario())


def test_input_dict(store: SessionStore) -> None:
    runnable = RunnableLambda(lambda input: _said(input["messages"]))
    get_session_history = _get_get_session_history(store)
    with_history = RunnableWithMessageHistory(
        runnable, get_session_history, input_messages_key="messages"
    )
    config: RunnableConfig = {"configurable": {"session_id": "2"}}
    output = with_history.invoke({"messages": [HumanMessage(content="hello")]}, config)
    assert output == "you said: hello"
    output = with_history.invoke({"messages": [HumanMessage(content="good bye")]}, config)
    assert output == "you said: hello\ngood bye"


def test_input_dict_async(store: SessionStore) -> None:
    async def scenario() -> None:
        runnable = RunnableLambda(lambda input: _said(input["messages"]))
        get_session_history = _get_get_session_history(store)
        with_history = RunnableWithMessageHistory(
            runnable, get_session_history, input_messages_key="messages"
        )
        config: RunnableConfig = {"configurable": {"session_id": "2_async"}}
        output = await with_history.ainvoke({"messages": [HumanMessage(content="hello")]}, config)
        assert output == "you said: hello"
        output = await with_history.ainvoke(
            {"messages": [HumanMessage(content="good bye")]}, config
        )
        assert output == "you said: hello\ngood bye"

    asyncio.run(scenario())


def _with_history_key(runnable: Runnable[Any, Any], store: SessionStore, **keys: str) -> Any:
    return RunnableWithMessageHistory(
        runnable,
        _get_get_session_history(store),
        input_messages_key="input",
        history_messages_key="history",
        **keys,
    )


def test_input_dict_with_history_key(store: SessionStore) -> None:
    with_history = _with_history_key(RunnableLambda(_said_with_input), store)
    config: RunnableConfig = {"configurable": {"session_id": "3"}}
    output = with_history.invoke({"input": "hello"}, config)
    assert output == "you said: hello"
    output = with_history.invoke({"input": "good bye"}, config)
    assert output == "you said: hello\ngood bye"


def test_input_dict_with_history_key_async(store: SessionStore) -> None:
    async def scenario() -> None:
        with_history = _with_history_key(RunnableLambda(_said_with_input), store)
        config: RunnableConfig = {"configurable": {"session_id": "3_async"}}
        output = await with_history.ainvoke({"input": "hello"}, config)
        assert output == "you said: hello"
        output = await with_history.ainvoke({"input": "good bye"}, config)
        assert output == "you said: hello\ngood bye"

    asyncio.run(scenario())


def test_output_message(store: SessionStore) -> None:
    runnable = RunnableLambda(lambda input: AIMessage(content=_said_with_input(input)))
    with_history = _with_history_key(runnable, store)
    config: RunnableConfig = {"configurable": {"session_id": "4"}}
    output = with_history.invoke({"input": "hello"}, config)
    assert output == AIMessage(content="you said: hello")
    output = with_history.invoke({"input": "good bye"}, config)
    assert output == AIMessage(content="you said: hello\ngood bye")


def test_output_message_async(store: SessionStore) -> None:
    async def scenario() -> None:
        runnable = RunnableLambda(lambda input: AIMessage(content=_said_with_input(input)))
        with_history = _with_history_key(runnable, store)
        config: RunnableConfig = {"configurable": {"session_id": "4_async"}}
        output = await with_history.ainvoke({"input": "hello"}, config)
        assert output == AIMessage(content="you said: hello")
        output = await with_history.ainvoke({"input": "good bye"}, config)
        assert output == AIMessage(content="you said: hello\ngood bye")

    asyncio.run(scenario())


class LengthChatModel(BaseChatModel):
    """A fake chat model that returns the length of the messages passed in."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Top Level call"""
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(content=str(len(messages))))]
        )

    @property
    def _llm_type(self) -> str:
        return "length-fake-chat-model"


def test_input_messages_output_message(store: SessionStore) -> None:
    with_history = RunnableWithMessageHistory(LengthChatModel(), _get_get_session_history(store))
    config: RunnableConfig = {"configurable": {"session_id": "5"}}
    output = with_history.invoke([HumanMessage(content="hi")], config)
    assert output.content == "1"
    output = with_history.invoke([HumanMessage(content="hi")], config)
    assert output.content == "3"


def test_input_messages_output_message_async(store: SessionStore) -> None:
    async def scenario() -> None:
        with_history = RunnableWithMessageHistory(
            LengthChatModel(), _get_get_session_history(store)
        )
        config: RunnableConfig = {"configurable": {"session_id": "5_async"}}
        output = await with_history.ainvoke([HumanMessage(content="hi")], config)
        assert output.content == "1"
        output = await with_history.ainvoke([HumanMessage(content="hi")], config)
        assert output.content == "3"

    asyncio.run(scenario())


def test_output_messages(store: SessionStore) -> None:
    runnable = RunnableLambda(lambda input: [AIMessage(content=_said_with_input(input))])
    with_history = _with_history_key(runnable, store)
    config: RunnableConfig = {"configurable": {"session_id": "6"}}
    output = with_history.invoke({"input": "hello"}, config)
    assert output == [AIMessage(content="you said: hello")]
    output = with_history.invoke({"input": "good bye"}, config)
    assert output == [AIMessage(content="you said: hello\ngood bye")]


def test_output_messages_async(store: SessionStore) -> None:
    async def scenario() -> None:
        runnable = RunnableLambda(lambda input: [AIMessage(content=_said_with_input(input))])
        with_history = _with_history_key(runnable, store)
        config: RunnableConfig = {"configurable": {"session_id": "6_async"}}
        output = await with_history.ainvoke({"input": "hello"}, config)
        assert output == [AIMessage(content="you said: hello")]
        output = await with_history.ainvoke({"input": "good bye"}, config)
        assert output == [AIMessage(content="you said: hello\ngood bye")]

    asyncio.run(scenario())


def test_output_dict(store: SessionStore) -> None:
    runnable = RunnableLambda(
        lambda input: {"output": [AIMessage(content=_said_with_input(input))]}
    )
    with_history = _with_history_key(runnable, store, output_messages_key="output")
    config: RunnableConfig = {"configurable": {"session_id": "7"}}
    output = with_history.invoke({"input": "hello"}, config)
    assert output == {"output": [AIMessage(content="you said: hello")]}
    output = with_history.invoke({"input": "good bye"}, config)
    assert output == {"output": [AIMessage(content="you said: hello\ngood bye")]}


def test_output_dict_async(store: SessionStore) -> None:
    async def scenario() -> None:
        runnable = RunnableLambda(
            lambda input: {"output": [AIMessage(content=_said_with_input(input))]}
        )
        with_history = _with_history_key(runnable, store, output_messages_key="output")
        config: RunnableConfig = {"configurable": {"session_id": "7_async"}}
        output = await with_history.ainvoke({"input": "hello"}, config)
        assert output == {"output": [AIMessage(content="you said: hello")]}
        output = await with_history.ainvoke({"input": "good bye"}, config)
        assert output == {"output": [AIMessage(content="you said: hello\ngood bye")]}

    asyncio.run(scenario())


def _custom_config_history(store: SessionStore) -> Any:
    def _fake_llm(input: dict[str, Any]) -> list[BaseMessage]:
        return [AIMessage(content=_said(input["messages"]))]

    def get_session_history(user_id: str, conversation_id: str) -> ZerdaChatMessageHistory:
        return ZerdaChatMessageHistory(f"{user_id}-{conversation_id}", store)

    return RunnableWithMessageHistory(
        RunnableLambda(_fake_llm),
        get_session_history=get_session_history,
        input_messages_key="messages",
        history_messages_key="history",
        history_factory_config=[
            ConfigurableFieldSpec(
                id="user_id",
                annotation=str,
                name="User ID",
                description="Unique identifier for the user.",
                default="",
                is_shared=True,
            ),
            ConfigurableFieldSpec(
                id="conversation_id",
                annotation=str,
                name="Conversation ID",
                description="Unique identifier for the conversation.",
                default=None,
                is_shared=True,
            ),
        ],
    )


def test_using_custom_config_specs(store: SessionStore) -> None:
    """Test that we can configure which keys should be passed to the session factory."""
    with_message_history = _custom_config_history(store)
    result = with_message_history.invoke(
        {"messages": [HumanMessage(content="hello")]},
        {"configurable": {"user_id": "user1", "conversation_id": "1"}},
    )
    assert result == [AIMessage(content="you said: hello")]
    assert held(store) == {
        "user1-1": [HumanMessage(content="hello"), AIMessage(content="you said: hello")]
    }

    result = with_message_history.invoke(
        {"messages": [HumanMessage(content="goodbye")]},
        {"configurable": {"user_id": "user1", "conversation_id": "1"}},
    )
    assert result == [AIMessage(content="you said: goodbye")]
    assert held(store) == {
        "user1-1": [
            HumanMessage(content="hello"),
            AIMessage(content="you said: hello"),
            HumanMessage(content="goodbye"),
            AIMessage(content="you said: goodbye"),
        ]
    }

    result = with_message_history.invoke(
        {"messages": [HumanMessage(content="meow")]},
        {"configurable": {"user_id": "user2", "conversation_id": "1"}},
    )
    assert result == [AIMessage(content="you said: meow")]
    assert held(store) == {
        "user1-1": [
            HumanMessage(content="hello"),
            AIMessage(content="you said: hello"),
            HumanMessage(content="goodbye"),
            AIMessage(content="you said: goodbye"),
        ],
        "user2-1": [HumanMessage(content="meow"), AIMessage(content="you said: meow")],
    }


def test_using_custom_config_specs_async(store: SessionStore) -> None:
    """Test that we can configure which keys should be passed to the session factory."""

    async def scenario() -> None:
        with_message_history = _custom_config_history(store)
        result = await with_message_history.ainvoke(
            {"messages": [HumanMessage(content="hello")]},
            {"configurable": {"user_id": "user1_async", "conversation_id": "1_async"}},
        )
        assert result == [AIMessage(content="you said: hello")]
        assert held(store) == {
            "user1_async-1_async": [
                HumanMessage(content="hello"),
                AIMessage(content="you said: hello"),
            ]
        }

        result = await with_message_history.ainvoke(
            {"messages": [HumanMessage(content="goodbye")]},
            {"configurable": {"user_id": "user1_async", "conversation_id": "1_async"}},
        )
        assert result == [AIMessage(content="you said: goodbye")]
        assert held(store) == {
            "user1_async-1_async": [
                HumanMessage(content="hello"),
                AIMessage(content="you said: hello"),
                HumanMessage(content="goodbye"),
                AIMessage(content="you said: goodbye"),
            ]
        }

        result = await with_message_history.ainvoke(
            {"messages": [HumanMessage(content="meow")]},
            {"configurable": {"user_id": "user2_async", "conversation_id": "1_async"}},
        )
        assert result == [AIMessage(content="you said: meow")]
        assert held(store) == {
            "user1_async-1_async": [
                HumanMessage(content="hello"),
                AIMessage(content="you said: hello"),
                HumanMessage(content="goodbye"),
                AIMessage(content="you said: goodbye"),
            ],
            "user2_async-1_async": [
                HumanMessage(content="meow"),
                AIMessage(content="you said: meow"),
            ],
        }

    asyncio.run(scenario())


def test_ignore_session_id(store: SessionStore) -> None:
    """Test without config."""

    def _fake_llm(input: list[BaseMessage]) -> list[BaseMessage]:
        return [AIMessage(content=_said(input))]

    history = ZerdaChatMessageHistory("no-config", store)
    with_message_history = RunnableWithMessageHistory(RunnableLambda(_fake_llm), lambda: history)
    _ = with_message_history.invoke("hello")
    _ = with_message_history.invoke("hello again")
    assert len(history.messages) == 4


class _RunnableLambdaWithRaiseError(RunnableLambda[Input, Output]):
    """A RunnableLambda whose listeners raise their errors instead of logging them."""

    def with_listeners(
        self, *, on_start: Any = None, on_end: Any = None, on_error: Any = None
    ) -> Any:
        from langchain_core.tracers.root_listeners import RootListenersTracer

        def create_tracer(config: RunnableConfig) -> RunnableConfig:
            tracer = RootListenersTracer(
                config=config, on_start=on_start, on_end=on_end, on_error=on_error
            )
            tracer.raise_error = True
            return {"callbacks": [tracer]}

        return RunnableBinding(bound=self, config_factories=[create_tracer])


def test_get_output_messages_no_value_error(store: SessionStore) -> None:
    runnable = _RunnableLambdaWithRaiseError(_said)
    get_session_history = _get_get_session_history(store)
    with_history = RunnableWithMessageHistory(runnable, get_session_history)
    config: RunnableConfig = {
        "configurable": {"session_id": "1", "message_history": get_session_history("1")}
    }
    may_catch_value_error = None
    try:
        with_history.bound.invoke([HumanMessage(content="hello")], config)
    except ValueError as e:
        may_catch_value_error = e
    assert may_catch_value_error is None
    assert held(store) == {"1": [HumanMessage("hello"), AIMessage("you said: hello")]}


def test_get_output_messages_with_value_error(store: SessionStore) -> None:
    illegal_bool_message = False
    runnable = _RunnableLambdaWithRaiseError(lambda messages: illegal_bool_message)
    get_session_history = _get_get_session_history(store)
    with_history = RunnableWithMessageHistory(runnable, get_session_history)
    config: RunnableConfig = {
        "configurable": {"session_id": "1", "message_history": get_session_history("1")}
    }

    with pytest.raises(ValueError) as excinfo:
        with_history.bound.invoke([HumanMessage(content="hello")], config)
    excepted = f"Got {illegal_bool_message}."
    assert excepted in str(excinfo.value)

    illegal_int_message = 123
    runnable = _RunnableLambdaWithRaiseError(lambda messages: illegal_int_message)
    with_history = RunnableWithMessageHistory(runnable, get_session_history)

    with pytest.raises(ValueError) as excinfo:
        with_history.bound.invoke([HumanMessage(content="hello")], config)
    excepted = f"Got {illegal_int_message}."
    assert excepted in str(excinfo.value)
    assert held(store) == {}
