"""What is reviewed: the two sides a worktree's diff is taken between, and loading that diff.

The default is everything the agent changed: from where its branch left the default branch to
the working tree, committed, staged, unstaged and untracked work alike.
"""

from __future__ import annotations

import os
from bisect import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import suppress
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

from review.background import in_a_thread
from review.errors import BadRevision
from review.repo import git
from review.repo.diff import Diff, FileDiff, Record, Status, binary_paths, joined, parse, renames
from review.repo.git import Worktree


class Scope(NamedTuple):
    """The reviewer's choice of what to compare; at most one field is set."""

    staged: bool = False
    """HEAD against the index."""
    base: str | None = None
    """Where the branch left REF against the working tree."""
    range: str | None = None
    """`A..B` (A against B) or `A...B` (their merge-base against B)."""
    since_review: bool = False
    """What changed since the reviewer last sent a review, uncommitted work included."""


class Since(NamedTuple):
    """The review sent last: what `since_review` compares against. The review state knows it
    (`review.state.rounds.last_sent`); what is compared is a matter of git alone."""

    round: str
    snapshot: str | None
    """The commit recording the worktree as it was reviewed."""


class Sides(NamedTuple):
    """A scope resolved to concrete objects."""

    old: str
    """The commit or tree on the old side."""
    new: str | None
    """The commit on the new side; None for the working tree (or the index when `cached`)."""
    cached: bool
    untracked: bool
    label: str
    """How the header names the comparison, e.g. `main...working tree`."""

    @property
    def working_tree(self) -> bool:
        """Whether the new side is the working tree's files."""
        return self.new is None and not self.cached


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
        # Unrelated histories: what the branch did is its last commit's tree. In a shallow clone
        # the branch point is only missing, and HEAD is the nearest stand-in there is: the label
        # says so, lest the agent's commits seem to be nothing (short, to keep its place in the
        # header; the overview's row says more).
        missing = " (shallow clone)" if git.is_shallow(worktree) else ""
        return Sides(head, None, False, True, f"HEAD...{WORKING_TREE}{missing}")
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


PARTS_FROM = 256
"""Files from which a diff read in parts (see `read`) is read in as many parts as there are cores."""
PARTS_FROM_BYTES = 32 << 20
"""Bytes of its files' new side (`new_side_has`) from which such a diff is read in parts: below,
a git of its own for each part costs the screen's start more than it saves. (On two cores, a
diff of 8.5 MB of files, 130,000 changed lines, came 30 ms sooner read whole; one of 26 MB about
as soon either way; one of 65 MB, 1,000,000 changed lines, 110 ms sooner in parts.)"""
MOST_PARTS = 4
"""Parts a diff is read in at most (each part's patches are kept apart, `diff.PARSED_LINES`)."""
NEW_AT_MOST = 64
"""New files (untracked ones among them) that the parts after the first may hold at most, in a
diff with the untracked files; with more, the diff is read whole: git is slower at them in parts
(10,000 untracked files were read 60 ms slower in two parts than whole, the parts reading the
first git's copy of the index, where they are added already)."""
PATHS_AT_MOST = 100_000
"""Bytes of paths the git reading a part is given at most, on its command line (Linux allows 2 MB
for it all, macOS 1 MB); a diff whose parts need more is read whole."""


def read(
    worktree: Worktree,
    sides: Sides,
    *,
    paths: Sequence[str] = (),
    running: git.Running | None = None,
    named: Callable[[list[Record]], None] | None = None,
    parsed: Callable[[FileDiff], bool] | None = None,
    in_parts: bool = False,
) -> Diff:
    """The diff between two resolved sides (of `paths` alone, when given), parsed as git writes
    it; `running` is its reading already started (`start`); `named` is given its files' records
    before their patches are read, `parsed` each file once its patch is (see `parse`). A large
    one stays in git's temporary file, read back a file at a time.

    `in_parts`: a diff of many files and bytes (`PARTS_FROM`, `PARTS_FROM_BYTES`) is read by a
    git on each core, each reading the patches of some of its files, for a screen that waits for
    it: git works out a diff on one core, and takes most of a second for a million changed
    lines."""
    output = running or start(worktree, sides, paths)
    diff = _read_in_parts(worktree, sides, output, named, parsed) if in_parts else parse(output, named, parsed)
    _mark_moved_binaries(worktree, sides, diff)
    _measure_binaries(worktree, sides, diff)
    return diff


def start(worktree: Worktree, sides: Sides, paths: Sequence[str] = ()) -> git.Running:
    """Start git reading the diff between the sides (see `read`)."""
    return git.start_diff(worktree, sides.old, sides.new, cached=sides.cached, untracked=sides.untracked, paths=paths)


def _read_in_parts(
    worktree: Worktree,
    sides: Sides,
    output: git.Running,
    named: Callable[[list[Record]], None] | None,
    parsed: Callable[[FileDiff], bool] | None,
) -> Diff:
    """The diff `output` is the whole of, its first part's patches read from it and the others'
    by gits of their own, started as soon as `output` names the files (git stops once the first
    part is read); read whole from `output` when it is not to be read in parts (`_parts`).

    Each other part is parsed in a thread of its own as its git writes it: the first part's
    parse mostly waits for its git, and a part parsed after it kept one core alone busy (the
    huge diff's second part, 160 ms)."""
    others: list[Future[Diff]] = []
    found: list[Record] = []

    def split(records: list[Record]) -> int | None:
        parts = _parts(worktree, sides, records)
        if parts is None:
            return None
        first, wanted = parts
        found.extend(records)
        for paths in wanted:
            # (from the first git's copy of the index, the untracked files added to it, if it
            # has one still: listing and adding them again took a part's git 30 ms more to start)
            running = output.of_paths(paths) or start(worktree, sides, paths)
            others.append(in_a_thread(partial(parse, running), "review-part"))
        return first

    until_shown = _UntilTrue(parsed)
    try:
        first_part = parse(output, named, until_shown, split=split)
    finally:
        # (whatever happens here, the other parts are left once they are done with their gits)
        failures = [other.exception() for other in others]
    if not found:
        return first_part
    failed = next((failure for failure in failures if failure is not None), None)
    if failed is not None:
        raise failed
    pieces = [first_part, *(other.result() for other in others)]
    for file in (file for piece in pieces[1:] for file in piece.files):
        if until_shown(file):
            break
    return joined(pieces, found) or parse(start(worktree, sides), parsed=until_shown)


def _parts(worktree: Worktree, sides: Sides, found: Sequence[Record]) -> tuple[int, list[list[str]]] | None:
    """How many of `found`'s files the first part has, and what the gits reading the other
    parts are given (`_pathspecs`); None when the diff is read whole: it has few files or few
    bytes, this machine one core, or the other parts would hold many new files or too many
    paths."""
    parts = min(_cores(), MOST_PARTS) if len(found) >= PARTS_FROM else 1
    if parts < 2:
        return None
    bounds = [len(found) * part // parts for part in range(parts + 1)]
    # (the new files are counted in the records before any file is looked at: the 10,000 files
    # of a diff of untracked files were looked at only for it to be read whole, and its first
    # opening came 75 ms later)
    if sides.untracked and sum(meta[4] == "A" for meta, _ in found[bounds[1] :]) > NEW_AT_MOST:
        return None
    if not new_side_has(worktree, sides, found, PARTS_FROM_BYTES):
        return None
    wanted = _pathspecs(found, bounds)
    if wanted is None or any(sum(len(os.fsencode(p)) + 1 for p in paths) > PATHS_AT_MOST for paths in wanted):
        return None
    return bounds[1], wanted


def new_side_has(worktree: Worktree, sides: Sides, found: Sequence[Record], size: int) -> bool:
    """Whether the new side of the files `found` names comes to `size` bytes or more: what git
    compares them with, the working tree's files (looked at until there are enough of them) or
    the objects of a commit or of the index."""
    if sides.working_tree:
        total = 0
        for _, paths in found:
            if total >= size:
                break
            with suppress(OSError):  # (a deleted file has no new side)
                total += (worktree.root / paths[-1]).lstat().st_size
        return total >= size
    named = [new_blob for (_, _, _, new_blob, _), _ in found if set(new_blob) != {"0"}]
    return sum(git.blob_sizes(worktree, named).values()) >= size


def _pathspecs(found: Sequence[Record], bounds: Sequence[int]) -> list[list[str]] | None:
    """What git is given to read each part after the first (`found[begin:end]` for each pair of
    `bounds`), and no other file of the diff: the folders all of whose files in the diff are in
    the part, and the part's other files one by one (git matches each file it looks at against
    every path it is given: on the huge diff, 1,000 files named one by one, where 36 paths name
    them now). None when a file is in two parts (the source of a copy that is changed itself),
    which git would read twice."""
    # the first and the last record each folder and file is in
    spans: dict[str, list[int]] = {}
    for index, (_, paths) in enumerate(found):
        for path in paths:
            while path:
                span = spans.setdefault(path, [index, index])
                span[0], span[1] = min(span[0], index), max(span[1], index)
                path = path.rpartition("/")[0]
    parts = []
    for begin, end in pairwise(bounds[1:]):
        wanted: dict[str, None] = {}
        for _, paths in found[begin:end]:
            for path in paths:
                # the shallowest folder (or else the file) that is the part's alone
                folders = [path]
                while "/" in folders[-1]:
                    folders.append(folders[-1].rpartition("/")[0])
                alone = [f for f in reversed(folders) if begin <= spans[f][0] and spans[f][1] < end]
                if not alone:
                    return None
                wanted[alone[0]] = None
        parts.append(list(wanted))
    return parts


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):  # (not on macOS)
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class _UntilTrue:
    """A callback asked until it returns True, through the parse of each part of a diff."""

    def __init__(self, callback: Callable[[FileDiff], bool] | None) -> None:
        self._callback = callback

    def __call__(self, file: FileDiff) -> bool:
        if self._callback is not None and self._callback(file):
            self._callback = None
        return self._callback is None


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


def _measure_binaries(worktree: Worktree, sides: Sides, diff: Diff) -> None:
    """Give binary files their sizes, since their content is not shown: the new side's from the
    working tree's file when that is the side (git names the blob of such a file when it looked
    for renames among it, without storing it)."""
    binaries = [f for f in diff.files if f.binary]
    if not binaries:
        return
    stored = [f.old_blob for f in binaries] + ([] if sides.working_tree else [f.new_blob for f in binaries])
    sizes = git.blob_sizes(worktree, [blob for blob in stored if set(blob) != {"0"}])
    for file in binaries:
        file.old_size = sizes.get(file.old_blob)
        if not sides.working_tree:
            file.new_size = sizes.get(file.new_blob)
        elif file.status is not Status.DELETED:
            try:
                file.new_size = (worktree.root / file.path).stat().st_size
            except OSError:
                file.new_size = None


def load_file(worktree: Worktree, sides: Sides, file: FileDiff, context: int) -> FileDiff:
    """`file` again with `context` lines around each change (the same file, fresh from git)."""
    paths = [file.path] if file.old_path is None else [file.old_path, file.path]
    for candidate in parse(_diff_output(worktree, sides, paths=paths, context=context)).files:
        if candidate.path == file.path:
            return candidate
    return file


GIT_SETTINGS = frozenset({".gitignore", ".gitattributes", ".gitmodules"})
"""Files that change what git compares or how it shows other files: which files are ignored,
which are binary, where the submodules are."""

_PAIRED = frozenset({Status.ADDED, Status.DELETED, Status.RENAMED, Status.COPIED})
"""A file git's rename and copy detection may pair with another: its entry depends on more than
its own content."""

_COPIES = frozenset({Status.ADDED, Status.RENAMED, Status.COPIED})
"""A file git may find to be a copy of a modified one (`--find-copies` looks for the sources of
added files among the files modified in the same diff)."""


def reread(
    worktree: Worktree, sides: Sides, diff: Diff, changed: Iterable[str], context: Mapping[str, int] | None = None
) -> Diff | None:
    """`diff` after the files at `changed` (absolute paths, as the file watcher reports them)
    changed: only those files read again from git and spliced in, in git's order, the
    `FileDiff` of every other file (and of a file whose diff is the same) kept as it is.

    `diff` itself when nothing it shows can have changed: the working tree is not one of the
    sides, or no change touched a file of the diff. None when only a full `read` gives the same
    diff as git would: the git folder changed (HEAD, a branch, the index), a file that sets how
    git reads others did (.gitignore, .gitattributes, .gitmodules), a change is inside a nested
    repository (git sees only its commit), or git's rename and copy detection may pair a changed
    file with another (it is or was added, deleted, renamed or copied, or it enters or leaves a
    diff that has added files). `context` gives the files read with more context than git's
    default, by path.
    """
    paths = _worktree_paths(worktree, changed)
    if paths is None:
        return None
    if not paths or not sides.working_tree:
        return diff
    covered = {f for f in diff.files if _covers(paths, f.path) or (f.old_path and _covers(paths, f.old_path))}
    if any(f.status in _PAIRED for f in covered):
        return None
    fresh = {f.path: f for f in _read_paths(worktree, sides, sorted(paths), context or {})}
    if any(f.status in _PAIRED for f in fresh.values()):
        return None
    before = {f.path for f in covered}
    if before != fresh.keys() and any(f.status in _COPIES for f in diff.files):
        return None  # a file entering or leaving the diff may be the source of a copy
    files: list[FileDiff] = []
    for file in diff.files:
        if file not in covered:
            files.append(file)
        elif (again := fresh.get(file.path)) is not None:
            files.append(file if _same(file, again) else again)
    for path in sorted(fresh.keys() - before, key=os.fsencode):
        files.insert(bisect(files, os.fsencode(path), key=_order), fresh[path])
    if len(files) == len(diff.files) and all(a is b for a, b in zip(files, diff.files, strict=True)):
        return diff
    size = diff.size + sum(f.patch_size for f in fresh.values()) - sum(f.patch_size for f in covered)
    return Diff(files=files, size=size)


def _worktree_paths(worktree: Worktree, changed: Iterable[str]) -> set[str] | None:
    """The paths in the worktree, relative to its root, that `changed` names (review's own folder
    left out); None when a change may change more than the diffs of its own files."""
    found: set[str] = set()
    for name in changed:
        path = Path(name)
        if path.is_relative_to(worktree.git_dir) or path.is_relative_to(worktree.common_dir):
            return None
        if not path.is_relative_to(worktree.root):
            return None
        parts = path.relative_to(worktree.root).parts
        if not parts or parts[0] == ".git" or parts[-1] in GIT_SETTINGS or _in_nested_repository(worktree, parts):
            return None
        if parts[0] != git.STATE_FOLDER:
            found.add("/".join(parts))
    return found


def _in_nested_repository(worktree: Worktree, parts: tuple[str, ...]) -> bool:
    """Whether a folder above the path holds a repository of its own (a submodule, say), whose
    files git does not diff one by one."""
    return any((worktree.root.joinpath(*parts[:depth]) / ".git").exists() for depth in range(1, len(parts)))


def _covers(paths: set[str], path: str) -> bool:
    """Whether `path` is one of `paths` or inside one of them (a folder)."""
    if path in paths:
        return True
    folder, sep, _ = path.rpartition("/")
    while sep:
        if folder in paths:
            return True
        folder, sep, _ = folder.rpartition("/")
    return False


def _read_paths(worktree: Worktree, sides: Sides, paths: list[str], context: Mapping[str, int]) -> list[FileDiff]:
    """The diff of `paths` alone, each read with its context."""
    by_context: dict[int | None, list[str]] = {}
    for path in paths:
        by_context.setdefault(context.get(path), []).append(path)
    files: list[FileDiff] = []
    for lines, group in by_context.items():
        files.extend(parse(_diff_output(worktree, sides, paths=group, context=lines)).files)
    _measure_binaries(worktree, sides, Diff(files=files, size=0))
    return files


def _same(old: FileDiff, new: FileDiff) -> bool:
    """Whether a file read again shows what it showed: then its model, with the hunks parsed and
    drawn, is kept."""
    return _record(old) == _record(new) and old.patch == new.patch


def _record(file: FileDiff) -> tuple[object, ...]:
    """What a file's entry says besides its patch (a binary file's patch does not show its size)."""
    return (file.status, file.old_mode, file.new_mode, file.old_blob, file.new_blob, file.old_size, file.new_size)


def _order(file: FileDiff) -> bytes:
    """Where git puts a file in its diff: by its path's bytes."""
    return os.fsencode(file.path)


def renamed(worktree: Worktree, sides: Sides) -> dict[str, str]:
    """Old path → new path of the files renamed between the sides, read without the patch."""
    return renames(_diff_output(worktree, sides, patch=False))


def _diff_output(
    worktree: Worktree, sides: Sides, *, paths: Sequence[str] = (), context: int | None = None, patch: bool = True
) -> bytes:
    """`git.diff_output` between the two sides."""
    return git.diff_output(
        worktree,
        sides.old,
        sides.new,
        cached=sides.cached,
        untracked=sides.untracked,
        paths=paths,
        context=context,
        patch=patch,
    )
