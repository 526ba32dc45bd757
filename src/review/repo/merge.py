"""Trial merges: whether two lines of work would conflict, found without touching either.

The overview asks this of every pair of worktrees that change the same files, and of each
worktree against the default branch. Both sides are snapshots that include uncommitted and
untracked work, and `git merge-tree --write-tree` merges them in memory. Every object this writes
(the snapshots' blobs, trees and commits, the merged trees) goes into a scratch object store that
borrows the repository's objects: nothing is written to any worktree, index, branch, or even to
the repository's object database.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from review.errors import GitFailed
from review.repo import git
from review.repo.git import Worktree


class Scratch:
    """A throwaway object store in front of a repository's own: git writes into it and reads
    through it. Remove it with `close()` (it is also a context manager)."""

    def __init__(self, common_dir: Path) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="review-scratch-"))
        (self.folder / "objects").mkdir()
        self.env = {
            "GIT_OBJECT_DIRECTORY": str(self.folder / "objects"),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(common_dir / "objects"),
            # Fixed dates make a snapshot of the same work the same commit, so that the merges
            # tried with it are known by their commits and never tried twice.
            "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+00:00",
            "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+00:00",
        }

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@dataclass(frozen=True)
class Merge:
    """The outcome of merging two commits."""

    ours: str
    theirs: str
    clean: bool
    tree: str | None
    """The merged tree, with conflict markers in the files that conflict; None when git could
    not merge the two at all; "" when the outcome is remembered but the tree is not at hand."""
    conflict_files: list[str] = field(default_factory=list)


def trial_merges(root: Path, pairs: Sequence[tuple[str, str]], scratch: Scratch) -> list[Merge]:
    """Merge each pair of commits in memory, in one git process, in the order given.

    A pair git refuses (unrelated histories, a commit that is gone) is merged alone, so that it
    does not take the others with it, and comes back with no tree.
    """
    if not pairs:
        return []
    # A conflicted merge costs git milliseconds of content merging: spread many over the cores.
    return _spread(pairs, lambda chunk: _merge_or_isolate(root, chunk, scratch))


_CHUNK = 32
"""Pairs given to one git process."""

_T = TypeVar("_T")


def _spread(pairs: Sequence[tuple[str, str]], run: Callable[[Sequence[tuple[str, str]]], list[_T]]) -> list[_T]:
    """`run` over chunks of `pairs` in parallel git processes, the results in the pairs' order."""
    chunks = [pairs[at : at + _CHUNK] for at in range(0, len(pairs), _CHUNK)]
    if len(chunks) == 1:
        return run(pairs)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return [made for done in pool.map(run, chunks) for made in done]


def _merge_or_isolate(root: Path, pairs: Sequence[tuple[str, str]], scratch: Scratch) -> list[Merge]:
    try:
        return _merge_batch(root, pairs, scratch)
    except GitFailed:
        merges = []
        for pair in pairs:
            try:
                merges.extend(_merge_batch(root, [pair], scratch))
            except GitFailed:
                merges.append(Merge(pair[0], pair[1], clean=False, tree=None))
        return merges


def _merge_batch(root: Path, pairs: Sequence[tuple[str, str]], scratch: Scratch) -> list[Merge]:
    lines = "".join(f"{ours} {theirs}\n" for ours, theirs in pairs).encode()
    out = git.run_git(
        root,
        # The user's diff3 or zdiff3 style would add the base's lines between the markers that
        # `conflict_hunks` reads: the two sides alone are what the radar shows.
        "-c",
        "merge.conflictStyle=merge",
        "merge-tree",
        "--write-tree",
        "--stdin",
        "--name-only",
        "--no-messages",
        "-z",
        input=lines,
        env=scratch.env,
    )
    # Each merge: its status (1 clean, 0 conflicted), the tree, the conflicted paths, an empty field.
    fields = out.split(b"\0")
    merges: list[Merge] = []
    at = 0
    for ours, theirs in pairs:
        if at + 1 >= len(fields):
            raise GitFailed("git merge-tree stopped before the end of its input")
        clean = fields[at] == b"1"
        tree = fields[at + 1].decode()
        at += 2
        conflicted: list[str] = []
        while at < len(fields) and fields[at]:
            name = os.fsdecode(fields[at])
            if name not in conflicted:
                conflicted.append(name)
            at += 1
        at += 1
        merges.append(Merge(ours, theirs, clean=clean, tree=tree, conflict_files=conflicted))
    return merges


@dataclass(frozen=True)
class ConflictHunk:
    """One place in a merged file where the two sides disagree."""

    line: int
    """The line of the merged file where the conflict marker starts, 1-based."""
    ours: list[str]
    theirs: list[str]


def conflict_hunks(root: Path, tree: str, path: str, scratch: Scratch) -> list[ConflictHunk]:
    """The conflicts in `path` of a merged tree, read from its conflict markers."""
    try:
        content = git.run_git(root, "cat-file", "blob", f"{tree}:{path}", env=scratch.env)
    except GitFailed:
        return []  # a conflict of names (deleted on one side, renamed on both): no markers
    hunks: list[ConflictHunk] = []
    current: ConflictHunk | None = None
    side: list[str] | None = None
    for number, raw in enumerate(content.decode("utf-8", "replace").splitlines(), start=1):
        if raw.startswith("<<<<<<< "):
            current = ConflictHunk(line=number, ours=[], theirs=[])
            side = current.ours
        elif current is not None and raw == "=======":
            side = current.theirs
        elif current is not None and raw.startswith(">>>>>>> "):
            hunks.append(current)
            current, side = None, None
        elif side is not None:
            side.append(raw)
    return hunks


def snapshot_tree(worktree: Worktree, scratch: Scratch) -> str:
    """The tree of the worktree as it is now (see `git.working_tree`), in the scratch store."""
    return git.working_tree(worktree, env=scratch.env)


def snapshot_commits(root: Path, trees: Sequence[tuple[str, str]], scratch: Scratch) -> list[str]:
    """A commit for each (tree, parent), made by one git process: a merge needs commits, and a
    commit of the same tree on the same parent is always the same commit, so merges tried with
    it are known by it."""
    if not trees:
        return []
    who = f"{git.SNAPSHOT_AUTHOR['GIT_AUTHOR_NAME']} <{git.SNAPSHOT_AUTHOR['GIT_AUTHOR_EMAIL']}> 946684800 +0000"
    folder = scratch.folder / "commits"
    folder.mkdir(exist_ok=True)
    paths = []
    for number, (tree, parent) in enumerate(trees):
        text = f"tree {tree}\nparent {parent}\nauthor {who}\ncommitter {who}\n\nreview: trial merge\n"
        path = folder / f"{number}"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    out = git.run_git(
        root,
        "hash-object",
        "-t",
        "commit",
        "-w",
        "--stdin-paths",
        input="\n".join(paths).encode() + b"\n",
        env=scratch.env,
    )
    return out.decode().split()


def numstats(root: Path, pairs: Sequence[tuple[str, str]], scratch: Scratch) -> list[bytes]:
    """`git diff --numstat -z` from each (old, new) pair of commits (one git process for many)."""
    return _spread(pairs, lambda chunk: _numstats(root, chunk, scratch)) if pairs else []


def _numstats(root: Path, pairs: Sequence[tuple[str, str]], scratch: Scratch) -> list[bytes]:
    # A line "NEW OLD" asks for NEW's changes against OLD as its parent; git echoes NEW before them.
    lines = "".join(f"{new} {old}\n" for old, new in pairs).encode()
    out = git.run_git(
        root, "diff-tree", "--stdin", "-r", "--numstat", "-z", *git.DIFF_OPTIONS, input=lines, env=scratch.env
    )
    echoes = [f"{new}\0".encode() for _, new in pairs]
    found = []
    at = 0
    for number, echo in enumerate(echoes):
        start = out.find(echo, at)
        if start < 0:  # nothing changed: git printed nothing for it
            found.append(b"")
            continue
        start += len(echo)
        later = [out.find(other, start) for other in echoes[number + 1 :]]
        end = min((place for place in later if place >= 0), default=len(out))
        found.append(out[start:end])
        at = end
    return found
