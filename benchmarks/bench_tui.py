"""The viewer in a real pseudo-terminal: time to the first screen with diff content, per-key
latency, time to toggle split/unified, and peak memory, on a large synthetic repository.

    python benchmarks/bench_tui.py [--files 500 --lines 200 --changed 0.5] [--size 120x40]

The first screen is timed against the smallest Textual app, started the same way in the same
run. A key's latency is the time from writing it to the terminal until the program's output has
been quiet for a moment (the screen has settled, highlighting included), minus that moment.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import termios
import time
from pathlib import Path

from review.repo import git, scope
from synthetic import cached_worktree

QUIET = 0.06
"""Seconds without output after which the screen counts as settled."""


class Program:
    """A program running in a pseudo-terminal of a given size."""

    def __init__(self, argv: list[str], size: tuple[int, int]) -> None:
        self.started = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:
            os.environ["TERM"] = "xterm-256color"
            os.execvp(argv[0], argv)
        self.pid, self.fd = pid, fd
        width, height = size
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        self.output = bytearray()

    def read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 1 << 16)
        except OSError:
            return False
        self.output += chunk
        return bool(chunk)

    def wait_for(self, marker: bytes, timeout: float = 60.0) -> float:
        """Seconds from start until `marker` appears in the output."""
        deadline = time.perf_counter() + timeout
        while marker not in self.output:
            if time.perf_counter() > deadline:
                raise SystemExit(f"{marker!r} never appeared")
            self.read(0.5)
        return time.perf_counter() - self.started

    def settle(self) -> float:
        """Read until the output is quiet; the time of the last byte."""
        last = time.perf_counter()
        while self.read(QUIET):
            last = time.perf_counter()
        return last

    def press(self, key: bytes) -> float:
        """Seconds from writing `key` to the screen settling."""
        self.settle()
        sent = time.perf_counter()
        os.write(self.fd, key)
        # at least the first byte of the answer must arrive
        self.read(5.0)
        return self.settle() - sent

    def peak_memory_mb(self) -> float:
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        os.kill(self.pid, signal.SIGTERM)
        try:
            while self.read(0.2):
                pass
        finally:
            os.waitpid(self.pid, 0)
            os.close(self.fd)


def first_paint(argv: list[str], marker: bytes, size: tuple[int, int]) -> tuple[float, Program]:
    program = Program(argv, size)
    return program.wait_for(marker), program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--changed", type=float, default=0.5)
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--runs", type=int, default=5, help="first-paint runs of each program")
    parser.add_argument("--presses", type=int, default=40, help="presses of each key")
    args = parser.parse_args()
    size = tuple(int(n) for n in args.size.split("x"))
    assert len(size) == 2

    path = cached_worktree(args.files, args.lines, args.changed)
    _, diff = scope.load(git.find_worktree(path), scope.Scope())
    print(f"diff: {len(diff.files)} files, {diff.added + diff.removed:,} changed lines; terminal {args.size}")
    first = diff.files[0].path.encode()
    review = str(Path(sys.executable).parent / "review")
    minimal = [sys.executable, str(Path(__file__).parent / "minimal_app.py")]

    baseline, app = [], []
    for _ in range(args.runs):
        seconds, program = first_paint(minimal, b"minimal-app-ready", size)
        baseline.append(seconds)
        program.stop()
        seconds, program = first_paint([review, str(path)], first, size)
        app.append(seconds)
        program.stop()
    base, ours = statistics.median(baseline), statistics.median(app)
    print(f"first screen, minimal Textual app:   {base * 1000:7.0f} ms (median of {args.runs})")
    print(f"first screen with diff content:       {ours * 1000:7.0f} ms = {ours / base:.2f}x   target < 3x")

    _, program = first_paint([review, str(path)], first, size)
    program.settle()
    keys = {"page down (space)": b" ", "next hunk (])": b"]", "next file (})": b"}"}
    for name, key in keys.items():
        program.press(b"g")
        times = [program.press(key) for _ in range(args.presses)]
        # and deep in the diff: from the bottom back up, then forward again
        program.press(b"G")
        back = {b" ": b"b", b"]": b"[", b"}": b"{"}[key]
        times += [program.press(back) for _ in range(args.presses // 2)]
        times += [program.press(key) for _ in range(args.presses // 2)]
        print(
            f"{name:<22} median {statistics.median(times) * 1000:6.1f} ms, "
            f"90th percentile {sorted(times)[int(len(times) * 0.9)] * 1000:6.1f} ms   target < 30 ms"
        )
    program.press(b"g")
    for _ in range(8):
        program.press(b" ")
    toggles = [program.press(b"s") for _ in range(10)]
    print(f"toggle split/unified   median {statistics.median(toggles) * 1000:6.1f} ms   target < 100 ms")
    print(f"peak memory of review: {program.peak_memory_mb():.0f} MB   target < 250 MB")
    program.stop()


if __name__ == "__main__":
    main()
