"""The fixed values of `zerda chat`'s settings, for the options, the config check and
shell completion alike (kept free of imports, as every command loads it)."""

BACKENDS = ("manual", "command", "openai")
COMMAND_FORMATS = ("json", "text")
SUMMARIZERS = ("extractive", "model")
