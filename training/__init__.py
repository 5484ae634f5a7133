"""Search, self-play, replay, trainer, checkpoints and arena (to come)."""
