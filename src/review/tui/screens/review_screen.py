"""The review screen: a worktree's diff with its file list, kept current while the agent works."""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, wait
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, ParamSpec, cast

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.timer import Timer

from review.errors import ReviewError
from review.repo import git, scope
from review.repo.diff import Diff, FileDiff
from review.repo.git import Worktree
from review.repo.lines import FileReader
from review.repo.scope import Scope, Sides
from review.repo.text import visible
from review.state import comments, notes, rounds
from review.state.comments import Where
from review.state.model import Comment, CommentStatus, Review, Round, Severity, Side, Verdict
from review.state.opening import COLOURS_WAIT, FIRST_SCREEN_WAIT, FirstDiff, file_time
from review.state.store import FOLDER, Store
from review.tui import collecting, dialogs
from review.tui.compact import REVIEW_KEYS
from review.tui.first_frame import FirstFrameOnly
from review.tui.saving import RETRY_SECONDS, Change, Saving
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList
from review.tui.widgets.review_footer import ReviewFooter
from review.tui.widgets.review_header import ReviewHeader
from review.tui.widgets.search_field import SearchField

if TYPE_CHECKING:
    from watchfiles import Change as FileChange

    # The dialogs are imported when first opened, off the path to the first screen.
    from review.tui.dialogs.comment_editor import CommentEditor, EditorResult
    from review.tui.dialogs.send_dialog import SendResult

IGNORE_TYPING = 0.75
"""After a key that opens an editor was refused, keys that follow each other closer than this
(seconds) are the reviewer typing the text they meant for it: ignored until the typing pauses."""
_TYPING_KEYS = {"space", "enter", "backspace", "tab"}

# Each press of `z` shows this many more lines around every change in the file.
CONTEXT_STEP = 10
DEFAULT_CONTEXT = 3

# Changes here never change the diff: git's object store and logs, and lock files.
_QUIET_PARTS = {"objects", "logs"}

WATCH_STEP = 20
"""Milliseconds the file watcher waits for more changes after one (watchfiles' `step`). It looks
every step and hands the changes over once a look finds no new one: one write by the agent is
seen within two steps, while writes closer together than a step (a tool saving several files,
git checking out a branch) still come as one batch, of at most `WATCH_DEBOUNCE` ms."""
WATCH_DEBOUNCE = 400
WATCH_AFTER = 0.5
"""Seconds after the screen is made that it starts watching the worktree: importing and
setting up watchfiles (some 20 ms) would hold back the first frame. What was written since the
diff was read is caught up with once the watcher is up (`_catch_up`)."""
DIALOGS_AFTER = 1.0
"""Seconds after the screen is made that its dialogs are imported, in a thread (after the
watcher has started, and caught up)."""
SAVING_SAID_AFTER = 0.3
"""Seconds the reviewer's changes wait to be saved before the header says "saving…": most are
saved in a few milliseconds, and the word shown and taken back at once moved the header twice in
as many frames for each `x`. (Leaving waits for them anyway, and changes that cannot be saved are
said at once: "not saved".)"""


def _matters(change: FileChange, path: str) -> bool:
    parts = Path(path).parts
    if FOLDER in parts:
        return parts[-1] == "review.json"  # the review, written by us or by the agent
    return not (set(parts) & _QUIET_PARTS) and not path.endswith(".lock")


def _written_since(path: Path, since: float) -> bool:
    try:
        return path.stat().st_mtime >= since
    except OSError:
        return False


Read = tuple[Sides, Diff, Review | None, str | None]
"""A diff read with its review, or with the reason the review cannot be read."""


READ_REST_AFTER = 0.2
"""Seconds after the first frame that the rest of a diff opened from its counts is read."""


def _read_first(first: FirstDiff) -> Read:
    """What was read while the app started; raises ReviewError when the diff could not be."""
    diff = first.reading.result()
    try:
        review = first.anchoring.result()
        first.coloured.wait(COLOURS_WAIT)
        return first.sides, diff, review, None
    except ReviewError as error:
        return first.sides, diff, None, str(error)


_P = ParamSpec("_P")


def _while_shown(
    method: Callable[Concatenate[ReviewScreen, _P], None],
) -> Callable[Concatenate[ReviewScreen, _P], None]:
    """Run a worker's result only while the screen is shown: the reviewer may have left this
    review (back to the overview, on to the next) before git finished reading it."""

    @functools.wraps(method)
    def shown(screen: ReviewScreen, /, *args: _P.args, **kwargs: _P.kwargs) -> None:
        if not screen.is_attached:
            return
        try:
            method(screen, *args, **kwargs)
        except NoMatches:
            # Being left: the screen, off the stack, is still attached while its widgets are
            # removed one by one (some may be left: children are no sign it is still in use).
            if screen.is_attached and screen in screen.app.screen_stack:
                raise

    return shown


class ReviewScreen(FirstFrameOnly[None]):
    """Read one worktree's diff."""

    AUTO_FOCUS = "DiffView"
    """The diff has the focus as the screen is made, so its first frame draws the cursor as
    focused (focused later, it would draw the diff and the file list again)."""

    BINDINGS = [
        Binding("tab", "switch_focus", "Files/diff", show=False, id="switch_focus"),
        Binding("x", "toggle_viewed", "Viewed", id="toggle_viewed"),
        Binding("z", "more_context", "Context", show=False, id="more_context"),
        Binding("slash", "search", "Search", key_display="/", id="search"),
        Binding("n", "next(True)", "Next comment", show=False, id="next_comment"),
        Binding("N", "next(False)", "Previous comment", show=False, id="previous_comment"),
        Binding("escape", "clear", "Clear search or selection", show=False, id="clear"),
        Binding("f", "toggle_file_list", "File list", show=False, id="toggle_file_list"),
        Binding("c", "comment", "Comment", id="comment"),
        Binding("C", "comment_on_file", "File comment", show=False, id="comment_on_file"),
        Binding("e", "edit_comment", "Edit comment", show=False, id="edit_comment"),
        Binding("d", "delete_comment", "Delete comment", show=False, id="delete_comment"),
        Binding("a", "reply", "Reply to comment", show=False, id="reply"),
        Binding("r", "resolve", "Resolve / reopen comment", show=False, id="resolve"),
        Binding("p", "comments_panel", "Comments", show=False, id="comments_panel"),
        Binding("u", "since_review", "Since last review", show=False, id="since_review"),
        Binding("S", "send", "Send", id="send"),
        Binding("A", "approve", "Approve", show=False, id="approve"),
        # Offered (and in the footer) only while the cursor is on an agent's note: see
        # check_action. Last, so that on a narrow terminal they give way before Send.
        Binding("t", "note_to_comment", "Note to comment", id="note_to_comment"),
        Binding("D", "dismiss_note", "Dismiss note", id="dismiss_note"),
    ]

    DEFAULT_CSS = """
    ReviewScreen {
        #body { height: 1fr; }
        FileList { width: 25%; min-width: 20; max-width: 44; border-right: vkey $panel-lighten-2; }
        FileList.hidden { display: none; }
        DiffView { width: 1fr; }
        /* a small screen: the diff alone, the file list a pop-up (f) */
        &.-compact FileList { display: none; }
    }
    """

    def __init__(
        self,
        worktree: Worktree,
        chosen: Scope,
        *,
        watch: bool = True,
        split: bool = False,
        syntax_theme: str | None = None,
        first: FirstDiff | None = None,
    ) -> None:
        super().__init__()
        self._first = first
        self._read_from = first.started if first is not None else file_time()
        """When the diff shown was (or is being) read: what was written after is caught up
        with once the watcher is up."""
        self.worktree = worktree
        self.chosen = chosen
        self.watching = watch
        self.sides: Sides | None = None
        self.diff: Diff | None = None
        self.store = Store(worktree.root)
        self.review = Review()
        self.reader: FileReader | None = None
        """Reads the lines of the files as the diff shows them, for anchoring new comments."""
        self.context: dict[str, int] = {}
        self.ignore_typing = IGNORE_TYPING
        """Seconds of quiet that end the ignoring of keys after a refused one."""
        self._typed_at = float("-inf")
        """When the refused key, or the last key ignored after it, was pressed."""
        self._said: str | None = None
        """The last problem told, not told again while it lasts."""
        self._marking: dict[str, bool] = {}
        """Viewed marks set (True) or cleared (False) and not saved yet, by path."""
        self._ignored = 0
        self.saving = Saving(self, self.store, saved=self._saved, problem=self._problem, changed=self._show_header)
        """The reviewer's changes, saved in order off the UI thread."""
        self._saving_for: Timer | None = None
        """Running while changes wait to be saved (see `SAVING_SAID_AFTER`)."""
        self._saving_said = False
        self._edited: tuple[Diff | None, float | None] | None = None
        """The diff and when one of its files was last written (`_last_edit`)."""
        self._split = split
        self._syntax_theme = syntax_theme
        self._note_here = ""
        """The id of the agent's note under the cursor ("" when none), for `check_action`."""
        self._followed = ""
        """The path of the file the file list last followed the diff's cursor to."""
        self._wide: tuple[bool, bool] | None = None
        """The diff's split and wrap as the reviewer had them on a wide screen, while compact."""
        self._shown = threading.Event()
        """Set once the screen is first shown (see `FirstDiff.shown`)."""

    def compose(self) -> ComposeResult:
        yield ReviewHeader(id="header")
        with Horizontal(id="body"):
            yield FileList(id="files")
            yield DiffView(id="diff", syntax_theme=self._syntax_theme)
        yield SearchField(placeholder="search (enter: find, escape: cancel)", id="search")
        yield ReviewFooter()

    @property
    def view(self) -> DiffView:
        return self.query_one(DiffView)

    @property
    def files(self) -> FileList:
        return self.query_one(FileList)

    def on_mount(self) -> None:
        self.watch(self.view, "cursor_file", self._follow_cursor, init=False)
        self.watch(self.view, "note", self._offer_note_keys, init=False)
        self.view.split = self._split
        if hasattr(type(self.app), "compact"):
            self.watch(self.app, "compact", self._compact)
        first = self._first
        if first is not None:
            self._shown = first.shown
            self._check(first.checked)
            # read while Textual started: waited for here, so that the whole screen is in the
            # first frame; a reading that takes longer is shown when it comes
            wait([first.anchoring], timeout=FIRST_SCREEN_WAIT)
        if first is not None and first.reading.done() and first.anchoring.done():
            self._first = None
            try:
                self._loaded(*_read_first(first))
            except ReviewError as error:
                self._failed(str(error))
        else:
            self._show_header()
            self.load()
        self.set_interval(RETRY_SECONDS, self.saving.retry)
        if self.saving.earlier():
            self._problem(f"Text you wrote earlier could not be saved; it is kept in {self.saving.file}.")
        if self.watching:
            self.set_timer(WATCH_AFTER, self.watch_worktree)
        self.set_timer(DIALOGS_AFTER, dialogs.import_ahead)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        collecting.hold_back()  # the diff collects when the reviewer pauses

    def first_shown(self) -> None:
        self.call_after_refresh(collecting.resume)  # held off while the viewer started (`_open_review`)
        # The rest of a diff opened from its counts is read a moment after the first frame: the
        # reading would take turns with drawing it (and with Textual's work just after it).
        self.set_timer(READ_REST_AFTER, self._shown.set)

    def on_screen_suspend(self) -> None:
        collecting.release()

    # -- loading -------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="load")
    def load(self) -> None:
        """Read the diff (again) from git, and find the comments' code in it, off the UI thread."""
        first, self._first = self._first, None
        try:
            if first is not None:
                self.app.call_from_thread(self._loaded, *_read_first(first))
                return
            since = rounds.last_sent(self.store) if self.chosen.since_review else None
            sides, diff = scope.load(self.worktree, self.chosen, since)
            for index, file in enumerate(diff.files):
                if file.path in self.context:
                    diff.files[index] = scope.load_file(self.worktree, sides, file, self.context[file.path])
        except ReviewError as error:
            self.app.call_from_thread(self._failed, str(error))
            return
        try:
            review = comments.reanchor_on(self.store, self.worktree, sides.old, diff)
        except ReviewError as error:
            self.app.call_from_thread(self._loaded, sides, diff, None, str(error))
            return
        self.app.call_from_thread(self._loaded, sides, diff, review, None)

    @work(thread=True, group="check", exit_on_error=False)
    def _check(self, checked: Future[bool]) -> None:
        """Read the diff again when the one opened from its files' counts turned out not to be
        the one git read (a file changed within a tick of the clock, say)."""
        try:
            same = checked.result()
        except ReviewError:
            same = False  # the reading again says what went wrong
        self.app.call_from_thread(self._checked, same)

    @_while_shown
    def _checked(self, same: bool) -> None:
        if not same:
            self.load()
        elif self.view.diff_layout is not None and self.view.diff_layout.measured_unread:
            self.view.relayout()  # the files git had not read were measured as unified
        else:
            self.view.look_ahead()  # now also into the files git had not read before

    @work(thread=True, exclusive=True, group="review")
    def load_review(self) -> None:
        """Read the review again after another process (the agent, or the reviewer fixing a broken
        file) changed it."""
        self.app.call_from_thread(self.saving.retry)
        try:
            review = self.store.read()
        except ReviewError as error:
            self.app.call_from_thread(self._problem, self._unreadable(str(error)))
            return
        self.app.call_from_thread(self._show_review, review)

    def _unreadable(self, reason: str) -> str:
        return f"{reason}. You can go on reading and commenting: what you write is kept and saved once the file can be read."

    @_while_shown
    def _problem(self, message: str) -> None:
        # every reload while the agent edits finds the same trouble again: it is said once, until
        # the review can be read again
        if message == self._said:
            return
        self._said = message
        self.notify(message, title="review", severity="error", timeout=12)

    @_while_shown
    def _failed(self, message: str) -> None:
        # the header too: when the first reading fails as the screen mounts, it was not shown yet
        self._show_header()
        self.view.empty_message = f"Cannot show the diff: {visible(message)}"
        self.view.refresh()
        self.notify(message, title="review", severity="error", timeout=10)

    @_while_shown
    def _loaded(self, sides: Sides, diff: Diff, readable: Review | None, problem: str | None) -> None:
        """Show the diff read again, with the review (None when it cannot be read, and why)."""
        if readable is not None:
            self._said = None
        if problem is not None:
            self._problem(self._unreadable(problem))
        review = readable or Review()
        view = self.view
        viewed = {f.path for f in diff.files if review.is_viewed(f.path, f.fingerprint)}
        # a mark the reviewer just set or cleared counts before it is saved
        viewed |= {path for path, marked in self._marking.items() if marked}
        viewed -= {path for path, marked in self._marking.items() if not marked}
        view.set_viewed(viewed)
        self.sides, self.diff, self.review = sides, diff, review
        new_side = "" if sides.cached else sides.new
        self.reader = FileReader(self.worktree, sides.old, new_side)
        view.empty_message = f"No changes: {sides.label}."
        view.show(diff, comments=review.comments)
        self._show_header()
        self._list_files(diff)

    @_while_shown
    def _show_review(self, review: Review) -> None:
        self._said = None
        self.review = review
        self.view.show_comments(review.comments)
        self._show_header()

    def _saved(self, change: Change, review: Review | None) -> None:
        if review is not None:
            self._show_review(review)

    @_while_shown
    def _list_files(self, diff: Diff) -> None:
        if diff is not self.diff:
            return
        self.files.show(diff, self.view.viewed)
        current = self.view.current_file()
        if current is not None:
            # the diff read again leaves the folders the reviewer folded folded
            self.files.select_file(current, unfold=False)

    @work(exclusive=True, group="watch")
    async def watch_worktree(self) -> None:
        """Show what changed in the worktree shortly after it changed: the review, the files the
        agent wrote (read again alone), or the whole diff (when git moved, say)."""
        from watchfiles import awatch

        paths = [self.worktree.root]
        if not self.worktree.git_dir.is_relative_to(self.worktree.root):
            paths.append(self.worktree.git_dir)
        watching = awatch(*paths, watch_filter=_matters, debounce=WATCH_DEBOUNCE, step=WATCH_STEP, recursive=True)
        # run once the loop below has made the watcher, before its first wait
        self.call_later(self._catch_up, self._read_from)
        async for changes in watching:
            code = [path for _, path in changes if FOLDER not in Path(path).parts]
            if len(code) < len(changes):
                self.load_review()
            if code:
                self.reload(code)

    @work(thread=True, group="catch-up")
    def _catch_up(self, since: float) -> None:
        """Show what was written from `since`, when the diff was read, until the watcher was
        up: the review, and the diff's files (read again alone)."""
        if _written_since(self.store.path, since):
            self.app.call_from_thread(self.load_review)
        diff = self.diff
        if diff is None:
            return
        written = [str(path) for file in diff.files if _written_since(path := self.worktree.root / file.path, since)]
        if written:
            self.app.call_from_thread(self.reload, written)

    @work(thread=True, group="reload")
    def reload(self, changed: list[str]) -> None:
        """Read again the files at `changed` (paths as the watcher names them) and splice them
        into the diff shown, off the UI thread; the whole diff when only that reads as git would
        (`scope.reread`)."""
        diff, sides = self.diff, self.sides
        if diff is None or sides is None:
            self.app.call_from_thread(self.load)  # the first reading is not shown yet, or failed
            return
        try:
            spliced = scope.reread(self.worktree, sides, diff, changed, self.context)
        except ReviewError as error:
            self.app.call_from_thread(self._failed, str(error))
            return
        if spliced is None:
            self.app.call_from_thread(self.load)
            return
        if spliced is diff:
            return  # nothing the diff shows changed
        kept = set(diff.files)
        now = set(spliced.files)
        touched = {f.path for f in spliced.files if f not in kept} | {f.path for f in diff.files if f not in now}
        try:
            review = comments.reanchor_on(self.store, self.worktree, sides.old, spliced, touched)
        except ReviewError as error:
            self.app.call_from_thread(self._spliced, diff, spliced, changed, None, str(error))
            return
        self.app.call_from_thread(self._spliced, diff, spliced, changed, review, None)

    @_while_shown
    def _spliced(
        self, base: Diff, diff: Diff, changed: list[str], readable: Review | None, problem: str | None
    ) -> None:
        """Show `diff`, read again from `base` for the files at `changed`: the file list and the
        viewed marks of the other files stay as they are, and the cursor on its line of code."""
        if any(worker.group == "load" and worker.node is self and not worker.is_finished for worker in self.workers):
            # the whole diff is being read, maybe from before this change, and would hide it
            self.load()
            return
        if base is not self.diff:
            self.reload(changed)  # the diff was read again meanwhile: the change goes into that one
            return
        if readable is not None:
            self._said = None
        if problem is not None:
            self._problem(self._unreadable(problem))
        review = readable or self.review
        view = self.view
        kept = set(base.files)
        fresh = [f for f in diff.files if f not in kept]
        gone = {f.path for f in base.files} - {f.path for f in diff.files}
        viewed = set(view.viewed) - gone - {f.path for f in fresh}
        for file in fresh:
            marked = self._marking.get(file.path)
            if marked or (marked is None and review.is_viewed(file.path, file.fingerprint)):
                viewed.add(file.path)
        view.set_viewed(viewed)
        self.diff, self.review = diff, review
        if self.reader is not None:
            # it keeps the lines it read, and those of the changed files are old now
            self.reader = FileReader(self.worktree, self.reader.base, self.reader.new)
        view.show(diff, comments=review.comments)
        self._show_header()
        if not self.files.show_changed(diff, view.viewed):
            self._list_files(diff)  # a file entered or left the diff

    def _show_header(self) -> None:
        """Gather what the header shows; the header lays it out for its width."""
        diff = self.diff
        waiting = self.saving.waiting
        if not waiting and self._saving_for is not None:
            self._saving_for.stop()
            self._saving_for, self._saving_said = None, False
        elif waiting and self._saving_for is None:
            self._saving_for = self.set_timer(SAVING_SAID_AFTER, self._say_saving)
        self.query_one(ReviewHeader).show(
            worktree=self.worktree.root.name,
            branch=self.worktree.branch,
            scope=self.sides.label if self.sides is not None else None,
            files=len(diff.files) if diff is not None else None,
            added=diff.added if diff is not None else 0,
            removed=diff.removed if diff is not None else 0,
            viewed=len(self.view.viewed),
            comments=self._counts(),
            state=self.review.state(self._last_edit),
            match=self.view.match_position(),
            saving=waiting if self._saving_said and not self.saving.stuck else 0,
            unsaved=waiting if self.saving.stuck else 0,
        )

    def _last_edit(self) -> float | None:
        """When a file of the diff was last written: the header's word after a round of a summary
        alone waits on this, as the overview's does. Read once for each diff."""
        diff = self.diff
        if self._edited is None or self._edited[0] is not diff:
            self._edited = (diff, git.last_edit(self.worktree, (f.path for f in diff.files) if diff else ()))
        return self._edited[1]

    def _say_saving(self) -> None:
        self._saving_said = True
        self._show_header()

    def _counts(self) -> Counter[str]:
        """The comments by status, the open ones the agent answered as "answered", and as "note"
        the agent's notes that wait on the reviewer (as the overview counts them)."""
        counts: Counter[str] = Counter(
            "answered" if c.status == "open" and c.answered_by_agent() else c.status
            for c in self.review.comments
            if not c.is_note
        )
        counts["note"] = len(notes.standing(self.review))
        return counts

    # -- following the cursor ----------------------------------------------------------------

    def _compact(self, compact: bool) -> None:
        """Lay the review out for a small screen (`review.tui.compact`), or for a wide one again:
        the diff alone, unified and wrapped, the footer the keys that matter away from a desk."""
        self.set_class(compact, "-compact")
        view = self.view
        view.unified_only = compact
        if compact and self._wide is None:
            self._wide = (view.split, view.wrap)
            view.split, view.wrap = False, True
        elif not compact and self._wide is not None:
            view.split, view.wrap = self._wide
            self._wide = None
        self.query_one(ReviewFooter).compact = REVIEW_KEYS if compact else None
        if compact and self.files.has_focus:
            view.focus()

    @property
    def compact(self) -> bool:
        """Whether the review is laid out for a small screen."""
        return self.has_class("-compact")

    def on_diff_view_looking_ahead(self, message: DiffView.LookingAhead) -> None:
        for file in message.files:
            self.files.draw_ahead(file)

    def _follow_cursor(self, file: int) -> None:
        layout = self.view.diff_layout
        if file < 0 or layout is None:
            return
        path, self._followed = self._followed, layout.diff.files[file].path
        if not self.files.has_focus:
            # into another file, its folders open; the same one read again leaves them folded
            self.files.select_file(file, unfold=path != self._followed)

    def _offer_note_keys(self, note: str) -> None:
        self._note_here = note
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The keys for an agent's note exist only on one, so that the footer shows them there.
        if action in _NOTE_ACTIONS:
            return bool(self._note_here)
        return True

    def on_file_list_file_chosen(self, message: FileList.FileChosen) -> None:
        self.view.go_to_file(message.file)
        self.view.focus()

    def action_switch_focus(self) -> None:
        if self.compact:
            self._pick_file()
        elif self.view.has_focus:
            self.files.remove_class("hidden")
            self.files.focus()
        else:
            self.view.focus()

    def action_toggle_file_list(self) -> None:
        if self.compact:
            self._pick_file()
            return
        self.files.toggle_class("hidden")
        if self.files.has_class("hidden"):
            self.view.focus()

    def _pick_file(self) -> None:
        """The file list as a pop-up, where there is no room for it beside the diff."""
        from review.tui.dialogs.file_picker import FilePicker

        if self.diff is None:
            return

        def done(file: int | None) -> None:
            if file is not None:
                self.view.go_to_file(file)
            self.view.focus()

        self.app.push_screen(FilePicker(self.diff, self.view.viewed, self.view.current_file()), done)

    # -- viewed marks and context -------------------------------------------------------------

    def action_toggle_viewed(self) -> None:
        """Mark the file under the cursor viewed (folding it and moving on), or unmark it."""
        view = self.view
        index = view.current_file()
        if index is None or self.diff is None:
            return
        file = self.diff.files[index]
        now_viewed = file.path not in view.viewed

        def mark(review: Review) -> None:
            if now_viewed:
                review.mark_viewed(file.path, file.fingerprint)
            else:
                review.unmark_viewed(file.path)

        def saved(_: object) -> None:
            if self._marking.get(file.path) is now_viewed:
                del self._marking[file.path]

        self._marking[file.path] = now_viewed
        what = f"{'' if now_viewed else 'un'}marking {visible(file.path)} viewed"
        self.saving.add(Change(what, lambda: self.store.update(mark), done=saved))
        view.mark_viewed(file.path, now_viewed)
        if now_viewed:
            view.go_to_file(index + 1 if index + 1 < len(self.diff.files) else index)
        self.files.mark_viewed(view.viewed)
        self._show_header()

    def action_more_context(self) -> None:
        """Show more unchanged lines around every change of the file under the cursor."""
        index = self.view.current_file()
        if index is None or self.diff is None or self.sides is None:
            return
        file = self.diff.files[index]
        if file.binary or file.large:
            return
        self.context[file.path] = self.context.get(file.path, DEFAULT_CONTEXT) + CONTEXT_STEP
        self._widen(self.diff, index, self.sides, self.context[file.path])

    @work(thread=True, group="context")
    def _widen(self, diff: Diff, index: int, sides: Sides, context: int) -> None:
        """Read one file's diff again with more context, off the UI thread."""
        try:
            wider = scope.load_file(self.worktree, sides, diff.files[index], context)
        except ReviewError as error:
            self.app.call_from_thread(self.notify, str(error), severity="error")
            return
        self.app.call_from_thread(self._widened, diff, index, wider)

    @_while_shown
    def _widened(self, diff: Diff, index: int, wider: FileDiff) -> None:
        if diff is not self.diff:
            return  # the diff was read again meanwhile, with the wider context
        files = list(diff.files)
        files[index] = wider
        self.diff = replace(diff, files=files)
        self.view.show(self.diff)

    # -- search --------------------------------------------------------------------------------

    @property
    def search_field(self) -> SearchField:
        return self.query_one(SearchField)

    def action_search(self) -> None:
        self.search_field.open()
        # at once, not after the queued keys: what the reviewer types next is the search
        self.set_focus(self.search_field)

    def on_search_field_closed(self, message: SearchField.Closed) -> None:
        # at once, not after the queued keys (focus() waits for them)
        self.set_focus(self.view)
        if message.text:
            if not self.view.find_text(message.text):
                self.notify(f"Not found: {visible(message.text)}", severity="warning", timeout=3)
            self._show_header()  # which match of how many

    async def on_search_field_missed(self, message: SearchField.Missed) -> None:
        # a key typed right after enter went to the field before the focus moved: it was meant
        # for the diff, so it does what it does there (the diff has the focus now)
        active = self.app.active_bindings.get(message.key)
        if active is not None and active.enabled:
            await self.app.run_action(active.binding.action, active.node)

    def action_next(self, forward: bool) -> None:
        """The next comment, or the next match while a search is on."""
        view = self.view
        if view.diff_layout is None:
            return
        searching = view.pattern is not None
        if not (view.next_match(forward) if searching else view.next_comment(forward)):
            self.app.bell()
        elif searching:
            self._show_header()

    def action_clear(self) -> None:
        if self.view.selecting:
            self.view.clear_selection()
        elif self.view.pattern is not None:
            self.view.find_text("")
            self._show_header()

    # -- comments ------------------------------------------------------------------------------

    def action_comment(self) -> None:
        """Comment on the selected lines, or on the cursor's line."""
        chosen = self.view.selected()
        if chosen is None or self.diff is None:
            self._refuse("Put the cursor on a line of code to comment on it (C comments on the whole file).")
            return
        file = self.diff.files[chosen.file]
        side: Side = "old" if chosen.side == "old" else "new"
        lines = f"{chosen.first}" if chosen.first == chosen.last else f"{chosen.first}-{chosen.last}"
        where = Where(path=file.path, side=side, line=chosen.first, end_line=chosen.last, old_path=file.old_path)
        title = f"Comment on {file.path}:{lines}" + (" (old side)" if side == "old" else "")
        self._write(where, title, chosen.text)

    def action_comment_on_file(self) -> None:
        index = self.view.current_file()
        if index is None or self.diff is None:
            return
        file = self.diff.files[index]
        self._write(Where(path=file.path, old_path=file.old_path), f"Comment on {file.path}", [])

    def _write(self, where: Where, title: str, code: list[str]) -> None:
        from review.tui.dialogs.comment_editor import CommentEditor

        reader = self.reader
        source = self.sides.old if where.side == "old" and self.sides is not None else None

        def add(body: str, severity: Severity) -> Comment:
            side_path = (where.old_path or where.path) if where.side == "old" else where.path
            lines = reader(side_path, where.side) if reader is not None else None
            return comments.add(self.store, where, body, severity, lines, source)

        def done(result: EditorResult | None) -> None:
            if result is None:
                return
            self.saving.add(Change(_place_of(where), lambda: add(result.body, result.severity), text=result.body))
            self.view.clear_selection()
            if result.kept:
                self.notify("Kept as a draft.", timeout=3)

        self._edit(CommentEditor(title=title, code=code), done)

    def _edit(self, editor: CommentEditor, done: Callable[[EditorResult | None], None]) -> None:
        """Open `editor`; what the reviewer types in it is kept in the unsaved file as they type,
        and until `done` has made it a change, until that change is saved (`Saving.typing`)."""
        editor.typing = functools.partial(self.saving.typing, editor.title_text)

        def closed(result: EditorResult | None) -> None:
            done(result)
            self.saving.typed()

        self.app.push_screen(editor, closed)

    def _comment_here(self) -> Comment | None:
        comment = self.view.comment_at_cursor()
        if comment is None:
            self._refuse("No comment here: move the cursor onto one (n and N go from one to the next).")
        return comment

    def _refuse(self, reason: str) -> None:
        """Say why a key that opens an editor did nothing, and take what is typed right after it
        as the text meant for that editor, not as commands."""
        self.notify(reason, timeout=4)
        self._typed_at = time.monotonic()
        self._ignored = 0

    @property
    def ignoring_keys(self) -> bool:
        """Whether typing is being ignored after a refused key."""
        return time.monotonic() - self._typed_at < self.ignore_typing

    @on(events.Key)
    def _ignore_typing(self, event: events.Key) -> None:
        if not self.ignoring_keys or not (event.is_printable or event.key in _TYPING_KEYS):
            return
        # stopped here, the key never reaches the bindings of the view, the screen or the app
        event.stop()
        event.prevent_default()
        self._typed_at = time.monotonic()
        self._ignored += 1
        if self._ignored == 1:
            self.notify("No editor is open: what you type is ignored until you pause.", severity="warning", timeout=3)

    def _not_a_note(self, comment: Comment, refuse: bool = False) -> bool:
        """Whether `comment` is the reviewer's; for an agent's note, say what can be done with it
        (taking the typing that follows as text meant for an editor, when `refuse`)."""
        if not comment.is_note:
            return True
        reason = f"{comment.id} is the agent's note: a answers it, t makes it your comment, D dismisses it."
        if refuse:
            self._refuse(reason)
        else:
            self.notify(reason, timeout=4)
        return False

    def action_edit_comment(self) -> None:
        from review.tui.dialogs.comment_editor import CommentEditor

        comment = self._comment_here()
        if comment is None or not self._not_a_note(comment, refuse=True):
            return

        def done(result: EditorResult | None) -> None:
            if result is not None:
                body, severity = result.body, result.severity
                self.saving.add(
                    Change(
                        f"your edit of {comment.id}",
                        lambda: comments.edit(self.store, comment.id, body, severity),
                        text=body,
                    )
                )

        title = f"Edit {comment.id} on {comment.path}"
        self._edit(CommentEditor(title=title, body=comment.body, severity=comment.severity), done)

    def action_delete_comment(self) -> None:
        from review.tui.dialogs.confirm_dialog import ConfirmDialog

        comment = self._comment_here()
        if comment is None or not self._not_a_note(comment):
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.saving.add(Change(f"deleting {comment.id}", lambda: comments.delete(self.store, comment.id)))

        self.app.push_screen(ConfirmDialog(f"Delete comment {comment.id} on {comment.path}?"), done)

    def action_reply(self) -> None:
        from review.tui.dialogs.comment_editor import CommentEditor

        comment = self._comment_here()
        if comment is None:
            return

        def done(result: EditorResult | None) -> None:
            if result is not None:
                body = result.body
                self.saving.add(
                    Change(
                        f"your reply to {comment.id}",
                        lambda: comments.reply(self.store, comment.id, "reviewer", body),
                        text=body,
                    )
                )

        title = f"Answer the agent's note {comment.id}" if comment.is_note else f"Reply to {comment.id}"
        self._edit(CommentEditor(title=title, reply=True), done)

    def action_note_to_comment(self) -> None:
        """Write a comment of your own on the note's lines, the note quoted; saving it dismisses
        the note (`notes.to_comment`)."""
        from review.tui.dialogs.comment_editor import CommentEditor

        note = self.view.note_at_cursor()
        if note is None:
            return
        if note.path == notes.WHOLE_CHANGE:
            self.notify(
                f"{note.id} is on the whole change, and a comment is on a file: answer it (a), or say it in"
                " the summary when you send (S).",
                timeout=6,
            )
            return
        where = notes.place(note)
        reader = self.reader
        source = self.sides.old if where.side == "old" and self.sides is not None else None
        side_path = (where.old_path or where.path) if where.side == "old" else where.path
        # the code the note was written on, for a suggestion block, without reading files here
        code = note.anchor.lines if note.anchor is not None else []

        def convert(body: str, severity: Severity) -> Comment:
            lines = reader(side_path, where.side) if reader is not None else None
            return notes.to_comment(self.store, note.id, body, severity, lines, source)

        def done(result: EditorResult | None) -> None:
            if result is not None:
                body, severity = result.body, result.severity
                self.saving.add(Change(_place_of(where), lambda: convert(body, severity), text=body))

        self._edit(
            CommentEditor(
                title=f"Comment on {where.path}" + (f":{_lines(where)}" if where.line is not None else ""),
                where=f"from the agent's note {note.id}, which is dismissed once you save",
                body=notes.quoted(note),
                code=code,
            ),
            done,
        )

    def action_dismiss_note(self) -> None:
        """Set the agent's note aside (drawn dim, on one line), or take a dismissed one back."""
        note = self.view.note_at_cursor()
        if note is None:
            return
        dismissed = note.status != "dismissed"
        verb = "dismissing" if dismissed else "restoring"
        self.saving.add(Change(f"{verb} {note.id}", lambda: notes.dismiss(self.store, note.id, dismissed)))

    def action_resolve(self) -> None:
        """Resolve an open or addressed comment; reopen a resolved one."""
        comment = self._comment_here()
        if comment is None or not self._not_a_note(comment):
            return
        if comment.status == "draft":
            self.notify("A draft is not sent yet: edit or delete it.", timeout=4)
            return
        status: CommentStatus = "open" if comment.status in ("resolved", "wontfix") else "resolved"
        verb = "reopening" if status == "open" else "resolving"
        self.saving.add(Change(f"{verb} {comment.id}", lambda: comments.set_status(self.store, comment.id, status)))

    def action_comments_panel(self) -> None:
        from review.tui.dialogs.comments_panel import CommentsPanel, PanelEntry

        ordered = sorted(self.review.comments, key=lambda c: (c.path.encode("utf-8", "surrogateescape"), c.line or 0))

        def done(id: str | None) -> None:
            if id is None or self.view.diff_layout is None:
                return
            if self.view.go_to_comment(id):
                self.view.focus()
            else:
                self.notify(f"{id} is on a file that is not in this diff.", timeout=4)

        self.app.push_screen(CommentsPanel([PanelEntry.of(c) for c in ordered], whole=self.compact), done)

    def action_send(self) -> None:
        # the dialog counts the drafts: those written a moment ago are saved first
        self.saving.when_saved(self._ask_to_send)

    def _ask_to_send(self) -> None:
        from review.tui.dialogs.send_dialog import SendDialog

        drafts = sum(1 for c in self.review.comments if c.status == "draft")

        def done(result: SendResult | None) -> None:
            if result is not None:
                self._send(result.verdict, result.summary)

        self.app.push_screen(SendDialog(drafts=drafts), done)

    def action_approve(self) -> None:
        """Approve in one key and a confirm, as away from a desk: the drafts go with it."""
        self.saving.when_saved(self._ask_to_approve)

    def _ask_to_approve(self) -> None:
        from review.tui.dialogs.confirm_dialog import ConfirmDialog

        drafts = sum(1 for c in self.review.comments if c.status == "draft")
        with_drafts = f", with {drafts} draft comment{'s' * (drafts != 1)}" if drafts else ""
        question = f"Approve {self.worktree.root.name}{with_drafts}?"

        def done(yes: bool | None) -> None:
            if yes:
                self._send("approve", "")

        self.app.push_screen(ConfirmDialog(question, yes="Approve", no="Not yet"), done)

    def _send(self, verdict: Verdict, summary: str) -> None:
        """Snapshot the worktree and write the round, after every change made before it."""
        from review.agents import doctor

        reader = FileReader(self.worktree, self.sides.old if self.sides is not None else None)

        def send() -> tuple[Round, str]:
            sent = rounds.send(self.store, self.worktree, verdict, summary, reader)
            return sent, doctor.how_the_agent_hears(self.worktree.root)

        self.saving.add(Change("sending the review", send, text=summary, done=self._sent))

    def _sent(self, result: object) -> None:
        sent, heard = cast(tuple[Round, str], result)  # what `send` above returns
        count = len(sent.comment_ids)
        self.notify(f"Sent review {sent.id}: {count} comment{'s' * (count != 1)}. {heard}", timeout=8)

    def action_since_review(self) -> None:
        """Show only what changed since the last review was sent, or everything again."""
        self.chosen = Scope() if self.chosen.since_review else Scope(since_review=True)
        self.load()


_NOTE_ACTIONS = ("note_to_comment", "dismiss_note")
"""The actions on an agent's note, offered only while the cursor is on one."""


def _place_of(where: Where) -> str:
    """A comment's place, as messages name it: "comment on src/app.py:12-14"."""
    lines = "" if where.line is None else f":{_lines(where)}"
    return f"comment on {visible(where.path)}{lines}"


def _lines(where: Where) -> str:
    """The lines of `where` as a place names them: "12", or "12-14"."""
    return f"{where.line}" + (f"-{where.end_line}" if where.end_line not in (None, where.line) else "")
