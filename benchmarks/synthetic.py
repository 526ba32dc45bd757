"""Large synthetic repositories for benchmarks and tests, the same from the same seed.

A repository gets `files` source files of `lines` lines on main, a history of `commits` further
commits on main that modify, add, delete, rename and copy files, flip modes and touch binary files,
and `worktrees` linked worktrees on agent branches. In each worktree a fraction `changed` of the
lines of every file is rewritten: half of the files are committed on the branch, the rest left
unstaged, and a few untracked files are added, so the default scope sees every kind of change.
A rewritten line is one removed and one added line, so 500 files of 200 lines with `changed=0.5`
make a diff of 100,000 changed lines.

    python benchmarks/synthetic.py DIR --files 500 --lines 200 --changed 0.5 --worktrees 2
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

_WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "total",
    "count",
    "index",
    "value",
    "result",
    "entry",
    "ledger",
    "report",
    "amount",
    "window",
    "buffer",
    "cursor",
    "offset",
    "parse",
    "render",
    "stream",
    "record",
    "token",
    "cache",
    "limit",
    "scale",
    "weight",
    "factor",
]

_ENV = {
    "GIT_AUTHOR_NAME": "Synthetic",
    "GIT_AUTHOR_EMAIL": "synthetic@example.com",
    "GIT_COMMITTER_NAME": "Synthetic",
    "GIT_COMMITTER_EMAIL": "synthetic@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass
class Synthetic:
    """What was generated."""

    repository: Path
    worktrees: list[Path] = field(default_factory=list)


def generate(
    root: Path,
    *,
    files: int = 50,
    lines: int = 100,
    changed: float = 0.2,
    worktrees: int = 1,
    commits: int = 5,
    seed: int = 1,
) -> Synthetic:
    """Create a repository in `root/repo` and its worktrees beside it."""
    rng = random.Random(seed)
    repo = root / "repo"
    repo.mkdir(parents=True)
    git = _Git(repo)
    git("init", "--quiet", "--initial-branch=main")
    names = [_path(rng, i) for i in range(files)]
    for name in names:
        _write(repo / name, _source(rng, lines))
    git("add", "--all")
    git("commit", "--quiet", "-m", "Initial import")

    live = list(names)
    for number in range(commits):
        _history_commit(rng, repo, live, number)
        git("add", "--all")
        git("commit", "--quiet", "--allow-empty", "-m", f"Change {number + 1}")

    result = Synthetic(repository=repo)
    for number in range(worktrees):
        path = root / f"agent-{number + 1}"
        git("worktree", "add", "--quiet", "-b", f"agent-{number + 1}", str(path), "main")
        _agent_work(rng, path, live, changed)
        result.worktrees.append(path)
    return result


def fleet(root: Path, *, worktrees: int = 50, files: int = 20, lines: int = 100, seed: int = 1) -> Synthetic:
    """A repository with many agents at once, as the overview meets it.

    Each worktree rewrites half the lines of `files` files of its own (`files * lines` changed
    lines: half committed, half not) and a few lines of one of five shared files; worktrees on
    the same shared file overlap, and those on the same lines of it conflict. With 50
    worktrees: 225 overlapping pairs, 40 of them conflicting.
    """
    rng = random.Random(seed)
    repo = root / "repo"
    repo.mkdir(parents=True)
    git = _Git(repo)
    git("init", "--quiet", "--initial-branch=main")
    own = [[f"src/area_{n}/module_{m}.py" for m in range(files)] for n in range(worktrees)]
    shared = [f"src/shared/registry_{k}.py" for k in range(5)]
    for name in [path for paths in own for path in paths]:
        _write(repo / name, _source(rng, lines))
    for name in shared:
        _write(repo / name, _source(rng, 300))
    git("add", "--all")
    git("commit", "--quiet", "-m", "Initial import")
    result = Synthetic(repository=repo)
    for number in range(worktrees):
        path = root / f"agent-{number + 1}"
        git("worktree", "add", "--quiet", "-b", f"agent-{number + 1}", str(path), "main")
        work = _Git(path)
        half = files // 2
        for name in own[number][:half]:
            _rewrite(rng, path / name, 0.5)
        block = 60 * ((number // 5) % 4)
        _rewrite_lines(rng, path / shared[number % 5], range(block, block + 5))
        work("add", "--all")
        work("commit", "--quiet", "-m", "Agent work")
        for name in own[number][half:]:
            _rewrite(rng, path / name, 0.5)
        _write(path / "notes" / f"agent_{number + 1}.md", "# what I did\n")
        result.worktrees.append(path)
    return result


def _rewrite_lines(rng: random.Random, file: Path, numbers: range) -> None:
    lines = file.read_text().split("\n")[:-1]
    for index in numbers:
        lines[index] = _line(rng) + " changed"
    file.write_text("".join(line + "\n" for line in lines))


def _history_commit(rng: random.Random, repo: Path, live: list[str], number: int) -> None:
    """One commit's worth of every kind of change git can record."""
    for name in rng.sample(live, min(len(live), 3)):
        _rewrite(rng, repo / name, 0.2)
    new = f"added/file_{number}.py"
    _write(repo / new, _source(rng, 20))
    live.append(new)
    if len(live) > 4:
        victim = live.pop(rng.randrange(len(live)))
        (repo / victim).unlink()
        moved = live.pop(rng.randrange(len(live)))
        target = f"moved/{number}_{os.path.basename(moved)}"
        _write(repo / target, (repo / moved).read_text())
        (repo / moved).unlink()
        _rewrite(rng, repo / target, 0.05)
        live.append(target)
        copied = f"copies/{number}_{os.path.basename(live[0])}"
        _write(repo / copied, (repo / live[0]).read_text())
        _rewrite(rng, repo / live[0], 0.05)
        live.append(copied)
    chmod = repo / live[rng.randrange(len(live))]
    chmod.chmod(chmod.stat().st_mode ^ 0o111)
    blob = repo / "assets" / "image.bin"
    _write_bytes(blob, bytes(rng.randrange(256) for _ in range(512)) + b"\0")


def _agent_work(rng: random.Random, path: Path, live: list[str], changed: float) -> None:
    git = _Git(path)
    half = len(live) // 2
    for name in live[:half]:
        _rewrite(rng, path / name, changed)
    git("add", "--all")
    git("commit", "--quiet", "--allow-empty", "-m", "Agent work")
    for name in live[half:]:
        _rewrite(rng, path / name, changed)
    for number in range(3):
        _write(path / "untracked" / f"new_{number}.py", _source(rng, 10))


def _path(rng: random.Random, number: int) -> str:
    folder = "/".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 4)))
    return f"src/{folder}/module_{number}.py"


def _source(rng: random.Random, count: int) -> str:
    return "".join(_line(rng) + "\n" for _ in range(count))


def _line(rng: random.Random) -> str:
    a, b, c = (rng.choice(_WORDS) for _ in range(3))
    indent = "    " * rng.randrange(0, 3)
    return f"{indent}{a}_{b} = compute_{c}({a}, {rng.randrange(1000)})  # {b} {c}"


def _rewrite(rng: random.Random, file: Path, fraction: float) -> None:
    """Replace a fraction of the file's lines with new text."""
    lines = file.read_text().split("\n")[:-1]
    count = round(len(lines) * fraction)
    for index in rng.sample(range(len(lines)), min(count, len(lines))):
        lines[index] = _line(rng) + " changed"
    file.write_text("".join(line + "\n" for line in lines))


def _write(file: Path, text: str) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)


def _write_bytes(file: Path, data: bytes) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(data)


class _Git:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.clock = 1_700_000_000

    def __call__(self, *args: str) -> None:
        self.clock += 60
        stamp = f"@{self.clock} +0000"
        env = {**os.environ, **_ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        subprocess.run(
            ["git", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", *args],
            cwd=self.root,
            env=env,
            check=True,
            capture_output=True,
        )


CACHE = Path(__file__).parent / ".cache"


def cached_worktree(files: int, lines: int, changed: float, seed: int = 1) -> Path:
    """An agent worktree of a repository generated once per set of parameters under
    benchmarks/.cache/, for benchmarks that run again and again."""
    folder = CACHE / f"f{files}-l{lines}-c{changed}-s{seed}"
    if not (folder / "agent-1").exists():
        shutil.rmtree(folder, ignore_errors=True)
        generate(folder, files=files, lines=lines, changed=changed, worktrees=1, commits=3, seed=seed)
    return folder / "agent-1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--changed", type=float, default=0.5)
    parser.add_argument("--worktrees", type=int, default=1)
    parser.add_argument("--commits", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    made = generate(
        args.folder,
        files=args.files,
        lines=args.lines,
        changed=args.changed,
        worktrees=args.worktrees,
        commits=args.commits,
        seed=args.seed,
    )
    print(made.repository)
    for path in made.worktrees:
        print(path)


if __name__ == "__main__":
    main()
