"""The viewer in a real pseudo-terminal, against the smallest Textual app started the same way in
the same run: the complete first screen, keys, peak memory, live reload and the other ways in.

    python benchmarks/bench_tui.py [--sizes small,large,huge] [--size 120x40] [--runs 5]
                                   [--presses 30] [--skip entry,reload,memory]

Sizes: small (~1,000 changed lines), large (~130,000), huge (1,000,000 changed lines in 2,000
files), each a synthetic repository generated once under benchmarks/.cache/.

Every time is read from the pty directly, to the last byte of output: the complete first screen
is the time of the last byte before the program has been quiet for 0.5 s; a key's time is from
writing it to the last byte before 0.3 s of quiet (so a second frame that comes late, colours or
a file list, counts). Peak memory is the kernel's high-water mark of the process. With each
first screen comes the CPU the program and its children (git, the child that colours) had used
by its last byte: over the machine's cores, the least time that screen could take however its
work were shared between them. A screen far above that waits on its own steps, one after the
other; one near it waits on the machine.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import NamedTuple

from review.repo import git, scope
from review.state import counted
from synthetic import CACHE, cached_worktree

SIZES = {"small": (50, 20), "large": (650, 200), "huge": (2000, 500)}
"""Files and lines per file; half the lines of every file are rewritten."""

SCREEN_QUIET = 0.5
"""Seconds without output after which the first screen counts as complete."""
KEY_QUIET = 0.3
"""Seconds without output after which a key's answer counts as complete."""
GAP = 0.03
"""Output closer together than this (seconds) is one frame."""
SETUP_BYTES = 512
"""Less output than this before a first screen is Textual's terminal set-up, not a frame."""


class Program:
    """A program running in a pseudo-terminal of a given size."""

    def __init__(self, argv: list[str], size: tuple[int, int], cwd: Path | None = None) -> None:
        self.started = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:
            os.environ["TERM"] = "xterm-256color"
            # as installed: Python keeps each module compiled (a shell may have turned that off)
            os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
            if cwd is not None:
                os.chdir(cwd)
            os.execvp(argv[0], argv)
        self.pid, self.fd = pid, fd
        width, height = size
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        self.output = bytearray()
        self.arrivals: list[tuple[float, int]] = []
        """When each chunk of output arrived, and its length."""
        self.cpu_by_last_byte = float("nan")
        """The CPU seconds the program and its children had used when the last output of its
        first screen came (see `complete`)."""
        self._counting_cpu = False

    def read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 1 << 16)
        except OSError:
            return False
        self.arrivals.append((time.perf_counter(), len(chunk)))
        if self._counting_cpu:
            self.cpu_by_last_byte = cpu_seconds(self.pid)
        self.output += chunk
        return bool(chunk)

    def wait_for(self, marker: bytes, timeout: float = 60.0, start: int = 0) -> float:
        """Seconds from start until `marker` appears in the output (after byte `start`)."""
        deadline = time.perf_counter() + timeout
        while marker not in self.output[start:]:
            if time.perf_counter() > deadline:
                raise SystemExit(f"{marker!r} never appeared")
            self.read(0.5)
        return time.perf_counter() - self.started

    def settle(self, quiet: float = KEY_QUIET) -> float:
        """Read until the output has been quiet for `quiet`; the time of the last byte."""
        last = self.arrivals[-1][0] if self.arrivals else self.started
        while self.read(quiet):
            last = time.perf_counter()
        return last

    def complete(self, marker: bytes) -> float:
        """Seconds from start to the last byte before the program is quiet, once `marker` shows;
        the CPU used by then is `cpu_by_last_byte`."""
        self._counting_cpu = True
        try:
            self.wait_for(marker)
            return self.settle(SCREEN_QUIET) - self.started
        finally:
            self._counting_cpu = False

    def frames(self, since: float, *, setup: bool = False) -> int:
        """Bursts of output after `since`: one frame is output closer together than GAP. With
        `setup`, the output starts with the terminal set-up Textual writes as it starts (136
        bytes, sometimes in pieces more than GAP apart), which is no frame: bursts before the
        first of SETUP_BYTES or more are left out."""
        bursts: list[int] = []
        last = float("-inf")
        for at, size in self.arrivals:
            if at < since:
                continue
            if at - last > GAP:
                bursts.append(0)
            bursts[-1] += size
            last = at
        while setup and bursts and bursts[0] < SETUP_BYTES:
            bursts.pop(0)
        return len(bursts)

    def press(self, key: bytes) -> tuple[float, int] | None:
        """Seconds from writing `key` to the last byte of its answer, and the frames it took;
        None when the key drew nothing."""
        self.settle()
        sent = time.perf_counter()
        os.write(self.fd, key)
        if not self.read(1.0):
            return None
        return self.settle() - sent, self.frames(sent)

    def memory_mb(self, field: str = "VmHWM") -> float:
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith(f"{field}:"):
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


_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The CPU seconds a process has used, with those of its children, running or ended (as far
    as the kernel has counted them, to a tick): what the machine's cores gave it. Read as each
    chunk of a first screen arrives, a few reads of /proc: nothing beside the program's own work."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            # after the command's name, which may hold spaces: utime stime cutime cstime
            fields = stat.read().rpartition(")")[2].split()
        ticks = sum(int(field) for field in fields[11:15])
        children = []
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                children += listed.read().split()
    except (OSError, ValueError):
        return 0.0
    return ticks / _TICKS + sum(cpu_seconds(int(child)) for child in children)


REVIEW = str(Path(sys.executable).parent / "review")
BARE = [sys.executable, str(Path(__file__).parent / "minimal_app.py")]


FIRST_OPENING = ("counts", "colours")
"""What review remembers of a diff (`review.state.counted`, `review.state.colours`): emptied, the
diff is opened for the first time. The program's own caches stay, as its compiled modules do."""
FIRST_RUN = (*FIRST_OPENING, "css", "syntax")
"""And what review remembers of Textual's CSS and Pygments' styles, made once for an install
(`review.tui.parsed_css`, `review.tui.syntax_styles`): emptied, review runs for the first time."""


class Screens(NamedTuple):
    """The complete first screens of the bare app and of review, run in turns."""

    bare: float
    """The bare app's median, in seconds."""
    ours: float
    """review's median, in seconds."""
    frames: int
    """The most frames review's first screen took."""
    paired: float
    """The median of each run's ratio, review to the bare app run just before it: on a machine
    whose speed drifts within a run (a virtual one), it keeps the slow moments of one program
    from being set against the fast ones of the other."""
    bare_cpu: float
    ours_cpu: float
    """The CPU seconds each used, with its children (git, the child that colours), by the last
    byte of its first screen (medians): review's, over the machine's cores, is the least time
    its first screen could take, however its work were shared out."""

    def __str__(self) -> str:
        cores = os.cpu_count() or 1
        return (
            f"bare {self.bare * 1000:5.0f} ms, review {self.ours * 1000:5.0f} ms = {self.ours / self.bare:.2f}x"
            f" (run by run {self.paired:.2f}x); CPU by then: bare {self.bare_cpu * 1000:.0f} ms,"
            f" review {self.ours_cpu * 1000:.0f} ms, over {cores} cores at least {self.ours_cpu / cores / self.bare:.2f}x"
        )


def first_screens(
    argv: list[str],
    marker: bytes,
    size: tuple[int, int],
    runs: int,
    *,
    emptied: tuple[str, ...] = (),
    counting: Path | None = None,
) -> Screens:
    """The complete first screens of the bare app and of `argv`, run in turns. Before each run of
    `argv`, the caches named in `emptied` are emptied (`FIRST_OPENING`, `FIRST_RUN`). With
    `counting`, each run of `argv` goes on until the counts of that worktree's diff are
    remembered (a diff of 10,000 new files takes seconds to count)."""
    bare, ours, frames, bare_cpu, ours_cpu = [], [], 0, [], []
    for _ in range(runs):
        program = Program(BARE, size)
        bare.append(program.complete(b"minimal-app-ready"))
        bare_cpu.append(program.cpu_by_last_byte)
        program.stop()
        for cache in emptied:
            shutil.rmtree(Path(os.environ["XDG_CACHE_HOME"], "review", cache), ignore_errors=True)
        program = Program(argv, size)
        ours.append(program.complete(marker))
        ours_cpu.append(program.cpu_by_last_byte)
        frames = max(frames, program.frames(program.started, setup=True))
        if counting is not None:
            worktree, until = git.find_worktree(counting), time.monotonic() + 30
            while counted.remembered_size(worktree).files == 0 and time.monotonic() < until:
                time.sleep(0.1)
        program.stop()
    paired = statistics.median(o / b for o, b in zip(ours, bare, strict=True))
    return Screens(
        statistics.median(bare),
        statistics.median(ours),
        frames,
        paired,
        statistics.median(bare_cpu),
        statistics.median(ours_cpu),
    )


def with_comments(path: Path, count: int = 40) -> None:
    """Draft comments spread over the diff's files, for `n` to go through (added once)."""
    if (path / ".review" / "review.json").exists():
        return
    _, diff = scope.load(git.find_worktree(path), scope.Scope())
    step = max(1, len(diff.files) // count)
    for file in diff.files[::step][:count]:
        hunk = file.hunks[0] if file.hunks else None
        line = next((ln.new for ln in hunk.lines if ln.new is not None), None) if hunk else None
        if line is None:
            continue
        subprocess.run([REVIEW, "comment", f"{file.path}:{line}", "-m", "bench"], cwd=path, check=True)


KEYS = {
    "j": (b"j", b"k"),
    "k": (b"k", b"j"),
    "page down": (b" ", b"b"),
    "next hunk": (b"]", b"["),
    "next file": (b"}", b"{"),
    "n": (b"n", b"N"),
}


def keys(program: Program, presses: int) -> dict[str, list[tuple[float, int]]]:
    """Each key pressed `presses` times from the top, then half as many from deep in the diff;
    `G` and `g` in turns."""
    times: dict[str, list[tuple[float, int]]] = {}
    for name, (key, back) in KEYS.items():
        program.press(b"g")
        got = [program.press(key) for _ in range(presses)]
        program.press(b"G")
        for _ in range(presses // 2):
            program.press(back)
        got += [program.press(key) for _ in range(presses // 2)]
        times[name] = [t for t in got if t is not None]
    ends: dict[bytes, list[tuple[float, int]]] = {b"G": [], b"g": []}
    for _ in range(presses // 2):
        for key in ends:
            answer = program.press(key)
            if answer is not None:
                ends[key].append(answer)
    times["G"], times["g"] = ends[b"G"], ends[b"g"]
    return times


def page_all(program: Program, pages: int) -> list[float]:
    """Press page down `pages` times in bursts of 100, each answered before the next is sent;
    the resident memory after each tenth. (Bursts sent while the last was still being answered
    heaped up keys in the app's queue, 1 KB each: the memory measured was theirs.)"""
    samples = []
    tenth = max(1, pages // 10)
    for _ in range(10):
        for _ in range(0, tenth, 100):
            os.write(program.fd, b" " * 100)
            program.settle()
        samples.append(program.memory_mb("VmRSS"))
    return samples


def reload(program: Program, path: Path) -> list[float]:
    """The agent rewrites a line of the first file on screen: seconds until the screen shows it."""
    _, diff = scope.load(git.find_worktree(path), scope.Scope())
    first = diff.files[0]
    line = next(ln.new for ln in first.hunks[0].lines if ln.new is not None)
    target = path / first.path
    original = target.read_bytes()
    lines = original.split(b"\n")
    times = []
    program.press(b"g")
    try:
        for round in range(5):
            marker = f"edited_{round}_marker".encode()
            lines[line - 1] = marker + b" = 1"
            program.settle()
            start = len(program.output)
            target.write_bytes(b"\n".join(lines))
            written = time.perf_counter()
            program.wait_for(marker, timeout=30, start=start)
            times.append(time.perf_counter() - written)
            time.sleep(0.5)
    finally:
        target.write_bytes(original)
    return times


def copy_of(size: str, name: str, prepare: list[list[str]]) -> Path:
    """A copy of a size's repository with `prepare` run in its worktree, made once."""
    folder = CACHE / f"{size}-{name}"
    if not (folder / "agent-1").exists():
        import shutil

        shutil.copytree(cached_worktree(*SIZES[size], 0.5).parent, folder, symlinks=True)
        # the copy's worktree and repository point at each other, not at the original's
        admin = folder / "repo" / ".git" / "worktrees" / "agent-1"
        (folder / "agent-1" / ".git").write_text(f"gitdir: {admin}\n")
        (admin / "gitdir").write_text(f"{folder / 'agent-1' / '.git'}\n")
        # a copied file has new times and inode: the copy's index is refreshed as the agent's git
        # keeps it, or git would read every file again at each diff (review's diffs read a copy
        # of the index, which they never write back)
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=folder / "agent-1", capture_output=True)
        for command in prepare:
            subprocess.run(command, cwd=folder / "agent-1", check=True, capture_output=True)
        # files written just now are not counted (they may be written again within a tick)
        time.sleep(counted.RECENT_SECONDS + 0.5)
    return folder / "agent-1"


UNTRACKED = [
    sys.executable,
    "-c",
    "from pathlib import Path\n"
    "for n in range(10_000):\n"
    "    part = Path('untracked', f'd{n // 500}'); part.mkdir(parents=True, exist_ok=True)\n"
    "    (part / f'new_{n}.py').write_text(f'value_{n} = {n}\\n')",
]


EDIT_SOME = ["sh", "-c", "git ls-files '*.py' | head -100 | while read f; do echo 'more = 1' >> \"$f\"; done"]
"""The agent's work after a review was sent: a line added to 100 files."""


def from_overview(path: Path, size: tuple[int, int], runs: int) -> list[float]:
    """`review all`, then enter on the agent's worktree: seconds to the review's complete screen."""
    times = []
    for _ in range(runs):
        program = Program([REVIEW, "all", str(path)], size)
        program.complete(path.name.encode())
        program.press(b"j")
        sent = time.perf_counter()
        start = len(program.output)
        os.write(program.fd, b"\r")
        program.wait_for(b"files", start=start)
        times.append(program.settle(SCREEN_QUIET) - sent)
        program.stop()
    return times


def p90(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.9)] if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="small,large,huge")
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--runs", type=int, default=5, help="first-screen runs of each program")
    parser.add_argument("--presses", type=int, default=30, help="presses of each key")
    parser.add_argument("--skip", default="", help="parts to leave out: keys,memory,reload,entry")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    size = (width, height)
    skip = set(args.skip.split(","))
    print(f"terminal {args.size}; times to the last byte of output; bare = one Static in a Textual app")
    # the counts review remembers between runs are the run's own
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="bench-cache-")

    for name in args.sizes.split(","):
        files, lines = SIZES[name]
        path = cached_worktree(files, lines, 0.5)
        with_comments(path)
        _, diff = scope.load(git.find_worktree(path), scope.Scope())
        print(f"\n== {name}: {len(diff.files)} files, {diff.added + diff.removed:,} changed lines")
        marker = diff.files[0].path.encode()
        print(
            f"first run of review:   {first_screens([REVIEW, str(path)], marker, size, args.runs, emptied=FIRST_RUN)}"
        )
        print(
            f"first time opened:     {first_screens([REVIEW, str(path)], marker, size, args.runs, emptied=FIRST_OPENING)}"
        )
        # opened again: its files' counts are remembered (the first-time runs left them)
        again = first_screens([REVIEW, str(path)], marker, size, args.runs)
        print(f"complete first screen: {again}")
        print(f"  frames in review's first screen (most of {args.runs} runs): {again.frames}")
        if {"keys", "memory", "reload"} <= skip:
            continue
        program = Program([REVIEW, str(path)], size)
        program.complete(marker)
        print(f"  peak memory after the first screen: {program.memory_mb():.0f} MB")
        if "keys" not in skip:
            for key, answers in keys(program, args.presses).items():
                times = [t for t, _ in answers]
                frames = sorted(f for _, f in answers)
                print(
                    f"  {key:<10} median {statistics.median(times) * 1000:5.1f} ms, p90 {p90(times) * 1000:5.1f} ms,"
                    f" max {max(times) * 1000:5.1f} ms; presses with 2+ frames: {sum(f > 1 for f in frames)}/{len(frames)}"
                )
        if "reload" not in skip:
            times = reload(program, path)
            print(
                "  live reload, write to screen: "
                + ", ".join(f"{t * 1000:.0f}" for t in times)
                + f" ms (median {statistics.median(times) * 1000:.0f})"
            )
        if "memory" not in skip:
            rows_per_page = height - 4
            pages = (diff.added + diff.removed + 6 * len(diff.files)) // rows_per_page + 1
            samples = page_all(program, pages)
            print("  resident memory paging through: " + ", ".join(f"{mb:.0f}" for mb in samples) + " MB")
            # bounded caches fill in the first pass: the second shows whether anything else grows
            program.press(b"g")
            samples = page_all(program, pages)
            print("  and through it again:           " + ", ".join(f"{mb:.0f}" for mb in samples) + " MB")
            print(f"  peak memory: {program.memory_mb():.0f} MB")
        program.stop()

    if "entry" in skip:
        return
    path = cached_worktree(*SIZES["large"], 0.5)
    worktree = git.find_worktree(path)
    base = git.merge_base(worktree, git.resolve_commit(worktree, "main"), worktree.head or "HEAD")
    sent = copy_of("large", "sent", [[REVIEW, "send", "-m", "bench"], EDIT_SOME])
    print("\n== the other ways in, on the large diff")
    ways = {
        "--range": [REVIEW, "--range", f"{base}..HEAD", str(path)],
        "--staged": [REVIEW, "--staged", str(copy_of("large", "staged", [["git", "add", "-A", "."]]))],
        "--since-review": [REVIEW, "--since-review", str(sent)],
        "10,000 untracked": [REVIEW, str(copy_of("small", "untracked", [UNTRACKED]))],
    }
    for way, argv in ways.items():
        # opened once first, as the sizes are: the first opening counts its files (and with
        # 10,000 of them may take longer than the first screen waits)
        first = first_screens(argv, b"src/", size, 1, counting=Path(argv[-1]))
        again = first_screens(argv, b"src/", size, args.runs)
        print(
            f"{way:<18} {again}, frames {again.frames} (opened first: {first.ours * 1000:.0f} ms, frames {first.frames})"
        )
    times = from_overview(path, size, args.runs)
    print(f"{'from the overview':<18} enter to the complete screen: median {statistics.median(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
