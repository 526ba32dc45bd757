"""The worktree a verb acts on, its review, how to read its files as they are now, and the lines
a comment or note is written on (FILE:LINE[-END]).

Every verb that reads or changes one worktree's review (the command line's, and the MCP server's
tools) starts from here, so both read the files, and name lines, the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from review.errors import CommentError, ReviewError
from review.repo import git, scope
from review.repo.lines import FileReader, path_in
from review.repo.scope import Scope
from review.state import comments
from review.state.comments import Where
from review.state.model import Review, Side
from review.state.store import Store


@dataclass(frozen=True)
class Place:
    """Lines to write a comment or a note on, with what anchors it there."""

    where: Where
    lines: list[str] | None
    """The file's lines on that side as they are now; None when the file has no such side."""
    source: str | None
    """The revision the lines were read from (the old side's); None for the working tree."""


class Here:
    """The worktree containing a path, its review, and its files now against the default scope."""

    def __init__(self, where: str | Path) -> None:
        self.worktree = git.find_worktree(where)
        self.store = Store(self.worktree.root)
        self.sides = scope.resolve(self.worktree, Scope())
        self.read = FileReader(self.worktree, self.sides.old)

    def reanchored(self) -> Review:
        """The review, with every comment's place found again in the files as they are now."""
        return comments.reanchor(self.store, self.read, scope.renamed(self.worktree, self.sides))

    def place(self, target: str, cwd: Path, *, old: bool = False) -> Place:
        """FILE, FILE:LINE or FILE:LINE-END, the file given relative to `cwd`, on the new side of
        the diff or the `old` one (removed code), as the place to write on.

        Raises:
            ReviewError: the lines are not a range.
            CommentError: the file is outside the worktree, or has no such side.
        """
        file, line, end = lines_in(target)
        path = path_in(self.worktree, file, cwd.absolute())
        side: Side = "old" if old else "new"
        lines = self.read(path, side)
        if lines is None:
            other: Side = "new" if old else "old"
            if self.read(path, other) is None:
                # (a file on neither side, as a mistyped name is: not even the whole of it)
                raise CommentError(f"{path}: no such file, in the worktree or where the work started")
            if line is not None:
                raise CommentError(f"{path} has no {side} side: it was {'added' if old else 'deleted'}")
        return Place(Where(path=path, side=side, line=line, end_line=end), lines, self.sides.old if old else None)


def lines_in(target: str) -> tuple[str, int | None, int | None]:
    """FILE, FILE:LINE or FILE:LINE-END as the file and its first and last lines (None, None: the
    whole file).

    Raises:
        ReviewError: the lines are not a range.
    """
    file, sep, lines = target.rpartition(":")
    if not sep or not lines or not lines.replace("-", "").isdigit():
        return target, None, None
    first, _, last = lines.partition("-")
    try:
        start = int(first)
        end = int(last) if last else start
    except ValueError:
        raise ReviewError(f"lines are written LINE or LINE-END, not '{lines}'") from None
    if start < 1 or end < start:
        raise ReviewError(f"'{lines}' is not a range of lines")
    return file, start, end
