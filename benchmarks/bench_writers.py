"""How long a write to the review takes while several processes write it at once.

    python benchmarks/bench_writers.py [--processes 8 --operations 200 --on-lines 0.5 --seed 13]

Starts PROCESSES processes in one worktree, each running OPERATIONS verbs one after another as an
agent or a script would (`review comment`, `note`, `reply`, `resolve`, `send`, through
`review.cli.main` so that a process starts Python once), all at the same moment. Prints, for each
verb and for all of them, how many ran and the 50th and 99th percentile and the longest time a
verb took, from its start to its end: finding the worktree, waiting for the lock, re-reading the
review, writing it and fsyncing. tests/hardening/test_concurrency.py runs the same processes and
checks that nothing was lost.

A process is this file run with `--process`: it writes one JSON line per verb to its OUTPUT file,
with what the verb made or changed and how long it took.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

OPERATIONS = ("comment", "note", "reply", "resolve", "send")
WEIGHTS = (15, 5, 35, 30, 15)
"""How often each verb is chosen: a comment is answered (a reply, a resolve) more often than it is
written. A reply or a resolve with nothing to answer yet writes a comment instead."""
FILE = "src/app.py"
LINES = 40


def make_worktree(root: Path) -> Path:
    """A repository with one commit and a change to FILE, to comment on."""
    root.mkdir(parents=True)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)

    git("init", "--quiet", "--initial-branch=main")
    (root / "src").mkdir()
    (root / FILE).write_text("".join(f"line {n}\n" for n in range(1, LINES + 1)))
    git("add", "--all")
    git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "--quiet", "-m", "start")
    (root / FILE).write_text("".join(f"line {n} changed\n" for n in range(1, LINES + 1)))
    return root


@dataclass
class Writers:
    """PROCESSES processes writing one worktree's review, started together."""

    root: Path
    outputs: list[Path]
    processes: list[subprocess.Popen[bytes]]

    @classmethod
    def start(cls, root: Path, processes: int, operations: int, seed: int, on_lines: float = 0.5) -> Writers:
        start = root.parent / "start"
        outputs = [root.parent / f"writer{k}.jsonl" for k in range(processes)]
        started = []
        for k in range(processes):
            process = [str(root), f"w{k}", str(seed + k), str(operations), str(on_lines), str(outputs[k]), str(start)]
            started.append(subprocess.Popen([sys.executable, __file__, "--process", *process], stderr=subprocess.PIPE))
        start.touch()  # all begin together, so their writes overlap
        return cls(root, outputs, started)

    def running(self) -> bool:
        return any(process.poll() is None for process in self.processes)

    def wait(self) -> list[dict[str, object]]:
        """Wait for every process; what each verb did, in the order each process ran them."""
        for process in self.processes:
            _, errors = process.communicate(timeout=600)
            assert process.returncode == 0, errors.decode()
        return [json.loads(line) for output in self.outputs for line in output.read_text().splitlines()]


def run_process(root: Path, name: str, seed: int, operations: int, on_lines: float, output: Path, start: Path) -> None:
    """One process: `operations` verbs chosen at random, each recorded as a JSON line in `output`;
    a comment or note is on a line `on_lines` of the time, else on the whole file."""
    from review.cli import main

    chance = random.Random(seed)
    mine: list[str] = []  # the comments and notes this process wrote
    sent: list[str] = []  # its comments that went out with a round it sent
    while not start.exists():
        time.sleep(0.001)
    with output.open("w") as records:
        for n in range(operations):
            op = chance.choices(OPERATIONS, WEIGHTS)[0]
            if (op == "resolve" and not sent) or (op == "reply" and not mine):
                op = "comment"
            body = f"{name} {op} {n}"
            place = f"{FILE}:{chance.randint(1, LINES)}" if chance.random() < on_lines else FILE
            target = chance.choice(sent if op == "resolve" else mine) if op in ("reply", "resolve") else None
            argv = {
                "comment": ["comment", place, "-m", body],
                "note": ["note", place, "-m", body],
                "reply": ["reply", str(target), "-m", body],
                "resolve": ["resolve", str(target), "-m", body],
                "send": ["send", "-m", body],
            }[op]
            out, err = io.StringIO(), io.StringIO()
            started = time.perf_counter()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main([*argv, "-C", str(root)])
            seconds = time.perf_counter() - started
            said = out.getvalue().strip()
            if status != 0:
                raise SystemExit(f"{name}: review {' '.join(argv)} failed: {err.getvalue().strip()}")
            made = said if op in ("comment", "note") else said.split()[2].rstrip(":") if op == "send" else None
            if op in ("comment", "note"):
                mine.append(said)
            if op == "send":
                sent.extend(id for id in mine if id.startswith("c") and id not in sent)
            record = {"process": name, "op": op, "body": body, "made": made, "target": target, "seconds": seconds}
            records.write(json.dumps(record) + "\n")
            records.flush()


def percentile(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def table(records: list[dict[str, object]]) -> Iterator[str]:
    """One line for each verb and one for all: how many, p50, p99, max (milliseconds)."""
    yield f"{'verb':<10}{'count':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
    for op in (*OPERATIONS, "all"):
        times = [float(str(r["seconds"])) * 1000 for r in records if op in ("all", r["op"])]
        if times:
            row = (len(times), statistics.median(times), percentile(times, 0.99), max(times))
            yield f"{op:<10}{row[0]:>7}{row[1]:>9.1f}{row[2]:>9.1f}{row[3]:>9.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--operations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--on-lines", type=float, default=0.5, help="the share of comments and notes on lines, not whole files"
    )
    parser.add_argument(
        "--process", nargs=7, metavar=("ROOT", "NAME", "SEED", "OPERATIONS", "ON_LINES", "OUTPUT", "START")
    )
    args = parser.parse_args()
    if args.process:
        root, name, seed, operations, on_lines, output, start = args.process
        run_process(Path(root), name, int(seed), int(operations), float(on_lines), Path(output), Path(start))
        return
    with tempfile.TemporaryDirectory() as folder:
        root = make_worktree(Path(folder) / "worktree")
        started = time.perf_counter()
        writers = Writers.start(root, args.processes, args.operations, args.seed, args.on_lines)
        records = writers.wait()
        total = time.perf_counter() - started
        size = (root / ".review" / "review.json").stat().st_size
    print(f"{args.processes} processes x {args.operations} verbs at once, in {total:.1f} s")
    print(f"the review file at the end: {size / 1000:.0f} KB")
    for line in table(records):
        print(line)


if __name__ == "__main__":
    main()
