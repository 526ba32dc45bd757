"""The overview at scale: 50 agents' worktrees of 2,000 changed lines each.

    python benchmarks/bench_overview.py [--worktrees 50] [--size 160x48]

Prints the time of `review status --json`; the overview's complete first screen (`review all`,
to the last byte of output before it is quiet for 0.5 s, read from the pty) against the smallest
Textual app started the same way; the time from an agent's edit to the row showing it; and the
overview's peak memory. The repository comes from `synthetic.fleet`: each worktree changes files
of its own and a few lines of a shared file, so 225 pairs overlap and 40 conflict.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_tui import Program
from review.overview.live import GAP
from synthetic import CACHE, fleet

QUIET = 0.5
"""Seconds without output after which the first screen counts as complete."""


def cached_fleet(worktrees: int) -> Path:
    """The fleet's main worktree, generated once under benchmarks/.cache/."""
    folder = CACHE / f"fleet-{worktrees}"
    if not (folder / f"agent-{worktrees}").exists():
        shutil.rmtree(folder, ignore_errors=True)
        fleet(folder, worktrees=worktrees)
        # As in a worktree an agent has used for a while: the index is newer than the files,
        # so git need not hash every file again to know it is unchanged.
        time.sleep(1.1)
        for path in [folder / "repo", *sorted(folder.glob("agent-*"))]:
            subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=path, capture_output=True, check=False)
    return folder / "repo"


def complete_screen(argv: list[str], marker: bytes, size: tuple[int, int]) -> tuple[float, Program]:
    """Seconds to the last byte of output before the program is quiet, once `marker` is shown."""
    program = Program(argv, size)
    program.wait_for(marker)
    last = program.started
    while True:
        if program.read(QUIET):
            last = time.perf_counter()
        else:
            return last - program.started, program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worktrees", type=int, default=50)
    parser.add_argument("--size", default="160x48")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    size = (width, height)

    repo = cached_fleet(args.worktrees)
    review = str(Path(sys.executable).parent / "review")
    minimal = [sys.executable, str(Path(__file__).parent / "minimal_app.py")]
    # Each figure twice: with no trial merges remembered (a first run), and with those of the
    # run before (the overview opened again, a script polling status).
    remembered = tempfile.mkdtemp(prefix="review-bench-cache-")
    status: dict[bool, list[float]] = {False: [], True: []}
    screen: dict[bool, list[float]] = {False: [], True: []}
    baseline = []
    for _ in range(args.runs):
        seconds, program = complete_screen(minimal, b"minimal-app-ready", size)
        baseline.append(seconds)
        program.stop()
        for warm in (False, True):
            os.environ["XDG_CACHE_HOME"] = remembered if warm else tempfile.mkdtemp(prefix="review-bench-cold-")
            began = time.perf_counter()
            out = subprocess.run([review, "status", "--json", str(repo)], capture_output=True, check=True).stdout
            status[warm].append(time.perf_counter() - began)
            if not warm:
                os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="review-bench-cold-")
            seconds, program = complete_screen([review, "all", str(repo)], b"Waiting on you", size)
            screen[warm].append(seconds)
            program.stop()
    rows = json.loads(out)["worktrees"]
    overlaps = sum(len(row["overlaps"]) for row in rows) // 2
    conflicts = sum(bool(o["conflict"]) for row in rows for o in row["overlaps"]) // 2
    changed = statistics.median(row["added"] + row["removed"] for row in rows[1:])
    print(
        f"{len(rows)} worktrees, {changed:,.0f} changed lines each, {overlaps} overlapping pairs, {conflicts} conflicting"
    )
    base = statistics.median(baseline)
    print(f"complete first screen, bare Textual:   {base * 1000:6.0f} ms (medians of {args.runs})")
    for warm, says in ((False, "first run"), (True, "merges remembered")):
        ours = statistics.median(screen[warm])
        print(f"{says}:")
        print(
            f"  review status --json:                {statistics.median(status[warm]) * 1000:6.0f} ms   target < 1000 ms"
        )
        print(f"  complete first screen, overview:     {ours * 1000:6.0f} ms = {ours / base:.2f}x   target < 1000 ms")

    # The agent of the worktree under the cursor (the first that waits on the reviewer) edits a
    # file: the time until the screen shows the new size. Each edit adds a number of lines that
    # makes a count no other row shows; the cursor stays on the worktree wherever its row goes.
    waiting = [row for row in rows if row["waits_on"] == "reviewer"]
    first = min(waiting, key=lambda row: row["waiting_since"] or "")
    agent = Path(first["path"])
    target = sorted((agent / "src").glob("*/*.py"))[-1]
    original = target.read_text()
    added = first["added"]
    _, program = complete_screen([review, "all", str(repo)], b"Waiting on you", size)
    updates = []
    try:
        for round in range(5):
            extra = 7000 + 111 * round
            before = len(program.output)
            target.write_text(original + "".join(f"added_{n} = {round}\n" for n in range(extra)))
            written = time.perf_counter()
            marker = f"+{added + extra}".encode()
            deadline = written + 10
            while marker not in program.output[before:] and time.perf_counter() < deadline:
                program.read(0.02)
            updates.append(time.perf_counter() - written)
            program.settle()
            # an edit after a pause: edits closer together than live.GAP are read together
            time.sleep(GAP)
    finally:
        target.write_text(original)
    print("updates:", ", ".join(f"{seconds * 1000:.0f}" for seconds in updates), "ms")
    print(f"update after an edit:              {statistics.median(updates) * 1000:7.0f} ms (median)   target < 500 ms")
    print(f"peak memory of the overview:       {program.memory_mb():7.0f} MB")
    program.stop()


if __name__ == "__main__":
    main()
