"""The referee: `zengine match` and everything it is made of (configuration, schedule, one game,
the engine client and process tree, records, statistics, live output, cluster, the output folder)."""
