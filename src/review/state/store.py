"""The review state of one worktree, kept in `<worktree>/.review/review.json`.

Every process that changes a review (the TUI, an agent's `review resolve`, a hook) goes through
`Store.update`: it takes an exclusive lock, re-reads the file, applies its change and replaces the
file atomically. Two writers therefore never lose each other's change, and a reader, which takes
no lock, sees the old file or the new one, never part of one. A file that cannot be understood is
never overwritten: the user is told which file and why, and a copy of it is kept.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import secrets
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import (
    Any,
    Literal,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from review.errors import CannotWrite, ReviewLocked, UnknownComment, UnreadableReview, UnwritableReview
from review.repo.git import STATE_FOLDER

SCHEMA = "review/1"
"""The schema this version writes; older ones are upgraded through `MIGRATIONS` when read."""

FOLDER = STATE_FOLDER
LOCK_TIMEOUT = 10.0
"""Seconds a writer waits for another to finish before giving up."""

Author = Literal["reviewer", "agent"]
Side = Literal["new", "old"]
Severity = Literal["must", "should", "nit", "question"]
CommentStatus = Literal["draft", "open", "addressed", "resolved", "wontfix"]
AnchorState = Literal["exact", "moved", "changed", "lost"]
Verdict = Literal["request_changes", "comment", "approve"]

Migration = Callable[[dict[str, Any]], dict[str, Any]]
MIGRATIONS: dict[str, Migration] = {}
"""Older schema -> a function that upgrades a document one step and sets its new `schema`."""

_T = TypeVar("_T")


def now() -> str:
    """The current UTC time as the review file records it, e.g. "2026-11-29T17:41:29Z"."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(kw_only=True)
class Reply:
    """One message in a comment's thread."""

    author: Author
    body: str
    at: str = field(default_factory=now)
    delivered_at: str | None = None
    """When the agent was told of a reviewer's reply; None until then (and for the agent's own)."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Anchor:
    """The code a comment was written on, so it can be found again after the code changes."""

    lines: list[str]
    """The text of the commented lines."""
    before: list[str] = field(default_factory=list)
    """A few lines of context above them."""
    after: list[str] = field(default_factory=list)
    """A few lines of context below them."""
    source: str | None = None
    """The blob or commit the lines were read from; None for the working tree."""
    line: int | None = None
    """The first commented line's number when the comment was written."""
    end_line: int | None = None
    """The last commented line's number when the comment was written."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Comment:
    """A reviewer's comment on a range of lines of a file, or on the whole file."""

    id: str
    path: str
    old_path: str | None = None
    """The path before a rename."""
    side: Side = "new"
    line: int | None = None
    """The first line, 1-based, on `side`; None for a file-level comment."""
    end_line: int | None = None
    body: str
    """Markdown."""
    severity: Severity = "should"
    status: CommentStatus = "draft"
    anchor: Anchor | None = None
    anchor_state: AnchorState = "exact"
    thread: list[Reply] = field(default_factory=list)
    round: str | None = None
    """The id of the round the comment was sent in; None while it is a draft."""
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Round:
    """One sending of the review: a verdict, a summary and the comments sent with it."""

    id: str
    verdict: Verdict
    summary: str = ""
    sent_at: str = field(default_factory=now)
    snapshot: str | None = None
    """The git tree that was reviewed."""
    comment_ids: list[str] = field(default_factory=list)
    delivered_at: str | None = None
    """When an agent was told of this round; None until then."""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""


@dataclass(kw_only=True)
class Review:
    """The whole review state of a worktree."""

    schema: str = SCHEMA
    rounds: list[Round] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    viewed: dict[str, str] = field(default_factory=dict)
    """Path -> fingerprint of the file's diff when the reviewer marked it viewed."""
    next_comment: int = 1
    next_round: int = 1
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    """Keys this version does not know, written back as they were."""

    def new_comment_id(self) -> str:
        """A comment id ("c1", "c2", …) never given before in this review; advances the counter."""
        id, self.next_comment = _fresh("c", self.next_comment, {comment.id for comment in self.comments})
        return id

    def new_round_id(self) -> str:
        """A round id ("r1", "r2", …) never given before in this review; advances the counter."""
        id, self.next_round = _fresh("r", self.next_round, {sent.id for sent in self.rounds})
        return id

    def comment(self, id: str) -> Comment:
        """The comment with this id.

        Raises:
            UnknownComment: no comment has this id.
        """
        for comment in self.comments:
            if comment.id == id:
                return comment
        raise UnknownComment(f"no comment '{id}' in this worktree's review")

    def latest_round(self) -> Round | None:
        """The round sent last; None before the first is sent."""
        return self.rounds[-1] if self.rounds else None

    def mark_viewed(self, path: str, fingerprint: str) -> None:
        """Record that the reviewer has seen the file's diff as it is now."""
        self.viewed[path] = fingerprint

    def unmark_viewed(self, path: str) -> None:
        """Forget that the file was viewed."""
        self.viewed.pop(path, None)

    def is_viewed(self, path: str, fingerprint: str) -> bool:
        """Whether the file was marked viewed and its diff has not changed since."""
        return self.viewed.get(path) == fingerprint


def _fresh(prefix: str, counter: int, taken: set[str]) -> tuple[str, int]:
    """The next id from `counter` that is not taken (a hand-edited file may be ahead of the
    counter), and the counter after it."""
    while f"{prefix}{counter}" in taken:
        counter += 1
    return f"{prefix}{counter}", counter + 1


class Store:
    """The review state of the worktree at `root`, in `root/.review/`."""

    def __init__(self, root: Path, *, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.root = Path(root)
        self.folder = self.root / FOLDER
        self.path = self.folder / "review.json"
        self.lock_path = self.folder / "lock"
        self.lock_timeout = lock_timeout

    def read(self) -> Review:
        """The review as it is on disk; an empty one when nothing was written yet.

        Raises:
            UnreadableReview: the file cannot be read or understood.
        """
        return self._load()[0]

    def update(self, change: Callable[[Review], _T]) -> _T:
        """Apply `change` to the review on disk and write the result; returns what it returns.

        Holding the lock from the re-read to the write is what lets two processes change the
        review at the same moment without losing either change. If `change` raises, nothing
        is written.

        Raises:
            UnreadableReview: the file cannot be read or understood; it is left untouched.
            ReviewLocked: another process held the lock for `lock_timeout` seconds.
            UnwritableReview: the folder or the file cannot be written.
        """
        self.make_folder()
        with self._locked():
            review, before = self._load()
            result = change(review)
            after = _dump(review)
            # An unchanged file is not rewritten, so watchers are not woken for nothing.
            if after != before:
                try:
                    replace_atomically(self.path, after)
                except CannotWrite as error:
                    raise UnwritableReview(str(error)) from None
        return result

    def make_folder(self) -> None:
        """Create `.review/` with its `.gitignore`, if they are not there yet.

        Raises:
            UnwritableReview: the folder cannot be written.
        """
        # The .gitignore comes first, so git never sees the state, whatever happens next.
        try:
            self.folder.mkdir(exist_ok=True)
            ignore = self.folder / ".gitignore"
            if not ignore.exists():
                replace_atomically(ignore, b"*\n")
        except CannotWrite as error:
            raise UnwritableReview(str(error)) from None
        except OSError as error:
            raise UnwritableReview(f"cannot write in {self.folder}: {error.strerror}") from None

    @contextmanager
    def _locked(self) -> Iterator[None]:
        # flock has no timeout, a thread blocked in it cannot be cancelled and SIGALRM works only
        # in the main thread, so we poll. A flock belongs to an open file description, so two
        # threads of one process exclude each other as two processes do.
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as error:
            raise UnwritableReview(f"cannot open {self.lock_path}: {error.strerror}") from None
        try:
            deadline = time.monotonic() + self.lock_timeout
            pause = 0.001
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise ReviewLocked(
                            f"another process has held {self.lock_path} for {self.lock_timeout:g} s;"
                            " try again when it has finished"
                        ) from None
                    time.sleep(pause)
                    pause = min(pause * 2, 0.02)
            yield
        finally:
            os.close(fd)

    def _load(self) -> tuple[Review, bytes | None]:
        try:
            with open(self.path, "rb") as file:
                data = file.read()
                written = os.fstat(file.fileno()).st_mtime
        except FileNotFoundError:
            return Review(), None
        except OSError as error:
            raise UnreadableReview(f"{self.path} cannot be read: {error.strerror}") from None
        try:
            return _parse(data), data
        except _Newer as newer:
            raise UnreadableReview(
                f"{self.path} was written by a newer version of review (schema '{newer}';"
                f" this one reads '{SCHEMA}'); upgrade review to use it"
            ) from None
        except _Invalid as invalid:
            raise UnreadableReview(
                f"{self.path} cannot be read ({invalid}); {self._keep_copy(data, written)};"
                " fix it or remove it to start again"
            ) from None

    def _keep_copy(self, data: bytes, written: float) -> str:
        # One copy per distinct broken content, named after when it was written, so that
        # reading the same broken file again (or from another process) makes no new copy.
        for existing in sorted(self.folder.glob(f"{self.path.name}.broken-*")):
            try:
                if existing.read_bytes() == data:
                    return f"a copy is kept at {existing}"
            except OSError:
                continue
        stamp = datetime.fromtimestamp(written, UTC).strftime("%Y%m%dT%H%M%S")
        copy = self.folder / f"{self.path.name}.broken-{stamp}"
        number = 2
        while copy.exists():
            copy = self.folder / f"{self.path.name}.broken-{stamp}-{number}"
            number += 1
        try:
            replace_atomically(copy, data)
        except CannotWrite as error:
            return f"no copy could be kept ({error})"
        return f"a copy is kept at {copy}"


def replace_atomically(target: Path, data: bytes) -> None:
    """Write `data` to `target` so that a reader sees the old file or the new one, whole.

    Every file review writes goes through here, so a full disk or a read-only folder is always
    the program's own one-line error, never an `OSError` that escapes to the user.

    Raises:
        CannotWrite: the file or its folder cannot be written.
    """
    try:
        _replace(target, data)
    except OSError as error:
        raise CannotWrite(f"cannot write {target}: {error.strerror or error}") from None


def _replace(target: Path, data: bytes) -> None:
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    # The rename itself is durable only once the folder is synced.
    folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _dump(review: Review) -> bytes:
    text = json.dumps(_to_json(review), indent=2, ensure_ascii=False) + "\n"
    # Paths that are not UTF-8 reach us with lone surrogates (surrogateescape); as \u escapes
    # they survive the round trip while the rest of the file stays readable.
    text = re.sub("[\ud800-\udfff]", lambda match: f"\\u{ord(match.group()):04x}", text)
    return text.encode("utf-8")


def _to_json(value: Any) -> Any:
    if isinstance(value, Reply | Anchor | Comment | Round | Review):
        out = {spec.name: _to_json(getattr(value, spec.name)) for spec in fields(value) if spec.name != "extra"}
        for key, unknown in value.extra.items():
            out.setdefault(key, unknown)
        return out
    if isinstance(value, list):
        return [_to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _to_json(item) for key, item in value.items()}
    return value


class _Invalid(Exception):
    """Why a document does not fit the model, saying where in it."""


class _Newer(Exception):
    """The document's schema is newer than this version knows; the message is the schema."""


def _parse(data: bytes) -> Review:
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise _Invalid(f"not UTF-8 text at byte {error.start}") from None
    except json.JSONDecodeError as error:
        raise _Invalid(f"line {error.lineno}, column {error.colno}: {error.msg}") from None
    return cast(Review, _from_json(Review, _upgrade(document), ""))


def _upgrade(document: Any) -> Any:
    """The document brought to the current schema through `MIGRATIONS`, one step at a time."""
    for _ in range(len(MIGRATIONS) + 1):
        if not isinstance(document, dict):
            raise _Invalid(f"the top level is {_shown(document)}, not an object")
        schema = document.get("schema")
        if schema == SCHEMA:
            return document
        if not isinstance(schema, str):
            raise _Invalid(f"schema is {_shown(schema)}, not '{SCHEMA}'")
        if _schema_number(schema) > _schema_number(SCHEMA):
            raise _Newer(schema)
        migrate = MIGRATIONS.get(schema)
        if migrate is None:
            raise _Invalid(f"unknown schema '{schema}'")
        try:
            document = migrate(document)
        except (KeyError, TypeError, ValueError) as error:
            raise _Invalid(f"upgrading from schema '{schema}' failed: {error!r}") from None
    raise _Invalid("the schema upgrades go round in a circle")


def _schema_number(schema: str) -> int:
    match = re.fullmatch(r"review/(\d+)", schema)
    return int(match.group(1)) if match else 0


@cache
def _hints(kind: type) -> dict[str, Any]:
    return get_type_hints(kind)


def _from_json(kind: Any, value: Any, where: str) -> Any:
    """`value` checked against the type `kind` and turned into it; `where` names it in errors."""
    origin = get_origin(kind)
    if isinstance(kind, type) and is_dataclass(kind):
        return _object_from_json(kind, value, where)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(kind):
            return None
        (present,) = [option for option in get_args(kind) if option is not type(None)]
        return _from_json(present, value, where)
    if origin is Literal:
        allowed = get_args(kind)
        if not isinstance(value, str) or value not in allowed:
            raise _Invalid(f"{where} is {_shown(value)}, not one of {', '.join(allowed)}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise _Invalid(f"{where} is {_shown(value)}, not a list")
        (item,) = get_args(kind)
        return [_from_json(item, each, f"{where}[{index}]") for index, each in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise _Invalid(f"{where} is {_shown(value)}, not an object")
        _, item = get_args(kind)
        return {key: _from_json(item, each, f"{where}.{key}") for key, each in value.items()}
    if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise _Invalid(f"{where} is {_shown(value)}, not a whole number")
    if kind is str and not isinstance(value, str):
        raise _Invalid(f"{where} is {_shown(value)}, not a string")
    return value


def _object_from_json(kind: Any, value: Any, where: str) -> Any:
    if not isinstance(value, dict):
        raise _Invalid(f"{where or 'the top level'} is {_shown(value)}, not an object")
    hints = _hints(kind)
    names = {spec.name for spec in fields(kind)} - {"extra"}
    known: dict[str, Any] = {}
    for spec in fields(kind):
        if spec.name not in names:
            continue
        inner = f"{where}.{spec.name}" if where else spec.name
        if spec.name in value:
            known[spec.name] = _from_json(hints[spec.name], value[spec.name], inner)
        elif spec.default is MISSING and spec.default_factory is MISSING:
            raise _Invalid(f"{inner} is missing")
    unknown = {key: each for key, each in value.items() if key not in names}
    return kind(**known, extra=unknown)


def _shown(value: Any) -> str:
    """A JSON value as an error message quotes it: short, and on one line."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
