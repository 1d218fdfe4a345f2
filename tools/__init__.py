"""The tools around the engine: the referee (`referee/`), pictures (`pictures/`), developer tools
(`dev/`) and the engine's own commands (`engine_commands`). Nothing here imports the protocol."""
