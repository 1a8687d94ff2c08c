"""`zerda browse`: a full-screen browser of the history (prompt-toolkit), in three parts:
`rows` (what the lists and the transcript show, from the store, terminal-safe), `screen`
(the Application: layout, keys, prompts) and `command` (the Typer command)."""
