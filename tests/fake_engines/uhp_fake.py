"""A fake UHP engine that misbehaves on ``bestmove``, for hardening tests
(tests/players/test_hostile_engines.py).

    python tests/fake_engines/uhp_fake.py MODE [ANY...]

It answers ``info`` (``id fake MODE ARGS-as-JSON`` and all three expansions) and ``newgame X``
(echoes ``X``) correctly; ``bestmove`` depends on MODE:

    stream     lines forever, as fast as it can, never ``ok``
    trickle    a line every 0.1 s forever, never ``ok``
    longline   one line of 1 MB
    garbage    ``zzz garbage``
    illegal    ``pass`` (never legal while other moves are)
    badbytes   invalid UTF-8 bytes, then ``ok``
    sleep      sleeps for an hour
    die        writes 50 long stderr lines and exits with status 3
    badinfo    (at start-up) an ``id`` line with invalid UTF-8, then as ``illegal``
    baseonly   (at start-up) no expansions, then as ``illegal``

Extra arguments are ignored (tests put a unique marker there to find the process).
"""

import json
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    out = sys.stdout.buffer

    def say(*lines: str) -> None:
        out.write("".join(line + "\n" for line in lines).encode())
        out.flush()

    if mode == "badinfo":
        out.write(b"id fake \xff\xfe\xfd\n")
        say("Mosquito;Ladybug;Pillbug", "ok")
        mode = "illegal"
    elif mode == "baseonly":
        say("id fake baseonly", "", "ok")
        mode = "illegal"
    else:
        say(f"id fake {mode} {json.dumps(sys.argv[2:])}", "Mosquito;Ladybug;Pillbug", "ok")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "exit":
            return
        if words[0] == "newgame":
            say(line.strip()[len("newgame"):].strip() or "Base;NotStarted;White[1]", "ok")
        elif words[0] != "bestmove":
            say("err unknown command", "ok")
        elif mode == "stream":
            while True:
                say("streaming " * 8)
        elif mode == "trickle":
            while True:
                say("still thinking")
                time.sleep(0.1)
        elif mode == "longline":
            out.write(b"x" * 1_000_000 + b"\n")
            say("ok")
        elif mode == "garbage":
            say("zzz garbage", "ok")
        elif mode == "illegal":
            say("pass", "ok")
        elif mode == "badbytes":
            out.write(b"\xff\xfe\x80 wS1 \xc3\n")
            say("ok")
        elif mode == "sleep":
            time.sleep(3600)
        elif mode == "die":
            for i in range(50):
                sys.stderr.write(f"fatal {i}: " + "E" * 5000 + "\n")
            sys.stderr.flush()
            sys.exit(3)


if __name__ == "__main__":
    main()
