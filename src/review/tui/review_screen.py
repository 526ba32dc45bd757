"""The review screen: a worktree's diff with its file list, kept current while the agent works."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from watchfiles import Change, awatch

from review import scope
from review.diff import Diff
from review.errors import ReviewError
from review.git import Worktree
from review.scope import Scope, Sides
from review.store import Store
from review.text import visible
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList

# Each press of `z` shows this many more lines around every change in the file.
CONTEXT_STEP = 10
DEFAULT_CONTEXT = 3

# Changes here never change the diff: git's object store and logs, lock files, our own state.
_QUIET_PARTS = {"objects", "logs", ".review"}


def _matters(change: Change, path: str) -> bool:
    parts = set(Path(path).parts)
    return not (parts & _QUIET_PARTS) and not path.endswith(".lock")


FirstDiff = tuple[Sides, "Future[Diff]"]
"""The sides and the diff being read while the app starts."""


class ReviewScreen(Screen[None]):
    """Read one worktree's diff."""

    BINDINGS = [
        Binding("tab", "switch_focus", "Files/diff", id="switch_focus"),
        Binding("x", "toggle_viewed", "Viewed", id="toggle_viewed"),
        Binding("z", "more_context", "Context", id="more_context"),
        Binding("slash", "search", "Search", key_display="/", id="search"),
        Binding("n", "next_match", "Next match", show=False, id="next_match"),
        Binding("N", "previous_match", "Previous match", show=False, id="previous_match"),
        Binding("escape", "clear_search", "Clear search", show=False, id="clear_search"),
        Binding("f", "toggle_file_list", "File list", show=False, id="toggle_file_list"),
    ]

    DEFAULT_CSS = """
    ReviewScreen {
        #header { height: 1; background: $panel; color: $foreground; padding: 0 1; }
        #body { height: 1fr; }
        FileList { width: 25%; min-width: 20; max-width: 44; border-right: vkey $panel-lighten-2; }
        FileList.hidden { display: none; }
        DiffView { width: 1fr; }
        #search { display: none; border: none; height: 1; padding: 0 1; }
        #search.shown { display: block; }
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
        self.worktree = worktree
        self.chosen = chosen
        self.watching = watch
        self.sides: Sides | None = None
        self.diff: Diff | None = None
        self.store = Store(worktree.root)
        self.context: dict[str, int] = {}
        self._split = split
        self._syntax_theme = syntax_theme

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="body"):
            yield FileList(id="files")
            yield DiffView(id="diff", syntax_theme=self._syntax_theme)
        yield Input(placeholder="search (enter: find, escape: cancel)", id="search")
        yield Footer()

    @property
    def view(self) -> DiffView:
        return self.query_one(DiffView)

    @property
    def files(self) -> FileList:
        return self.query_one(FileList)

    def on_mount(self) -> None:
        self.watch(self.view, "cursor_file", self._follow_cursor, init=False)
        self.view.split = self._split
        self.view.focus()
        self._show_header()
        self.load()
        if self.watching:
            self.watch_worktree()

    # -- loading -------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="load")
    def load(self) -> None:
        """Read the diff (again) from git, off the UI thread."""
        first, self._first = self._first, None
        try:
            if first is not None:
                sides, diff = first[0], first[1].result()
            else:
                sides, diff = scope.load(self.worktree, self.chosen)
            for index, file in enumerate(diff.files):
                if file.path in self.context:
                    diff.files[index] = scope.load_file(self.worktree, sides, file, self.context[file.path])
            viewed = self._viewed(diff)
        except ReviewError as error:
            self.app.call_from_thread(self._failed, str(error))
            return
        self.app.call_from_thread(self._loaded, sides, diff, viewed)

    def _viewed(self, diff: Diff) -> set[str]:
        try:
            review = self.store.read()
        except ReviewError as error:
            self.app.call_from_thread(self.notify, str(error), severity="error", timeout=10)
            return set()
        return {f.path for f in diff.files if review.is_viewed(f.path, f.fingerprint)}

    def _failed(self, message: str) -> None:
        self.view.empty_message = f"Cannot show the diff: {visible(message)}"
        self.view.refresh()
        self.notify(message, title="review", severity="error", timeout=10)

    def _loaded(self, sides: Sides, diff: Diff, viewed: set[str]) -> None:
        view = self.view
        lapsed = view.viewed - viewed
        view.folded -= lapsed
        view.folded |= viewed - view.viewed
        view.viewed = viewed
        self.sides, self.diff = sides, diff
        view.empty_message = f"No changes: {sides.label}."
        view.show(diff)
        self._show_header()
        # the diff is what the reviewer reads first: the list follows in the next frame
        self.call_after_refresh(self._list_files, diff)

    def _list_files(self, diff: Diff) -> None:
        if diff is not self.diff:
            return
        self.files.show(diff, self.view.viewed)
        current = self.view.current_file()
        if current is not None:
            # the tree knows where its new nodes are once it has laid them out
            self.files.call_after_refresh(self.files.select_file, current)

    @work(exclusive=True, group="watch")
    async def watch_worktree(self) -> None:
        """Reload the diff shortly after files in the worktree change."""
        paths = [self.worktree.root]
        if not self.worktree.git_dir.is_relative_to(self.worktree.root):
            paths.append(self.worktree.git_dir)
        async for _ in awatch(*paths, watch_filter=_matters, debounce=400, step=80, recursive=True):
            self.load()

    def _show_header(self) -> None:
        worktree = self.worktree
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append(visible(worktree.root.name), "bold")
        header.append(f"  {visible(worktree.branch or 'detached HEAD')}", "italic")
        if self.sides is not None:
            header.append(f"  {visible(self.sides.label)}")
        if self.diff is not None:
            count = len(self.diff.files)
            header.append(f"  {count} file{'s' * (count != 1)}")
            header.append(f"  +{self.diff.added}", "green")
            header.append(f" −{self.diff.removed}", "red")
            header.append(f"  {len(self.view.viewed)}/{count} viewed")
        self.query_one("#header", Static).update(header)

    # -- following the cursor ----------------------------------------------------------------

    def _follow_cursor(self, file: int) -> None:
        if file >= 0 and not self.files.has_focus:
            self.files.select_file(file)

    def on_file_list_file_chosen(self, message: FileList.FileChosen) -> None:
        self.view.go_to_file(message.file)
        self.view.focus()

    def action_switch_focus(self) -> None:
        if self.view.has_focus:
            self.files.remove_class("hidden")
            self.files.focus()
        else:
            self.view.focus()

    def action_toggle_file_list(self) -> None:
        self.files.toggle_class("hidden")
        if self.files.has_class("hidden"):
            self.view.focus()

    # -- viewed marks and context -------------------------------------------------------------

    def action_toggle_viewed(self) -> None:
        """Mark the file under the cursor viewed (folding it and moving on), or unmark it."""
        view = self.view
        index = view.current_file()
        if index is None or self.diff is None:
            return
        file = self.diff.files[index]
        now_viewed = file.path not in view.viewed
        try:
            if now_viewed:
                self.store.update(lambda review: review.mark_viewed(file.path, file.fingerprint))
            else:
                self.store.update(lambda review: review.unmark_viewed(file.path))
        except ReviewError as error:
            self.notify(str(error), severity="error", timeout=10)
            return
        if now_viewed:
            view.viewed.add(file.path)
            view.folded.add(file.path)
        else:
            view.viewed.discard(file.path)
            view.folded.discard(file.path)
        view.relayout()
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
        try:
            wider = scope.load_file(self.worktree, self.sides, file, self.context[file.path])
        except ReviewError as error:
            self.notify(str(error), severity="error")
            return
        files = list(self.diff.files)
        files[index] = wider
        self.diff = replace(self.diff, files=files)
        self.view.show(self.diff)

    # -- search --------------------------------------------------------------------------------

    def action_search(self) -> None:
        field = self.query_one("#search", Input)
        field.add_class("shown")
        # at once, not after the queued keys: what the reviewer types next is the search
        self.set_focus(field)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "search":
            return
        event.stop()
        self._close_search()
        if event.value and not self.view.find_text(event.value):
            self.notify(f"Not found: {visible(event.value)}", severity="warning", timeout=3)

    def on_key(self, event) -> None:  # type: ignore[no-untyped-def]
        field = self.query_one("#search", Input)
        if event.key == "escape" and field.has_focus:
            event.stop()
            self._close_search()

    def _close_search(self) -> None:
        self.query_one("#search", Input).remove_class("shown")
        self.view.focus()

    def action_next_match(self) -> None:
        self._match(forward=True)

    def action_previous_match(self) -> None:
        self._match(forward=False)

    def _match(self, forward: bool) -> None:
        pattern = self.view.search
        if pattern is None:
            self.app.bell()
            return
        found = self.view.rows.search(pattern, self.view.cursor, forward) if self.view.rows else None
        if found is None:
            self.app.bell()
        else:
            self.view.go_to(found)

    def action_clear_search(self) -> None:
        if self.view.search is not None:
            self.view.find_text("")
