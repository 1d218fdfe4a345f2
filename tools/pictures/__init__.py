"""Pictures of games and matches: `zengine svg` (a position) and `zengine report` (a match page)."""
