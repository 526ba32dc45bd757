"""The viewer on hostile large inputs, in a real pseudo-terminal: how long the complete first
screen takes and how much memory the viewer holds at its peak, and how fast it answers keys while
the agent rewrites a file every 50 ms.

    python benchmarks/bench_hostile.py [--size 120x40] [--runs 3] [--skip expand,churn]

Cases, each a repository made once under benchmarks/.cache/hostile-*:
  100 MB file       an untracked file of a million lines (one line "Too large to show here";
                    enter says so instead of showing it)
  1 MB line         an untracked file of one line of a million characters
  100,000 files     a branch that changes a line in each of 100,000 files (`--range main..agent`)
  10,000 untracked  10,000 new files in 20 folders
  churn             a file rewritten every 50 ms (truncated, then written) while the viewer is open

Times are read from the pty to the last byte of output, as bench_tui does (the complete first
screen is the last byte before 0.5 s of quiet), beside the smallest Textual app started the same
way. Peak memory is the kernel's high-water mark of the viewer's process (VmHWM).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bench_tui import KEY_QUIET, REVIEW, SCREEN_QUIET, Program, first_screens, p90
from synthetic import CACHE

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}

BIG_LINE = b'x = "' + b"a" * 90 + b'"\n'
SPLIT = "│".encode()
"""The split view's middle border: drawn when `s` has been answered."""


def git(root: Path, *args: str, input: bytes | None = None) -> None:
    subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=root, input=input, env=ENV, check=True)


def made_once(name: str, make: Callable[[Path], None]) -> Path:
    """The repository `name` under the cache, made by `make(root)` the first time."""
    root = CACHE / f"hostile-{name}"
    if not (root / ".made").exists():
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        git(root, "init", "--quiet")
        make(root)
        (root / ".git" / "info" / "exclude").write_text(".made\n")
        (root / ".made").write_text("")
    return root


def _with_base(root: Path) -> None:
    (root / "README.md").write_text("# hostile\n")
    git(root, "add", "README.md")
    git(root, "commit", "--quiet", "-m", "base")
    git(root, "checkout", "--quiet", "-b", "agent")


def big_file(root: Path) -> None:
    _with_base(root)
    (root / "huge.txt").write_bytes(BIG_LINE * (100_000_000 // len(BIG_LINE)))


def long_line(root: Path) -> None:
    _with_base(root)
    (root / "one-line.txt").write_bytes(b"y" * 1_000_000 + b"\n")


def many_files(root: Path, count: int = 100_000) -> None:
    """main and agent, each of `count` files, every file changed by one line: git fast-import."""

    def commit(ref: str, mark: int, blob: int, parent: int | None) -> bytes:
        head = f"commit {ref}\nmark :{mark}\ncommitter B <b@example.com> 1767268800 +0000\ndata 1\n{mark}\n"
        head += f"from :{parent}\n" if parent else ""
        return head.encode() + b"".join(
            f"M 100644 :{blob} d{n // 1000:03}/f{n:06}.txt\n".encode() for n in range(count)
        )

    stream = b"blob\nmark :1\ndata 4\nold\nblob\nmark :2\ndata 4\nnew\n"
    stream += commit("refs/heads/main", 3, 1, None) + commit("refs/heads/agent", 4, 2, 3) + b"done\n"
    git(root, "fast-import", "--quiet", "--done", input=stream)


def untracked(root: Path) -> None:
    _with_base(root)
    for n in range(10_000):
        folder = root / "new" / f"d{n // 500:02}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"new_{n:05}.py").write_text(f"value_{n} = {n}\n")


CHURN_BODY = "".join(f"line_{n} = {n}\n" for n in range(40))


def churn_repo(root: Path) -> None:
    (root / "app.py").write_text("tick = 0\n" + CHURN_BODY)
    (root / "other.py").write_text("steady = 1\n")
    git(root, "add", "app.py", "other.py")
    git(root, "commit", "--quiet", "-m", "base")
    git(root, "checkout", "--quiet", "-b", "agent")
    (root / "other.py").write_text("steady = 2\n")


def answer(program: Program, key: bytes, marker: bytes, timeout: float = 30.0) -> float:
    """Seconds from writing `key` until `marker` is in the output after it."""
    start = len(program.output)
    sent = time.perf_counter()
    os.write(program.fd, key)
    deadline = sent + timeout
    while marker not in program.output[start:]:
        if time.perf_counter() > deadline:
            raise SystemExit(f"{key!r} was not answered with {marker!r}")
        program.read(0.05)
    return time.perf_counter() - sent


def expand(program: Program, keys: bytes, marker: bytes) -> float:
    """Seconds from `keys` (the last of them enter) to the last byte of the screen showing `marker`."""
    program.settle(KEY_QUIET)
    os.write(program.fd, keys[:-1])
    program.settle(KEY_QUIET)
    start = len(program.output)
    sent = time.perf_counter()
    os.write(program.fd, keys[-1:])
    program.wait_for(marker, timeout=120, start=start)
    return program.settle(SCREEN_QUIET) - sent


SGR = re.compile(rb"\x1b\[[\d;]*m")


def follows(program: Program, writes: list[int]) -> float:
    """Seconds from the latest write until the screen shows it (or a later one)."""
    written, since, start = writes[0], time.perf_counter(), len(program.output)
    while time.perf_counter() - since < 30:
        program.read(0.01)
        ticks = [int(n) for n in re.findall(rb"tick = (\d+)", SGR.sub(b"", bytes(program.output[start:])))]
        if ticks and max(ticks) >= written:
            return time.perf_counter() - since
    raise SystemExit(f"the write of tick {written} never showed")


def churn(path: Path, size: tuple[int, int], seconds: float, presses: int) -> None:
    """The viewer open while app.py is rewritten every 50 ms: key latency (`s`, to the split
    view's border), how long a write takes to show, resident memory at the start and the end,
    and the peak."""
    stop = threading.Event()
    writes = [0]

    def rewrite() -> None:
        while not stop.wait(0.05):
            writes[0] += 1
            (path / "app.py").write_text(f"tick = {writes[0]}\n" + CHURN_BODY)

    program = Program([REVIEW, str(path)], size)
    program.complete(b"other.py")
    writer = threading.Thread(target=rewrite, daemon=True)
    writer.start()
    try:
        time.sleep(1.0)
        before = program.memory_mb("VmRSS")
        times = []
        began = time.perf_counter()
        for _ in range(presses):
            times.append(answer(program, b"s", SPLIT))
            os.write(program.fd, b"s")  # back to unified, unmeasured: no marker tells it apart
            time.sleep(0.25)
        shown = []
        while time.perf_counter() - began < seconds:
            shown.append(follows(program, writes))
        after = program.memory_mb("VmRSS")
    finally:
        stop.set()
        writer.join()
        (path / "app.py").write_text("tick = 0\n" + CHURN_BODY)
    print(
        f"churn ({writes[0]} writes in {time.perf_counter() - began:.0f} s): key s median "
        f"{statistics.median(times) * 1000:.0f} ms, p90 {p90(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms; "
        f"a write on screen after median {statistics.median(shown) * 1000:.0f} ms, "
        f"p90 {p90(shown) * 1000:.0f} ms ({len(shown)} writes followed); "
        f"resident {before:.0f} → {after:.0f} MB, peak {program.memory_mb():.0f} MB"
    )
    program.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--runs", type=int, default=3, help="first-screen runs of each case")
    parser.add_argument("--presses", type=int, default=20, help="presses of s while churning")
    parser.add_argument("--churn", type=float, default=10.0, help="seconds of churn")
    parser.add_argument("--skip", default="", help="parts to leave out: expand,churn")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    size = (width, height)
    skip = set(args.skip.split(","))
    print(f"terminal {args.size}; times to the last byte of output; bare = one Static in a Textual app")

    cases = [
        # name, repository, arguments, marker of the complete screen, keys that open it, its marker
        ("100 MB file", made_once("big-file", big_file), [], b"Too large to show", b"j\r", b"is too large"),
        ("1 MB line", made_once("long-line", long_line), [], b"Large change", b"j\r", b"y" * 40),
        ("100,000 files", made_once("many-files", many_files), ["--range", "main..agent"], b"f000000.txt", None, None),
        ("10,000 untracked", made_once("untracked", untracked), [], b"value_0", None, None),
    ]
    for name, path, extra, marker, keys, shown in cases:
        argv = [REVIEW, *extra, str(path)]
        screens = first_screens(argv, marker, size, args.runs)
        program = Program(argv, size)
        program.complete(marker)
        peak = program.memory_mb()
        line = f"{name:<17} complete first screen: {screens}; peak memory {peak:4.0f} MB"
        if keys is not None and shown is not None and "expand" not in skip:
            took = expand(program, keys, shown)
            line += f"; enter answered in {took * 1000:,.0f} ms, peak then {program.memory_mb():,.0f} MB"
        elif "100,000" in name:
            took = answer(program, b"G", b"f099999.txt")
            line += f"; G to the last file {took * 1000:,.0f} ms"
        print(line)
        program.stop()
    if "churn" not in skip:
        churn(made_once("churn", churn_repo), size, args.churn, args.presses)


if __name__ == "__main__":
    main()
