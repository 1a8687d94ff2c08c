"""Commands with modules of their own (the short ones live in `zerda_cli.app`): each module
holds one command function (or a Typer group), registered by `zerda_cli.app`."""
