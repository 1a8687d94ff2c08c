"""`zerda chat`: the Typer command (`command`, its options in `options`), its settings
(`config`, from config.toml, the environment and the flags; their fixed values in
`choices`), the REPL (`repl`, with `view`, `prompts`, `editor`, and the slash commands:
their names and syntax in `slash_commands`, what they do in `slash_handlers`), the piped
loop (`piped`), the backends that answer (`backends`) and the memory that picks each
request's context (`memory`). Heavy modules load only once the chat starts."""
