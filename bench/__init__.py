"""zerda's benchmarks beside LangChain's file history and llm's logs: `python -m bench`."""
