"""How fast the diff model is ready and how much memory it takes, on a large synthetic repository.

    python benchmarks/bench_model.py [--files 500 --lines 200 --changed 0.5]

Prints the time git takes to produce the diff, the time from git's output to the file list, the
peak memory of that step against the size of the diff text, and the same for parsing every file's
hunks (which the viewer only does for what the reviewer looks at). The repository is generated
once per set of parameters under benchmarks/.cache/.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

from review.repo import git, scope
from review.repo.diff import parse
from synthetic import cached_worktree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--changed", type=float, default=0.5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    path = cached_worktree(args.files, args.lines, args.changed)
    worktree = git.find_worktree(path)
    sides = scope.resolve(worktree, scope.Scope())

    git_times, parse_times = [], []
    for _ in range(args.repeat):
        started = time.perf_counter()
        output = git.diff_output(worktree, sides.old, sides.new, untracked=sides.untracked)
        git_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        model = parse(output)
        parse_times.append(time.perf_counter() - started)

    tracemalloc.start()
    model = parse(output)
    list_bytes, list_peak = tracemalloc.get_traced_memory()
    started = time.perf_counter()
    for file in model.files:
        _ = file.hunks  # parsing is lazy: asking is what parses
    hunks_time = time.perf_counter() - started
    all_bytes, all_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    size = len(output)
    changed_lines = model.added + model.removed
    print(f"diff: {len(model.files)} files, {changed_lines:,} changed lines, {size / 1e6:.1f} MB of git output")
    print(f"git diff (median of {args.repeat}):         {statistics.median(git_times) * 1000:8.1f} ms")
    print(f"file list ready after git (median):  {statistics.median(parse_times) * 1000:8.1f} ms   target < 200 ms")
    # The model holds git's output itself (1x) plus what it built on top of it.
    print(
        f"model memory, file list:             {(size + list_bytes) / 1e6:8.1f} MB "
        f"({(size + list_bytes) / size:.2f}x the diff text, peak {(size + list_peak) / size:.2f}x)   target < 3x"
    )
    print(f"parse every file's hunks:            {hunks_time * 1000:8.1f} ms")
    print(
        f"model memory, every file parsed:     {(size + all_bytes) / 1e6:8.1f} MB "
        f"({(size + all_bytes) / size:.2f}x the diff text, peak {(size + all_peak) / size:.2f}x)"
    )


if __name__ == "__main__":
    main()
