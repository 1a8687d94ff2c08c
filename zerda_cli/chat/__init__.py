"""`zerda chat`: the command (`command`, its options in `options`), the REPL (`repl`, with
its slash `commands`, `view`, `prompts`, `editor`), the piped loop (`piped`), the
backends that answer (`backends`) and the memory that picks each request's context
(`memory`). Heavy modules load only once the chat starts."""
