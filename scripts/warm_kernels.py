"""``python -m scripts.warm_kernels``: compile every cached numba kernel ahead (``make setup``).

numba compiles a kernel at its first call and caches the result in the keyed cache directory
(``hive_env/_kernel_cache.py``); without this, a new user's first ``hive-perft``, ``hive-train``
or ``HiveVecEnv`` waits about a minute. Each kernel family runs once on tiny inputs: the engine
(perft), the vec env (serial and parallel steps), the tree search (serial and parallel
kernels), the classical players (greedy, alpha-beta), the numba inference backend (serial and
game-parallel), the packed backend (fp32 and bf16 buffers) and replay augmentation. A stamp file in the
cache directory marks it done, so a second run returns at once (until a kernel's source changes,
which starts a new cache directory). ``--force`` warms again.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from hive_env import compile_notice

STAMP = ".warmed"
"""File in the cache directory written after a complete warm-up."""
GAME_TYPE = "Base+MLP"  # kernels take the expansions as data: one game type compiles them all


def warm() -> None:
    """Run each kernel family once on tiny inputs (compiling and caching it)."""
    import numba
    import numpy as np

    from hive_env import Game
    from hive_env.encode import CHUNK, observe_batch_with_moves
    from hive_env.symmetry import N_SYMMETRIES
    from hive_env.vec_env import HiveVecEnv
    from players.registry import make_player
    from search.kernels import PARALLEL_MIN_GAMES
    from search.mcts import SearchConfig
    from search.network import uniform_evaluate
    from training.replay import augment_samples
    from training.selfplay import SelfPlay, SelfPlayConfig

    Game(GAME_TYPE).perft(2)
    rng = np.random.default_rng(0)
    threads = numba.get_num_threads()
    for batch in (1, 33):  # serial and parallel (prange) kernels
        numba.set_num_threads(max(2, threads) if batch > 1 else 1)
        env = HiveVecEnv(batch, GAME_TYPE, ply_cap=20)
        obs, _ = env.reset()
        for _ in range(3):
            pick = (rng.random(batch) * obs["n_legal"]).astype(np.int64)
            obs, *_ = env.step(obs["legal_actions"][np.arange(batch), pick])
    numba.set_num_threads(threads)
    game = Game(GAME_TYPE)
    for spec in ("random", "greedy", "alphabeta:depth=2"):
        player = make_player(spec)
        game.play(player.choose(game))
        player.close()
    for games in (1, PARALLEL_MIN_GAMES):  # serial and parallel search kernels
        selfplay = SelfPlay(SelfPlayConfig(games=games), SearchConfig(sims=4), GAME_TYPE, 6,
                            uniform_evaluate, seed=0)
        finished = []
        while not finished:  # the ply cap (6) ends every game soon
            finished = selfplay.step()
    samples = finished[0].samples
    observe_batch_with_moves(samples.board[:1])
    observe_batch_with_moves(np.repeat(samples.board[:1], CHUNK + 1, axis=0))  # the prange encoder
    augment_samples(samples, rng.integers(0, N_SYMMETRIES, len(samples)).astype(np.int64))
    from models.gnn import build_model
    from search.fastnet import PARALLEL_MIN_BATCH, FastNet

    fast = FastNet(build_model("tiny"))
    obs, _ = observe_batch_with_moves(samples.board[:1])
    fast(obs)
    fast(observe_batch_with_moves(np.repeat(samples.board[:1], PARALLEL_MIN_BATCH, axis=0))[0])
    from search.packednet import PackedNet

    batch = observe_batch_with_moves(np.repeat(samples.board[:1], 16, axis=0))[0]
    for precision in ("fp32", "bf16"):  # float32 and bfloat16 (uint16) GEMM buffers
        PackedNet(build_model("tiny"), precision)(batch)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warm_kernels", description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="warm again even when already done")
    args = parser.parse_args(argv)
    directory = compile_notice.cache_dir()
    stamp = directory / STAMP if directory is not None else None
    if stamp is not None and stamp.exists() and not args.force:
        print(f"kernels already compiled ({directory})")
        return 0
    os.environ[compile_notice.NOTICE_ENV] = "1"  # this line says it instead
    print(f"compiling the engine's kernels into {directory or 'numba default cache'} "
          "(once, one to two minutes)...", flush=True)
    start = time.perf_counter()
    warm()
    if stamp is not None:
        stamp.touch()
    print(f"kernels compiled in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
