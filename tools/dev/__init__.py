"""Developer tools: the evaluation tuner, the strength check and the openings builder."""
