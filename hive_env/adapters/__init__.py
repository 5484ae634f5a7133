"""Adapters of the engine to other RL APIs: ``gym`` (Gymnasium) and ``pettingzoo`` (AEC)."""
