"""The line protocol: reading commands, dispatching them to the engine facade, writing replies."""
