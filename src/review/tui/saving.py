"""The reviewer's changes to the review, saved in the background in the order they were made.

Saving takes the review's lock (an agent may hold it for seconds), fsyncs, and may run git, so it
never runs on the UI thread. A change that cannot be saved yet, because the review file is
unreadable, locked or unwritable, stays queued with everything after it, and is tried again when
the review file changes and every few seconds. Meanwhile the text the reviewer typed is also kept
in `.review/unsaved.md`, so that nothing typed is lost even if the viewer is closed or killed.

The text of an open editor goes there too, as the reviewer types (`typing`), and stays there until
the change it becomes is saved: a viewer killed while a comment is written or saved loses at most
the last half second of typing.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from textual.dom import DOMNode

from review.errors import CannotWrite, ReviewError, ReviewLocked, UnreadableReview
from review.state.files import read_own, replace_atomically
from review.state.model import Review, now
from review.state.store import Store

UNSAVED = "unsaved.md"

# These go away when the file is fixed or the other writer finishes: the change waits for that.
# Any other error is about the change itself (its comment was deleted meanwhile): it is dropped.
_PASSING = (UnreadableReview, ReviewLocked, CannotWrite)

RETRY_SECONDS = 2.0
"""How often a change that could not be saved is tried again, besides when the file changes."""

_HEADING = "# Text written in review that could not be saved\n\n"

TYPING_SECONDS = 0.5
"""How often an open editor's text is put in the unsaved file, when it changed: the most typing a
killed viewer loses."""


@dataclass(eq=False)
class Change:
    """One change the reviewer made: a comment, an edit, a reply, a mark, a sending."""

    what: str
    """What it is, for messages: "comment on src/app.py:12"."""
    save: Callable[[], object]
    """Makes the change through the core; runs on a worker thread, may raise ReviewError."""
    text: str = ""
    """What the reviewer typed, kept in `.review/unsaved.md` while the change is not saved."""
    done: Callable[[object], None] | None = None
    """Called on the UI thread with what `save` returned, once it is saved."""
    failed_at: str | None = field(default=None, init=False)


class Saving:
    """The queue of the reviewer's changes to one worktree's review.

    `owner` is the screen: its workers run the saving, and it is told of every outcome through
    `saved` (a change was saved; with the review as it is now, None if it cannot be read),
    `problem` (a one-line message) and `changed` (the number of changes waiting changed).
    """

    def __init__(
        self,
        owner: DOMNode,
        store: Store,
        *,
        saved: Callable[[Change, Review | None], None],
        problem: Callable[[str], None],
        changed: Callable[[], None],
    ) -> None:
        self._owner = owner
        self._store = store
        self._saved = saved
        self._problem = problem
        self._changed = changed
        self._queue: deque[Change] = deque()
        self._lock = threading.Lock()
        self._running = False
        self._stuck = False
        self._unfinished = 0
        self._when_saved: list[Callable[[], None]] = []
        self._kept: list[Change] = []
        """Changes whose text is in the unsaved file: stuck ones, dropped ones for good, and the
        one an editor just closed with, until it is saved."""
        self._typing: tuple[str, str] | None = None
        """What an open editor is about and the text in it, while there is some."""
        self._written = ""
        """What this viewer last wrote in the unsaved file, to be replaced by what it writes next."""
        self._earlier = self._read_earlier()

    @property
    def file(self) -> Path:
        return self._store.folder / UNSAVED

    @property
    def waiting(self) -> int:
        """Changes not saved yet, including the one being saved and one saved whose outcome the
        screen has not heard yet: at 0, the screen shows every change."""
        return self._unfinished

    @property
    def stuck(self) -> bool:
        """Whether the first change failed and waits to be tried again."""
        return self._stuck

    def earlier(self) -> bool:
        """Whether an earlier session left text it could not save in the unsaved file."""
        return bool(self._earlier)

    def typing(self, what: str, text: str) -> None:
        """An open editor about `what` holds `text` (told every `TYPING_SECONDS` while it changes):
        keep it in the unsaved file until the editor closes (`typed`), so that a viewer killed
        meanwhile loses at most the typing since it was last told."""
        self._typing = (what, text) if text.strip() else None
        with suppress(CannotWrite):  # the text is still in the editor, and saved from there
            self._write_kept()

    def typed(self) -> None:
        """The editor closed: its text, unless a change took it over (`add`), was let go."""
        if self._typing is not None:
            self._typing = None
            with suppress(CannotWrite):
                self._write_kept()

    def add(self, change: Change) -> None:
        """Queue a change behind the others and start saving.

        A change with text takes over the text of the editor it was written in: kept in the
        unsaved file until the change is saved, as it is while it was typed."""
        if self._typing is not None and change.text.strip():
            self._typing = None
            self._kept.append(change)
            try:
                self._write_kept()
            except CannotWrite:
                self._kept.remove(change)  # kept again if it cannot be saved
        with self._lock:
            self._queue.append(change)
        self._unfinished += 1
        self._changed()
        if not self._stuck:
            self._start()

    def retry(self) -> None:
        """Try the stuck change again (the review file changed, or time passed)."""
        if self._stuck:
            self._stuck = False
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._running or not self._queue:
                return
            self._running = True
        self._owner.run_worker(self._drain, thread=True, group="saving", exit_on_error=False)

    def _drain(self) -> None:
        """Worker thread: save the changes in order until none is left or one cannot be saved."""
        call = self._owner.app.call_from_thread
        while True:
            with self._lock:
                if not self._queue:
                    self._running = False
                    return
                change = self._queue[0]
            try:
                result = change.save()
            except _PASSING as error:
                with self._lock:
                    self._running = False
                call(self._stick, change, str(error))
                return
            except ReviewError as error:
                self._pop()
                call(self._drop, change, str(error))
                continue
            except Exception as error:  # our bug: the reviewer's text is still kept
                self._pop()
                call(self._drop, change, f"internal error: {type(error).__name__}: {error}")
                continue
            self._pop()
            try:
                review: Review | None = self._store.read()
            except ReviewError:
                review = None
            call(self._finish, change, result, review)

    def _pop(self) -> None:
        with self._lock:
            self._queue.popleft()

    def _finish(self, change: Change, result: object, review: Review | None) -> None:
        if change in self._kept:
            self._kept.remove(change)
            with suppress(CannotWrite):  # the text is in the review now; an old copy harms nothing
                self._write_kept()
        if change.done is not None:
            change.done(result)
        self._saved(change, review)
        self._unfinished -= 1
        self._changed()
        self._call_when_saved()

    def _stick(self, change: Change, reason: str) -> None:
        self._stuck = True
        first = change.failed_at is None
        if first:
            change.failed_at = now()
        kept = self._keep(change)
        if first:
            count = self.waiting
            waiting = f"{count} change{'s' * (count != 1)}" if count > 1 else change.what
            self._problem(f"Not saved yet: {waiting}. {reason}. It is saved as soon as the file can be written{kept}.")
        self._changed()
        self._call_when_saved()

    def _drop(self, change: Change, reason: str) -> None:
        kept = self._keep(change)
        self._problem(f"{change.what[:1].upper()}{change.what[1:]} failed: {reason}{kept}.")
        self._unfinished -= 1
        self._changed()
        self._call_when_saved()

    def when_saved(self, then: Callable[[], None]) -> None:
        """Call `then` once every change made so far is saved (or has failed for good); at once
        when none waits, and as soon as one cannot be saved yet (there is no knowing how long)."""
        self._when_saved.append(then)
        self._call_when_saved()

    def _call_when_saved(self) -> None:
        if self._unfinished and not self._stuck:
            return
        waiting, self._when_saved = self._when_saved, []
        for then in waiting:
            then()

    def _keep(self, change: Change) -> str:
        """Put the change's text in the unsaved file; the words that say so in a message."""
        if not change.text.strip():
            return ""
        if change in self._kept:
            return f"; your text is kept in {self.file}"  # written when it first failed
        self._kept.append(change)
        try:
            self._write_kept()
        except CannotWrite as error:
            self._kept.remove(change)  # tried again with the change
            return f"; your text could not be kept in a file either ({error}): do not quit"
        return f"; your text is kept in {self.file}"

    def _write_kept(self) -> None:
        parts = [f"## {change.what} ({change.failed_at or now()})\n\n{change.text.strip()}" for change in self._kept]
        if self._typing is not None:
            what, text = self._typing
            parts.append(f"## {what} (being written, {now()})\n\n{text.strip()}")
        ours = "\n\n".join(parts)
        others = self._others()
        if not (others or ours):
            self.file.unlink(missing_ok=True)
        else:
            self._store.make_folder()
            replace_atomically(self.file, (_HEADING + "\n\n".join(filter(None, (others, ours))) + "\n").encode())
        self._written = ours

    def _others(self) -> str:
        """The unsaved file without what this viewer last wrote in it: the text of earlier
        sessions, and of another viewer of the same worktree, which it writes there too."""
        try:
            text = read_own(self.file).decode("utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        except UnreadableReview as error:  # a link, or not a plain file: it cannot be written either
            raise CannotWrite(str(error)) from None
        if self._written:
            text = text.replace(self._written, "", 1)
        return text.removeprefix(_HEADING).strip()

    def _read_earlier(self) -> str:
        try:
            return read_own(self.file).decode("utf-8", errors="replace").rstrip() + "\n"
        except (OSError, ReviewError):
            return ""
