"""Self-play training: workers, replay, trainer, checkpoints and the run loop.

Modules, in the direction data flows:

- ``selfplay``: batched self-play games with the search, recorded as samples
- ``replay``: atomic sample shards and windowed sampling with symmetry augmentation
- ``trainer``: network updates (AdamW, schedule, losses)
- ``checkpoint``: the checkpoint store the trainer publishes to and workers poll
- ``loop``: the run: self-play workers, the trainer, resume
- ``config``: the Hydra config -> typed settings, checked at start-up
- ``gating``: evaluation of checkpoints in the arena during training, and ``best.pt``
- ``model_card``: the card of a shipped network, from its run directory and ladders
- ``selfplay_records``: the game records of a network's self-play (the tactics suite's input)
"""
