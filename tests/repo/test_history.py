"""The model agrees with git on every commit of a generated repository's history."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from review.repo import git, scope
from review.repo.scope import Scope
from synthetic import generate


def git_reference(root: Path, *args: str) -> list[bytes]:
    out = subprocess.run(["git", *args], cwd=root, capture_output=True, check=True).stdout
    return out.split(b"\0")


def numstat(root: Path, *sides: str) -> dict[str, tuple[int, int]]:
    fields = git_reference(root, "diff", "--numstat", "-z", "-M", "-C", *sides)
    counts = {}
    i = 0
    while i < len(fields) - 1:
        added, removed, path = fields[i].split(b"\t", 2)
        if not path:
            path = fields[i + 2]
            i += 2
        i += 1
        counts[os.fsdecode(path)] = (-1, -1) if added == b"-" else (int(added), int(removed))
    return counts


def name_status(root: Path, old: str, new: str) -> dict[str, tuple[str, str | None]]:
    fields = git_reference(root, "diff", "--name-status", "-z", "-M", "-C", old, new)
    statuses = {}
    i = 0
    while i < len(fields) - 1:
        status = fields[i].decode()
        if status[0] in "RC":
            statuses[os.fsdecode(fields[i + 2])] = (status, os.fsdecode(fields[i + 1]))
            i += 3
        else:
            statuses[os.fsdecode(fields[i + 1])] = (status, None)
            i += 2
    return statuses


def test_every_commit_matches_git_numstat_and_name_status(tmp_path: Path) -> None:
    made = generate(tmp_path, files=30, lines=40, changed=0.3, worktrees=1, commits=8, seed=7)
    worktree = git.find_worktree(made.repository)
    commits = subprocess.run(
        ["git", "rev-list", "--first-parent", "main"], cwd=made.repository, capture_output=True, check=True, text=True
    ).stdout.split()[:-1]
    assert len(commits) == 8
    kinds_seen: set[str] = set()
    for commit in commits:
        _, diff = scope.load(worktree, Scope(range=f"{commit}~1..{commit}"))
        expected_counts = numstat(made.repository, f"{commit}~1", commit)
        expected_status = name_status(made.repository, f"{commit}~1", commit)
        got_counts = {f.path: (-1, -1) if f.binary else (f.added, f.removed) for f in diff.files}
        got_status = {
            f.path: (f.status.letter + (f"{f.similarity:03d}" if f.similarity is not None else ""), f.old_path)
            for f in diff.files
        }
        assert got_counts == expected_counts, commit
        assert got_status == expected_status, commit
        for file in diff.files:
            kinds_seen.add(file.status.letter)
            kinds_seen.update({"binary"} if file.binary else set())
            kinds_seen.update({"mode"} if file.mode_changed else set())
            # counts from git's numstat agree with the parsed hunks
            lines = [line for hunk in file.hunks for line in hunk.lines]
            assert sum(line.kind == "+" for line in lines) == file.added
            assert sum(line.kind == "-" for line in lines) == file.removed
    assert {"A", "M", "D", "R", "C", "binary", "mode"} <= kinds_seen


def test_the_agent_worktree_default_scope_matches_git(tmp_path: Path) -> None:
    made = generate(tmp_path, files=20, lines=30, changed=0.5, worktrees=2, commits=2, seed=3)
    for path in made.worktrees:
        sides, diff = scope.load(git.find_worktree(path), Scope())
        counts = {f.path: (-1, -1) if f.binary else (f.added, f.removed) for f in diff.files}
        untracked = {p: c for p, c in counts.items() if p.startswith("untracked/")}
        tracked = {p: c for p, c in counts.items() if p not in untracked}
        assert untracked == {f"untracked/new_{n}.py": (10, 0) for n in range(3)}
        # git's own diff of the working tree from the merge-base, which leaves untracked files out
        assert tracked == numstat(path, sides.old)
        assert sum(a + r for a, r in tracked.values()) > 0
