"""Competition scoring: answer keys, submissions by id, task presets and a leaderboard."""
