"""A file's lines on either side of a diff, and paths in a worktree as a reviewer names them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from review.errors import CommentError
from review.repo import git
from review.repo.git import Worktree
from review.repo.text import decode

Side = Literal["new", "old"]
"""new: the file as the agent changed it; old: as it was where the diff starts."""


def lines_of(content: bytes) -> list[str]:
    """A file's lines as the diff shows them: decoded, without line endings."""
    text, _ = decode(content)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


class FileReader:
    """Reads a file's lines on either side, once each: the old side from the commit the diff
    starts at, the new side from the working tree (or from `new`: a commit, or "" for the index)."""

    def __init__(self, worktree: Worktree, base: str | None, new: str | None = None) -> None:
        self.worktree = worktree
        self.base = base
        self.new = new
        self._cache: dict[tuple[str, Side], list[str] | None] = {}

    def __call__(self, path: str, side: Side) -> list[str] | None:
        key = (path, side)
        if key not in self._cache:
            self._cache[key] = self._read(path, side)
        return self._cache[key]

    def _read(self, path: str, side: Side) -> list[str] | None:
        rev = self.base if side == "old" else self.new
        if side == "old" or rev is not None:
            content = None if rev is None else git.file_at(self.worktree, rev, path)
            return None if content is None else lines_of(content)
        try:
            return lines_of((self.worktree.root / path).read_bytes())
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None


def path_in(worktree: Worktree, file: str, cwd: Path) -> str:
    """`file`, given relative to `cwd` or absolute, as a path relative to the worktree's root.

    Raises:
        CommentError: the file is outside the worktree.
    """
    target = Path(os.path.normpath(cwd.absolute() / file))
    # A link inside the worktree names the link, not where it points, so try the path as written
    # before the resolved one.
    for candidate, root in ((target, worktree.root), (target.resolve(), worktree.root.resolve())):
        try:
            return candidate.relative_to(root).as_posix()
        except ValueError:
            continue
    raise CommentError(f"{file} is not inside the worktree {worktree.root}")
