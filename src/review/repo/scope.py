"""What is reviewed: the two sides a worktree's diff is taken between, and loading that diff.

The default is everything the agent changed: from where its branch left the default branch to
the working tree, committed, staged, unstaged and untracked work alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from review.errors import BadRevision
from review.repo import git
from review.repo.diff import Diff, FileDiff, binary_paths, parse, renames
from review.repo.git import Worktree


@dataclass(frozen=True)
class Scope:
    """The reviewer's choice of what to compare; at most one field is set."""

    staged: bool = False
    """HEAD against the index."""
    base: str | None = None
    """Where the branch left REF against the working tree."""
    range: str | None = None
    """`A..B` (A against B) or `A...B` (their merge-base against B)."""
    since_review: bool = False
    """What changed since the reviewer last sent a review, uncommitted work included."""


@dataclass(frozen=True)
class Since:
    """The review sent last: what `since_review` compares against. The review state knows it
    (`review.state.rounds.last_sent`); what is compared is a matter of git alone."""

    round: str
    snapshot: str | None
    """The commit recording the worktree as it was reviewed."""


@dataclass(frozen=True)
class Sides:
    """A scope resolved to concrete objects."""

    old: str
    """The commit or tree on the old side."""
    new: str | None
    """The commit on the new side; None for the working tree (or the index when `cached`)."""
    cached: bool
    untracked: bool
    label: str
    """How the header names the comparison, e.g. `main...working tree`."""


WORKING_TREE = "working tree"


def resolve(worktree: Worktree, scope: Scope, since: Since | None = None) -> Sides:
    """The two sides `scope` means for `worktree`; `since` is the review sent last, for
    `since_review`.

    Raises:
        BadRevision: a revision in the scope is unknown, or a range is malformed, or
            `since_review` is asked for before any review was sent.
    """
    head = worktree.head
    if scope.since_review:
        return _since_review(worktree, since)
    if scope.range is not None:
        return _range_sides(worktree, scope.range)
    if scope.staged:
        return Sides(head or git.empty_tree(worktree), None, True, False, "HEAD...index")
    if scope.base is not None:
        base = git.resolve_commit(worktree, scope.base)
        start = git.merge_base(worktree, base, head) if head else None
        return Sides(start or base, None, False, True, f"{scope.base}...{WORKING_TREE}")
    if head is None:
        return Sides(git.empty_tree(worktree), None, False, True, f"(no commits)...{WORKING_TREE}")
    default = git.default_branch(worktree)
    if default is None or worktree.branch == default:
        return Sides(head, None, False, True, f"HEAD...{WORKING_TREE}")
    try:
        default_commit = git.resolve_commit(worktree, default)
    except BadRevision:
        raise BadRevision(f"the default branch '{default}' (review.base) is not a commit") from None
    start = git.merge_base(worktree, default_commit, head)
    if start is None:
        return Sides(head, None, False, True, f"HEAD...{WORKING_TREE}")
    return Sides(start, None, False, True, f"{default}...{WORKING_TREE}")


def _since_review(worktree: Worktree, sent: Since | None) -> Sides:
    if sent is None or sent.snapshot is None:
        raise BadRevision("no review has been sent from this worktree yet, so there is nothing to compare with")
    try:
        git.resolve_commit(worktree, sent.snapshot)
    except BadRevision:
        raise BadRevision(f"the snapshot of review {sent.round} is gone from the repository") from None
    return Sides(sent.snapshot, None, False, True, f"since review {sent.round}...{WORKING_TREE}")


def _range_sides(worktree: Worktree, spec: str) -> Sides:
    symmetric = "..." in spec
    left, sep, right = spec.partition("..." if symmetric else "..")
    if not sep:
        raise BadRevision(f"a range is written A..B or A...B, not '{spec}'")
    old = git.resolve_commit(worktree, left or "HEAD")
    new = git.resolve_commit(worktree, right or "HEAD")
    if symmetric:
        start = git.merge_base(worktree, old, new)
        if start is None:
            raise BadRevision(f"'{left}' and '{right}' have no common ancestor")
        old = start
    return Sides(old, new, False, False, spec)


def load(worktree: Worktree, scope: Scope = Scope(), since: Since | None = None) -> tuple[Sides, Diff]:
    """Resolve `scope` and read its diff."""
    sides = resolve(worktree, scope, since)
    return sides, read(worktree, sides)


def read(worktree: Worktree, sides: Sides) -> Diff:
    """The diff between two resolved sides."""
    output = git.diff_output(worktree, sides.old, sides.new, cached=sides.cached, untracked=sides.untracked)
    diff = parse(output)
    _mark_moved_binaries(worktree, sides, diff)
    _measure_binaries(worktree, diff)
    return diff


def _mark_moved_binaries(worktree: Worktree, sides: Sides, diff: Diff) -> None:
    """Mark binary the binary files renamed or copied unchanged, as `git diff --numstat` does.

    Their patch has no "Binary files" line, so git is asked about their content, which is the
    old side's: its numstat of adding those files to an empty tree.
    """
    moved = [f for f in diff.files if f.moved_unchanged]
    if not moved:
        return
    old_paths = [f.old_path for f in moved if f.old_path is not None]
    numstat = ("diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv")
    output = git.run_git(worktree.root, *numstat, git.empty_tree(worktree), sides.old, "--", *old_paths)
    binary = binary_paths(output)
    for file in moved:
        file.binary = file.old_path in binary


def _measure_binaries(worktree: Worktree, diff: Diff) -> None:
    """Give binary files their sizes, since their content is not shown."""
    binaries = [f for f in diff.files if f.binary]
    if not binaries:
        return
    empty = {"0"}
    wanted = [b for f in binaries for b in (f.old_blob, f.new_blob) if set(b) != empty]
    sizes = git.blob_sizes(worktree, wanted)
    for file in binaries:
        file.old_size = sizes.get(file.old_blob)
        if file.from_working_tree:
            try:
                file.new_size = (worktree.root / file.path).stat().st_size
            except OSError:
                file.new_size = None
        else:
            file.new_size = sizes.get(file.new_blob)


def load_file(worktree: Worktree, sides: Sides, file: FileDiff, context: int) -> FileDiff:
    """`file` again with `context` lines around each change (the same file, fresh from git)."""
    paths = [file.path] if file.old_path is None else [file.old_path, file.path]
    output = git.diff_output(
        worktree,
        sides.old,
        sides.new,
        cached=sides.cached,
        untracked=sides.untracked,
        paths=paths,
        context=context,
    )
    for candidate in parse(output).files:
        if candidate.path == file.path:
            return candidate
    return file


def renamed(worktree: Worktree, sides: Sides) -> dict[str, str]:
    """Old path → new path of the files renamed between the sides, read without the patch."""
    output = git.diff_output(
        worktree, sides.old, sides.new, cached=sides.cached, untracked=sides.untracked, patch=False
    )
    return renames(output)
