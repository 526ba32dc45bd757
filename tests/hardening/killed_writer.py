"""Writers that are there to be killed: each changes a review as fast as it can, through the
functions the verbs call, and says on stdout when each write has returned.

    python killed_writer.py

For each line `ROOT RUN SEED` read on stdin it forks a writer (forked, so that a run costs no
start of Python), prints `pid PID`, and once that writer is gone, `ended STATUS` (its wait status).
The writer prints `ready`, then for each write `begin` before it and, once `Store.update` has
returned (the write is acknowledged), what it wrote: `comment c3 BODY`, `note n2 BODY` or
`reply c3 BODY`. Bodies are unique across runs (`r7w12`), so the test can look each one up. A
writer writes until it is killed.
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from pathlib import Path

from review.state import comments, notes
from review.state.comments import Where
from review.state.store import Store

LINES = [f"line {n}\n" for n in range(1, 41)]
"""The file the comments are written on: anchoring them reads these lines as the verbs read a file's."""


def main() -> None:
    for order in sys.stdin:
        root, run, seed = order.split()
        go, told = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(told)
            os.read(go, 1)  # the pid is said before anything the writer says
            try:
                write(Path(root), run, random.Random(int(seed)))
            except BaseException:
                traceback.print_exc()
            os._exit(1)
        os.close(go)
        say(f"pid {pid}")
        os.close(told)
        _, status = os.waitpid(pid, 0)
        say(f"ended {status}")


def write(root: Path, run: str, chance: random.Random) -> None:
    store = Store(root)
    ids = [comment.id for comment in store.read().comments]
    say("ready")
    written = 0
    while True:
        body = f"r{run}w{written}"
        written += 1
        kind = chance.choices(("comment", "note", "reply"), weights=(45, 20, 35))[0] if ids else "comment"
        line = chance.randint(1, len(LINES))
        say("begin")
        if kind == "comment":
            made = comments.add(store, Where("src/app.py", line=line), body, "should", LINES)
            ids.append(made.id)
            say(f"comment {made.id} {body}")
        elif kind == "note":
            made = notes.add(store, Where("src/app.py", line=line), body, LINES)
            ids.append(made.id)
            say(f"note {made.id} {body}")
        else:
            target = chance.choice(ids)
            comments.reply(store, target, "agent", body)
            say(f"reply {target} {body}")


def say(line: str) -> None:
    # One write to the pipe, made at once: a line in the pipe outlives the writer, so the test
    # reads every acknowledgement made before the kill, and a kill never leaves half a line.
    os.write(sys.stdout.fileno(), f"{line}\n".encode())


if __name__ == "__main__":
    main()
