"""Gathering the status of several machines: 3 hosts × 20 agents' worktrees, over ssh.

    python benchmarks/bench_hosts.py [--hosts 3] [--worktrees 20] [--runs 5]

The hosts are one sshd of our own on a loopback port (loopback_sshd), reached by as many names;
each serves a copy of the same fleet (synthetic.fleet: worktrees of 2,000 changed lines each, some
overlapping, some conflicting). Prints the median and worst of `review status --json` of one
repository here, of `review status --json --host ...` of every host (with no repository here),
and of one host alone, each first run (cold: no trial merges remembered) and then warm. All the
"machines" share this one's cores, so asking three at once costs more here than it would across
a network.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import loopback_sshd
from bench_overview import cached_fleet
from review.overview.hosts import Host, gather


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--worktrees", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    review = shutil.which("review") or str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "review")
    fleet = cached_fleet(args.worktrees)
    names = [f"host{number}" for number in range(1, args.hosts + 1)]
    with tempfile.TemporaryDirectory(prefix="review-bench-hosts-") as scratch:
        folder = Path(scratch)
        cache = folder / "cache"  # the trial merges remembered, here and "there" alike
        env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
        with loopback_sshd.running(folder, names) as ssh:
            # "there": the remote review reads its own environment; the same cache is passed on
            command = f"XDG_CACHE_HOME={cache} {review}"
            hosts = [Host(name, str(fleet), command, ssh) for name in names]
            nowhere = folder / "not a repository"
            nowhere.mkdir()
            config = folder / "config" / "review"
            config.mkdir(parents=True)
            (config / "config.toml").write_text(
                "".join(
                    f'[[hosts]]\nname = "{h.name}"\nrepo = "{h.repo}"\ncommand = "{command}"\nssh = "{" ".join(ssh)}"\n'
                    for h in hosts
                )
            )
            env["XDG_CONFIG_HOME"] = str(folder / "config")
            every = [review, "status", "--json", *(f"--host={name}" for name in names)]
            cases = {
                "here: review status --json (1 repository)": ([review, "status", "--json"], fleet),
                f"review status --json --host x{args.hosts} (no repository here)": (every, nowhere),
                "review status --json --host x1": ([review, "status", "--json", f"--host={names[0]}"], nowhere),
            }
            print(f"{args.hosts} hosts × {args.worktrees} worktrees (+ the main one), {args.runs} runs")
            for label, (argv, cwd) in cases.items():
                shutil.rmtree(cache, ignore_errors=True)
                cold = timed(argv, cwd, env)
                warm = [timed(argv, cwd, env) for _ in range(args.runs)]
                print(
                    f"  {label}: cold {cold * 1000:.0f} ms; warm median {statistics.median(warm) * 1000:.0f} ms,"
                    f" worst {max(warm) * 1000:.0f} ms"
                )
            started = time.perf_counter()
            gathered = gather(hosts)
            took = time.perf_counter() - started
            rows = sum(len(each.rows) for each in gathered)
            problems = [each.problem for each in gathered if each.problem]
            print(
                f"  hosts.gather in one process (warm): {took * 1000:.0f} ms, {rows} rows, problems: {problems or 'none'}"
            )


if __name__ == "__main__":
    main()
