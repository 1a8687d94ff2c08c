"""zerda for other frameworks: each module needs its framework, installed with zerda's extra.

`zerda.integrations.langchain` (`pip install 'zerda[langchain]'`): a LangChain chat
message history on a zerda store. Importing `zerda` or this package imports no framework.
"""

# Its modules each need their framework: none is imported by `from zerda.integrations import *`.
__all__: list[str] = []
