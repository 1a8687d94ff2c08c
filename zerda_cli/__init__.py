"""The `zerda` command: a terminal chat-history manager over the zerda library."""
