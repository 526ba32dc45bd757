"""The conflict radar: which worktrees change the same files, and whether merging them would
conflict, found by trial merges of their snapshots (`repo.merge`).

Only pairs that touch a common file are merged, all in one git process, and a merge is known by
the two snapshot commits it merged: a snapshot of unchanged work is the same commit, so after an
edit only the pairs of the worktree that changed are merged again. The outcomes are remembered
between runs too (`remembered`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from review.overview import remembered
from review.overview.rows import Overlap, Repository, Row
from review.repo import merge
from review.repo.merge import ConflictHunk, Merge, Scratch


class Radar:
    """The trial merges of one repository's worktrees, remembered while their work is unchanged."""

    def __init__(self, repo: Repository, scratch: Scratch, *, remember: bool = True) -> None:
        self.repo = repo
        self.scratch = scratch
        self._file = remembered.cache_file(repo.common_dir) if remember else None
        self.merges: dict[tuple[str, str], Merge] = remembered.load(self._file) if self._file else {}
        """The merges tried, by the two commits merged; remembered while a row needs them."""

    def apply(self, rows: Sequence[Row]) -> None:
        """Fill in every row's overlaps and whether it merges into the default branch."""
        readable = [row for row in rows if row.snapshot is not None]
        pairs = [(a, b) for a, b in combinations(readable, 2) if a.changed & b.changed]
        into_default = [row for row in readable if self._off_default(row)]
        wanted = [(a.snapshot, b.snapshot) for a, b in pairs] + [
            (self.repo.default_commit, row.snapshot) for row in into_default
        ]
        keys = [(str(ours), str(theirs)) for ours, theirs in wanted]
        missing = [key for key in dict.fromkeys(keys) if key not in self.merges]
        for made in merge.trial_merges(self.repo.root, missing, self.scratch):
            self.merges[(made.ours, made.theirs)] = made
        # What no row needs any more is forgotten, so the cache follows the work.
        self.merges = {key: self.merges[key] for key in keys if key in self.merges}
        if missing and self._file is not None:
            remembered.save(self._file, self.merges)

        for row in rows:
            row.overlaps = []
            row.merges_cleanly = None
            row.default_conflict_files = []
        for a, b in pairs:
            tried = self.merges.get((str(a.snapshot), str(b.snapshot)))
            conflict = None if tried is None or tried.tree is None else not tried.clean
            files = sorted(a.changed & b.changed)
            conflicted = tried.conflict_files if tried else []
            a.overlaps.append(Overlap(b.path, files, conflict, conflicted))
            b.overlaps.append(Overlap(a.path, files, conflict, conflicted))
        for row in into_default:
            tried = self.merges.get((str(self.repo.default_commit), str(row.snapshot)))
            if tried is not None and tried.tree is not None:
                row.merges_cleanly = tried.clean
                row.default_conflict_files = tried.conflict_files

    def _off_default(self, row: Row) -> bool:
        return self.repo.default_commit is not None and row.branch != self.repo.default_branch

    def conflicts(self, a: Row, b: Row | None) -> list[tuple[str, list[ConflictHunk]]]:
        """The conflicting files of merging `a` and `b` (None: the default branch), each with
        its conflicting hunks; empty when they merge cleanly or were not tried."""
        if b is not None:
            tried = self.merges.get((str(a.snapshot), str(b.snapshot)))
            swapped = tried is None
            if swapped:
                tried = self.merges.get((str(b.snapshot), str(a.snapshot)))
        else:
            # Merges into the default branch are tried with the default branch as ours.
            tried = self.merges.get((str(self.repo.default_commit), str(a.snapshot)))
            swapped = True
        if tried is None or tried.tree is None or tried.clean:
            return []
        if not tried.tree:  # remembered from an earlier run: merge again for the merged files
            tried = merge.trial_merges(self.repo.root, [(tried.ours, tried.theirs)], self.scratch)[0]
            self.merges[(tried.ours, tried.theirs)] = tried
            if tried.tree is None or tried.clean:
                return []
        found = []
        for path in tried.conflict_files:
            hunks = merge.conflict_hunks(self.repo.root, tried.tree, path, self.scratch)
            if swapped:  # `a`'s side first, whichever order the merge was tried in
                hunks = [ConflictHunk(hunk.line, hunk.theirs, hunk.ours) for hunk in hunks]
            found.append((path, hunks))
        return found
