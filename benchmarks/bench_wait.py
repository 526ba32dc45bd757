"""How soon `review wait` prints a review after it is sent (the issue's target: under 0.5 s).

    python benchmarks/bench_wait.py [--runs 10]

Each run starts `review wait` in a fresh demo worktree, sends a review from this process once the
waiter is watching, and times from the end of the send to the first byte the waiter prints.
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from review import demo
from review.repo import git
from review.repo.lines import FileReader, lines_of
from review.state import rounds
from review.state.comments import Where, add
from review.state.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    review = str(Path(sys.executable).parent / "review")
    with tempfile.TemporaryDirectory() as folder:
        made = demo.create(Path(folder) / "demo")
        path = made.agents["currency"]
        worktree = git.find_worktree(path)
        store = Store(path)
        delays = []
        for run in range(args.runs):
            waiter = subprocess.Popen([review, "wait", "--timeout", "60"], cwd=path, stdout=subprocess.PIPE)
            time.sleep(1.5)  # the waiter has started and is watching
            lines = lines_of((path / "tally/currency.py").read_bytes())
            add(store, Where("tally/currency.py", line=8), f"comment {run}", "should", lines)
            rounds.send(store, worktree, "comment", "", FileReader(worktree, None))
            sent = time.perf_counter()
            assert waiter.stdout is not None
            select.select([waiter.stdout], [], [], 30)
            delays.append(time.perf_counter() - sent)
            os.read(waiter.stdout.fileno(), 1 << 16)
            waiter.wait(timeout=30)
            # answer everything, so the next wait has to wait again
            for comment in store.read().comments:
                if comment.status == "open":
                    store.update(lambda r, id=comment.id: setattr(r.comment(id), "status", "addressed"))
    print(
        f"send -> wait output: median {statistics.median(delays) * 1000:.0f} ms, "
        f"max {max(delays) * 1000:.0f} ms over {len(delays)} runs   target < 500 ms"
    )


if __name__ == "__main__":
    main()
