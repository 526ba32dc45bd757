"""The git layer: the worktree around a path, its branches, the repository's other worktrees, and
git run with settings that keep its output parseable whatever the user's configuration says."""

from __future__ import annotations

import os
import re
import shutil
import string
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import BinaryIO, NamedTuple

from review.errors import BadRevision, GitFailed, GitTooOld, NotARepository, ReviewError

# Read-only commands must not take index.lock: an agent may be committing in the same worktree.
# (`git diff` against the working tree takes it all the same: `start_diff` gives it a copy.)
# Pathspecs are literal so that a file named '*.py' means that file and nothing else.
_GIT_ENV = {
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_LITERAL_PATHSPECS": "1",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
}

# The user's diff settings (prefixes, colours, external tools, relative paths) must not change
# what we parse.
DIFF_OPTIONS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--find-renames",
    "--find-copies",
    "--submodule=short",
    "--no-abbrev",
    "--full-index",
)
_DIFF_CONFIG = ("-c", "core.quotePath=false", "-c", "diff.suppressBlankEmpty=false")


def run_git(
    cwd: Path | str,
    *args: str,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    ok: Sequence[int] = (0,),
) -> bytes:
    """Run git in `cwd` and return its standard output as bytes.

    Raises:
        GitFailed: git is missing or exited with a status not in `ok`; the message is git's
            own first error line.
    """
    # git writes to a file, not a pipe: reading a pipe needs the GIL for every chunk, and while
    # the UI thread holds it a large output would trickle out of git many times slower.
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.run(
                ["git", *args], cwd=cwd, input=input, stdout=out, stderr=subprocess.PIPE, env=_environment(env)
            )
        except (FileNotFoundError, NotADirectoryError) as error:
            raise _not_started(cwd, error) from None
        if proc.returncode not in ok:
            raise _failure(args, proc.returncode, proc.stderr)
        out.seek(0)
        return out.read()


class Running:
    """A git command running with its standard output going to a temporary file that has no name,
    which can be read while git is still writing it: the parse of a huge diff then keeps pace
    with git rather than starting once git is done (see `diff.parse`).

    Whoever reads the file tells "git has not written this yet" from "the output ends here" by
    asking `written_past`, which waits for git rather than take a pause in its writing for the
    end. The file is closed, and git stopped, on every failure (`stop`).
    """

    def __init__(
        self,
        cwd: Path | str,
        argv: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        ok: Sequence[int] = (0,),
        after: ExitStack | None = None,
        shared: _Shared | None = None,
    ) -> None:
        """Start `argv` (git and its arguments) in `cwd`; `after` is closed once it has ended
        (the copy of the index it reads, say), or here when it cannot start; `shared` is such a
        thing other gits use too (`of_paths`), closed once the last of them has ended.

        Raises:
            GitFailed: git cannot be started (it is not installed, or `cwd` is gone).
        """
        self._cwd, self._argv, self._env = cwd, tuple(argv), env
        self._ok = tuple(ok)
        self._uses = _Shared(after) if after is not None else shared
        self._after = self._uses  # (let go of once)
        self.output: BinaryIO = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop, or by the reader)
        """Where git writes its standard output; the reader closes it (or `stop` does)."""
        # git's errors go to a file too: a pipe left unread would stop git once it is full
        self._errors: BinaryIO = tempfile.TemporaryFile()  # noqa: SIM115 (closed once git has ended)
        try:
            self._process = subprocess.Popen(
                self._argv, cwd=cwd, stdout=self.output, stderr=self._errors, env=_environment(env)
            )
        except BaseException as error:
            self._closed()
            self.output.close()
            if isinstance(error, (FileNotFoundError, NotADirectoryError)):
                raise _not_started(cwd, error) from None
            raise
        self._status: int | None = None
        self._failed: ReviewError | None = None

    def of_paths(self, paths: Sequence[str]) -> Running | None:
        """Another git reading what this one reads (started by `start_diff` for no paths), of
        `paths` alone, from the same copy of the index: the untracked files added to it are not
        listed and added again (for a part of a diff, `scope.read`). None once this one has
        let go of what it read."""
        if self._argv[-1] != "--":
            raise ValueError(f"not a git to be given paths: {self._argv}")
        shared = None
        if self._uses is not None and (shared := self._uses.share()) is None:
            return None
        return Running(self._cwd, [*self._argv, *paths], env=self._env, ok=self._ok, shared=shared)

    def written_past(self, size: int) -> bool:
        """Whether the output holds more than `size` bytes, waiting until it does or git ends:
        False only once git has ended and its output is `size` bytes long.

        Raises:
            GitFailed: git ended with a status not in `ok` (GitTooOld when it is too old for the
                options it was given); the output is closed.
        """
        while True:
            # asked before the size: once git has ended, the size read after it is the last
            ended = self._ended()
            if os.fstat(self.output.fileno()).st_size > size:
                return True
            if ended:
                self.wait()
                return False
            self._pause()

    def wait(self) -> None:
        """Wait for git to end.

        Raises:
            GitFailed: as `written_past`; the output is closed.
        """
        if self._status is None:
            self._settle(self._process.wait())
        if self._failed is not None:
            self.output.close()
            raise self._failed

    def whole(self) -> BinaryIO:
        """The output once git has ended, open at its start; the caller closes it.

        Raises:
            GitFailed: as `written_past`; the output is closed.
        """
        try:
            self.wait()
        except BaseException:
            self.stop()
            raise
        self.output.seek(0)
        return self.output

    def stop(self) -> None:
        """Stop git if it is still running, and close its output."""
        if self._status is None:
            self._process.kill()
            self._status = self._process.wait()
            self._closed()
        self.output.close()

    def halt(self) -> None:
        """Stop git once what is wanted of its output is read, keeping its output (unlike
        `stop`): what it did after that, a failure included, is of no matter."""
        if self._status is None:
            self._process.kill()
            self._status = self._process.wait()
            self._closed()

    def _ended(self) -> bool:
        if self._status is None and (status := self._process.poll()) is not None:
            self._settle(status)
        return self._status is not None

    def _pause(self) -> None:
        """Wait a moment for git to write more, or to end (noticed at once; measured no slower
        than a sleep, see `PAUSE`)."""
        with suppress(subprocess.TimeoutExpired):
            self._process.wait(PAUSE)

    def _settle(self, status: int) -> None:
        """What is done once git has ended: its reason read when it failed, what it used let go."""
        self._status = status
        if status not in self._ok:
            self._errors.seek(0)
            self._failed = _failure(self._argv[1:], status, self._errors.read())
        self._closed()

    def _closed(self) -> None:
        self._errors.close()
        if self._after is not None:
            after, self._after = self._after, None
            after.close()


class _Shared:
    """What one or more gits use (the copy of the index they read), closed once the last of them
    has ended."""

    def __init__(self, after: ExitStack) -> None:
        self._after = after
        self._users = 1
        self._lock = threading.Lock()  # (gits end in whichever thread reads their output)

    def share(self) -> _Shared | None:
        """This for one more git; None once it is closed."""
        with self._lock:
            if not self._users:
                return None
            self._users += 1
            return self

    def close(self) -> None:
        with self._lock:
            self._users -= 1
            last = not self._users
        if last:
            self._after.close()


PAUSE = 0.002
"""Seconds the reader of a `Running` output waits for git between reads that found nothing new."""


def _environment(env: dict[str, str] | None) -> dict[str, str]:
    return {**os.environ, **_GIT_ENV, **(env or {})}


def _not_started(cwd: Path | str, error: FileNotFoundError | NotADirectoryError) -> GitFailed:
    """Why git could not be started in `cwd`."""
    if isinstance(error, NotADirectoryError):
        return GitFailed(f"{cwd} is not a directory")
    if not os.path.isdir(cwd):  # a worktree deleted while it is read, say
        return GitFailed(f"{cwd}: no such file or directory")
    return GitFailed("git is not installed: no 'git' on PATH")


def _failure(args: Sequence[str], status: int, stderr: bytes) -> ReviewError:
    """What git ending with `status` means, in one line."""
    # An old git fails on options it does not know yet: say that, not what it said.
    too_old = _this_git_too_old()
    if too_old:
        return GitTooOld(too_old)
    return GitFailed(_error_line(stderr) or f"git {args[0]} exited with {status}")


OLDEST_GIT = (2, 39)
"""The oldest git review works with. What it needs of git, and since when: `git merge-tree
--stdin` (2.39) with `--write-tree` (2.38) for the overview's trial merges, `git worktree list
--porcelain -z` (2.36), `prunable` in that list (2.31), `git add --pathspec-from-file` (2.25)."""


def version_problem(version: str) -> str | None:
    """Why the git that printed `version` (the line of `git --version`) is too old for review,
    in one line naming both versions; None when it is new enough, or when the line cannot be
    read (git's own errors then say what is wrong)."""
    found = re.match(r"git version (\d+)\.(\d+)\S*", version.strip())
    if found is None or (int(found[1]), int(found[2])) >= OLDEST_GIT:
        return None
    oldest = ".".join(map(str, OLDEST_GIT))
    return f"git {found[0].removeprefix('git version ')} is too old: review needs git {oldest} or newer"


def installed_version() -> str | None:
    """What `git --version` says of the git on PATH ("git version 2.39.5"); None when there is
    no git to ask."""
    try:
        done = subprocess.run(["git", "--version"], capture_output=True, env={**os.environ, **_GIT_ENV}, check=False)
    except OSError:
        return None
    return done.stdout.decode("utf-8", "replace").strip() or None


@cache
def _this_git_too_old() -> str | None:
    """`version_problem` of the git on PATH, asked the first time a git command fails: never
    while none does, so that it costs the first screen nothing."""
    version = installed_version()
    return None if version is None else version_problem(version)


def _error_line(stderr: bytes) -> str:
    """git's reason for stopping, in one line: its last `fatal:` line, with its first line before
    that in brackets when that says something else (a filter's "data.dat: clean filter 'x'
    failed" comes after the "external filter 'false' failed 1" that says why); else its first
    line."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return ""
    first = _unprefixed(lines[0])
    fatal = [_unprefixed(line) for line in lines if line.startswith("fatal: ")]
    if not fatal or fatal[-1] == first:
        return first
    return f"{fatal[-1]} ({first})"


def _unprefixed(line: str) -> str:
    for prefix in ("fatal: ", "error: "):
        line = line.removeprefix(prefix)
    return line


class Worktree(NamedTuple):
    """One working tree of a repository: the main one or a linked one."""

    root: Path
    """The top folder of the working tree."""
    git_dir: Path
    """This worktree's own git folder (`.git`, or `.git/worktrees/NAME` for a linked one)."""
    common_dir: Path
    """The repository's git folder shared by all its worktrees."""
    branch: str | None
    """The checked-out branch's short name; None when HEAD is detached."""
    head: str | None
    """The commit HEAD points to; None before the first commit."""

    @property
    def is_linked(self) -> bool:
        return self.git_dir != self.common_dir


def find_worktree(path: Path | str = ".") -> Worktree:
    """The worktree containing `path`.

    Raises:
        NotARepository: `path` does not exist or is not inside a git working tree.
    """
    start = Path(path).expanduser()
    if not start.exists():
        raise NotARepository(f"{path}: no such file or directory")
    if not start.is_dir():
        start = start.parent
    try:
        start = start.resolve()
    except FileNotFoundError:
        # A shell can stay in a folder that was deleted under it (a worktree removed, say):
        # the folder is there for `stat`, but it has no path to resolve.
        raise NotARepository("the current folder was deleted: cd to a folder that exists") from None
    try:
        out = run_git(start, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir")
    except GitFailed as error:
        message = str(error)
        _, named, gone = message.partition("not a git repository: ")
        if named:
            # A .git file that points to a folder that is not there: the worktree's repository
            # was moved or deleted (git names the folder; without a .git file it names none).
            raise NotARepository(
                f"{path}: its .git file points to {gone}, which is gone (if the repository moved,"
                " `git worktree repair` run in it mends this)"
            ) from None
        if "not a git repository" in message:
            raise NotARepository(f"{path} is not inside a git repository") from None
        if "must be run in a work tree" in message:
            raise NotARepository(f"{path} is not inside a working tree (a bare repository or a .git folder)") from None
        raise NotARepository(f"{path}: {message}") from None
    lines = os.fsdecode(out).split("\n")
    if len(lines) != 4:
        # A line break in the path: each is asked for alone (rev-parse has no -z).
        asked = ("--show-toplevel", "--absolute-git-dir", "--git-common-dir")
        lines = [os.fsdecode(run_git(start, "rev-parse", flag)).removesuffix("\n") for flag in asked]
    if not lines[0]:
        raise NotARepository(f"{path} is not inside a working tree")
    root, git_dir, common = Path(lines[0]), Path(lines[1]), Path(lines[2])
    if not common.is_absolute():
        common = (start / common).resolve()
    branch = _read_head_branch(git_dir)
    head_out = run_git(root, "rev-parse", "--quiet", "--verify", "HEAD^{commit}", ok=(0, 1))
    head = head_out.decode().strip() or None
    return Worktree(root=root, git_dir=git_dir, common_dir=common, branch=branch, head=head)


def last_edit(worktree: Worktree, paths: Iterable[str]) -> float | None:
    """When one of these files, if still in the worktree, was last written."""
    newest: float | None = None
    for path in paths:
        try:
            stamp = (worktree.root / path).stat().st_mtime
        except OSError:
            continue
        newest = stamp if newest is None else max(newest, stamp)
    return newest


def _read_head_branch(git_dir: Path) -> str | None:
    # Reading HEAD ourselves answers both "which branch" and "is it unborn" without a process.
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="surrogateescape").strip()
    except OSError:
        return None
    if head.startswith("ref: refs/heads/"):
        return head.removeprefix("ref: refs/heads/")
    return None


def config_value(worktree: Worktree, key: str) -> str | None:
    """A git config value as the worktree sees it, or None when unset."""
    out = run_git(worktree.root, "config", "--get", key, ok=(0, 1))
    return out.decode("utf-8", "replace").strip() or None


def default_branch(worktree: Worktree) -> str | None:
    """The branch agents' work is measured against: `review.base` from git config, else
    main or master, else what origin calls its default; None when there is none."""
    configured = config_value(worktree, "review.base")
    if configured:
        return configured
    candidates = [
        "refs/heads/main",
        "refs/heads/master",
        "refs/remotes/origin/HEAD",
        "refs/remotes/origin/main",
        "refs/remotes/origin/master",
    ]
    out = run_git(worktree.root, "for-each-ref", "--format=%(refname) %(symref)", *candidates)
    found: dict[str, str] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, target = line.partition(" ")
        found[name] = target
    for ref in candidates:
        if ref not in found:
            continue
        if ref == "refs/remotes/origin/HEAD":
            target = found[ref]
            if not target:
                continue
            return target.removeprefix("refs/remotes/")
        return ref.removeprefix("refs/heads/").removeprefix("refs/remotes/")
    return None


def resolve_commit(worktree: Worktree, rev: str) -> str:
    """The full id of the commit `rev` names.

    Raises:
        BadRevision: the repository has no such commit.
    """
    if not rev or rev.startswith("-"):
        raise BadRevision(f"not a revision: '{rev}'")
    out = run_git(worktree.root, "rev-parse", "--quiet", "--verify", f"{rev}^{{commit}}", ok=(0, 1))
    sha = out.decode().strip()
    if not sha:
        raise BadRevision(f"unknown revision '{rev}'")
    return sha


def merge_base(worktree: Worktree, a: str, b: str) -> str | None:
    """The best common ancestor of two commits; None when their histories are unrelated, or
    when the common ancestor is not in a shallow clone (see `is_shallow`)."""
    out = run_git(worktree.root, "merge-base", a, b, ok=(0, 1))
    return out.decode().strip() or None


def is_shallow(worktree: Worktree) -> bool:
    """Whether the repository is a shallow clone: its history stops where the clone cut it, so
    where a branch left another may not be in it. (git keeps the cut commits in a file of that
    name; reading it costs no process.)"""
    return (worktree.common_dir / "shallow").exists()


def empty_tree(worktree: Worktree) -> str:
    """The id of the empty tree in this repository's hash (SHA-1 or SHA-256)."""
    return run_git(worktree.root, "hash-object", "-t", "tree", "--stdin", input=b"").decode().strip()


class WorktreeEntry(NamedTuple):
    """A worktree as `git worktree list` reports it."""

    path: Path
    head: str | None
    branch: str | None
    detached: bool
    bare: bool
    prunable: bool
    locked: str | None = None
    """Why the worktree is locked ("" when no reason was given); None when it is not."""


def list_worktrees(worktree: Worktree) -> list[WorktreeEntry]:
    """Every worktree of the repository `worktree` belongs to, the main one first."""
    out = run_git(worktree.root, "worktree", "list", "--porcelain", "-z")
    entries: list[WorktreeEntry] = []
    fields: dict[str, str] = {}
    for item in out.split(b"\0"):
        if item:
            key, _, value = os.fsdecode(item).partition(" ")
            fields[key] = value
            continue
        if "worktree" in fields:
            head = fields.get("HEAD")
            entries.append(
                WorktreeEntry(
                    path=Path(fields["worktree"]),
                    head=None if not head or set(head) == {"0"} else head,
                    branch=fields["branch"].removeprefix("refs/heads/") if "branch" in fields else None,
                    detached="detached" in fields,
                    bare="bare" in fields,
                    prunable="prunable" in fields,
                    locked=fields.get("locked"),
                )
            )
        fields = {}
    if entries and not entries[0].bare and entries[0].path == worktree.common_dir:
        # git names a submodule's own working tree by its git folder (.git/modules/NAME): the
        # working tree is where that folder's core.worktree points.
        entries[0] = entries[0]._replace(path=_main_root(worktree))
    return entries


def _main_root(worktree: Worktree) -> Path:
    """The top folder of the main working tree of the repository `worktree` belongs to."""
    if not worktree.is_linked:
        return worktree.root
    out = run_git(worktree.root, f"--git-dir={worktree.common_dir}", "rev-parse", "--show-toplevel")
    return Path(os.fsdecode(out.rstrip(b"\n")))


STATE_FOLDER = ".review"
"""review's own folder in each worktree. It ignores itself in git through its own .gitignore; it
is left out here too, so that it never shows in a diff or a snapshot even when that file is gone."""


def untracked_files(worktree: Worktree, paths: Sequence[str] = (), *, folders: bool = True) -> list[bytes]:
    """Files git does not track and does not ignore, as raw path bytes relative to the root; with
    `folders`, a folder that git tracks nothing in is one entry, ending in `/`. With `paths`,
    only those files and the files in those folders.

    (As pathspecs for `git add`, 10,000 untracked files named one by one take git a second to
    match, and their folder a few milliseconds.)
    """
    out = run_git(
        worktree.root,
        "ls-files",
        "--others",
        "--exclude-standard",
        f"--exclude=/{STATE_FOLDER}/",
        *(("--directory", "--no-empty-directory") if folders else ()),
        "-z",
        "--",
        *paths,
    )
    return [path for path in out.split(b"\0") if path]


def diff_output(
    worktree: Worktree,
    old: str,
    new: str | None = None,
    *,
    cached: bool = False,
    untracked: bool = False,
    paths: Sequence[str] = (),
    context: int | None = None,
    patch: bool = True,
) -> bytes:
    """git's raw records and patch, NUL-separated, between two sides.

    `old` is a commit or tree; `new` a commit, or None for the working tree (or for the index
    when `cached`). With `untracked`, files git does not track yet appear as added files.
    """
    running = start_diff(
        worktree, old, new, cached=cached, untracked=untracked, paths=paths, context=context, patch=patch
    )
    with running.whole() as out:
        return out.read()


def start_diff(
    worktree: Worktree,
    old: str,
    new: str | None = None,
    *,
    cached: bool = False,
    untracked: bool = False,
    paths: Sequence[str] = (),
    context: int | None = None,
    patch: bool = True,
) -> Running:
    """`diff_output` as git writes it, to be read while git runs (see `Running`).

    Raises:
        GitFailed: git cannot be started, or adding the untracked files to a copy of the index
            failed.
    """
    args = ["git", *_DIFF_CONFIG, "diff", "--raw", *(["--patch"] if patch else []), "-z", *DIFF_OPTIONS]
    if context is not None:
        args.append(f"--unified={context}")
    if cached:
        args.append("--cached")
    args.append(old)
    if new is not None:
        args.append(new)
    args.append("--")
    args.extend(paths)
    if new is not None or cached:
        return Running(worktree.root, args)
    # for some paths, only theirs: listing every untracked file (thousands, say) would make
    # reading one file as slow as reading the whole diff
    new_files = untracked_files(worktree, paths) if untracked else []
    # git diff against the working tree refreshes the index it reads when a file's times changed
    # but not its content, under index.lock, whatever GIT_OPTIONAL_LOCKS says (git 2.39): an
    # agent committing meanwhile would fail. So it reads a copy, where the untracked files are
    # marked intent-to-add too, for the diff to show them as new files. The copy is gone once
    # git has ended.
    with ExitStack() as held:
        env = held.enter_context(_index_copy(worktree))
        if new_files:
            run_git(
                worktree.root,
                "add",
                "--intent-to-add",
                *_ADD_WHAT_GIT_CAN,
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
                input=b"\0".join(new_files) + b"\0",
                env=env,
                ok=_ADDED_WHAT_GIT_COULD,
            )
        return Running(worktree.root, args, env=env, after=held.pop_all())


_ADD_WHAT_GIT_CAN = ("--ignore-errors",)
"""`git add` goes on past a path it cannot add, and exits with 1: a repository inside the worktree
with no commit yet (an agent's `git init` in a new folder) has no commit to be recorded by, and
would otherwise stop the diff and the snapshot of everything else. git leaves it out, as
`git status` shows nothing inside it."""
_ADDED_WHAT_GIT_COULD = (0, 1)


@contextmanager
def _index_copy(worktree: Worktree) -> Iterator[dict[str, str]]:
    """The environment that points git at a throwaway copy of the worktree's index, so that what
    is staged there never touches the real one (or the agent's next commit)."""
    folder = tempfile.mkdtemp(prefix="review-index-")
    try:
        index = os.path.join(folder, "index")
        real_path = index_path(worktree)
        if real_path.exists():
            # copy2 keeps the index's modification time: git compares it with each file's to
            # find entries that may have changed in the same second ("racily clean"); a copy
            # that looked newer would hide such an edit from the diff and from the snapshot.
            shutil.copy2(real_path, index)
        yield {"GIT_INDEX_FILE": index}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def index_path(worktree: Worktree) -> Path:
    """The worktree's index file: in its git folder, unless the environment says otherwise."""
    if "GIT_INDEX_FILE" not in os.environ:
        return worktree.git_dir / "index"
    real = run_git(worktree.root, "rev-parse", "--git-path", "index").decode().strip()
    return Path(real) if os.path.isabs(real) else worktree.root / real


def blob_sizes(worktree: Worktree, ids: Sequence[str]) -> dict[str, int]:
    """The size in bytes of each object in `ids` (full ids in hex) that the repository has.

    (One `git cat-file --batch-check` for them all: GitPython did the same, after 60 ms of
    importing itself, on the way to the first screen of a diff with binary files.)"""
    wanted = [name for name in ids if name and not name.strip(string.hexdigits)]
    if not wanted:
        return {}
    out = run_git(
        worktree.root, "cat-file", "--batch-check=%(objectname) %(objectsize)", input="\n".join(wanted).encode()
    )
    sizes: dict[str, int] = {}
    for line in out.decode("ascii", "replace").splitlines():
        name, _, size = line.partition(" ")
        if size.isdigit():  # (else "<name> missing")
            sizes[name] = int(size)
    return sizes


def file_at(worktree: Worktree, rev: str, path: str) -> bytes | None:
    """The content of `path` in the commit or tree `rev`; None when it has no such file."""
    try:
        return run_git(worktree.root, "cat-file", "blob", f"{rev}:{path}")
    except GitFailed:
        return None


def snapshot(worktree: Worktree, message: str, env: dict[str, str] | None = None) -> str:
    """A commit of everything in the working tree now, uncommitted and untracked work included
    (ignored files left out), on top of HEAD. The real index is not touched; `env` may send the
    objects elsewhere (a scratch store)."""
    tree = working_tree(worktree, env)
    parents = ["-p", worktree.head] if worktree.head else []
    return (
        run_git(worktree.root, "commit-tree", tree, *parents, "-m", message, env={**SNAPSHOT_AUTHOR, **(env or {})})
        .decode()
        .strip()
    )


SNAPSHOT_AUTHOR = {
    "GIT_AUTHOR_NAME": "review",
    "GIT_AUTHOR_EMAIL": "review@localhost",
    "GIT_COMMITTER_NAME": "review",
    "GIT_COMMITTER_EMAIL": "review@localhost",
}
"""Snapshots are review's own records, so they need no user name or email from git config."""


def working_tree(worktree: Worktree, env: dict[str, str] | None = None) -> str:
    """The tree of everything in the working tree now, as `snapshot` records it."""
    with _index_copy(worktree) as index:
        staging = {**index, **(env or {})}
        # review's own folder stays out even where its .gitignore is gone (pathspec magic needs
        # non-literal pathspecs for this one call).
        exclude = {"GIT_LITERAL_PATHSPECS": "0"}
        run_git(
            worktree.root,
            "add",
            "--all",
            *_ADD_WHAT_GIT_CAN,
            "--",
            ".",
            f":(exclude){STATE_FOLDER}",
            env={**staging, **exclude},
            ok=_ADDED_WHAT_GIT_COULD,
        )
        return run_git(worktree.root, "write-tree", env=staging).decode().strip()


def keep(worktree: Worktree, ref: str, commit: str) -> None:
    """Point `ref` at `commit`, so git's garbage collection keeps it."""
    run_git(worktree.root, "update-ref", ref, commit)


def worktree_name(worktree: Worktree) -> str:
    """A name for the worktree unique within its repository: its folder under .git/worktrees,
    or "main" for the main worktree."""
    return worktree.git_dir.name if worktree.is_linked else "main"
