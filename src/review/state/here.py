"""The worktree a verb acts on, its review, and how to read its files as they are now.

Every verb that reads or changes one worktree's review (the command line's, and the MCP server's
tools) starts from here, so both read the files the same way.
"""

from __future__ import annotations

from pathlib import Path

from review.repo import git, scope
from review.repo.lines import FileReader
from review.repo.scope import Scope
from review.state import comments
from review.state.model import Review
from review.state.store import Store


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
