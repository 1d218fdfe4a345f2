"""The files of a match's output folder (``zengine match --out DIR``), named once.

The referee writes them (:mod:`tools.referee.runner`, :mod:`tools.referee.cluster`), ``--resume``
reads them back, and ``zengine report`` reads them to write its page; docs/referee.md lists
what each holds.
"""

from __future__ import annotations

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
PGN_FILE = "games.pgn"
SUMMARY_FILE = "summary.json"
STDERR_FILE = "engines-stderr.log"
TRAFFIC_FILE = "traffic.log"
LOCK_FILE = "lock"
PROCESS_FILE = "engines.pids"
#: The page of ``zengine report DIR``, also written at the end of a match.
REPORT_FILE = "report.html"
#: The files the referee keeps in the folder: each must be a regular file if it exists.
FOLDER_FILES = (
    CONFIG_FILE,
    GAMES_FILE,
    PGN_FILE,
    SUMMARY_FILE,
    STDERR_FILE,
    TRAFFIC_FILE,
    LOCK_FILE,
    PROCESS_FILE,
)
