"""The Textual application, built by one factory for the command line and for the tests: on one
worktree's diff (`make_app`), or on the overview of every worktree (`make_overview_app`), from
which the reviewer opens one review after another in the same app."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self
from weakref import WeakKeyDictionary

from textual import events, work
from textual.app import App
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import Screen

from review.config import Config
from review.errors import BadConfig, ReviewError
from review.repo import git
from review.repo.git import Worktree
from review.repo.scope import Scope
from review.state.opening import FIRST_SCREEN_WAIT, FirstDiff, read_apart
from review.tui import parsed_css, uncut_strips
from review.tui.compact import CLASS as COMPACT
from review.tui.compact import WIDTH as COMPACT_BELOW
from review.tui.first_frame import FirstFrameOnly
from review.tui.screens.review_screen import ReviewScreen

if TYPE_CHECKING:
    # The overview's modules are imported only by an app that has one: `review PATH` starts
    # without them.
    from review.overview.hosts import Host
    from review.overview.rows import Row
    from review.overview.status import Overview
    from review.tui.saving import Saving
    from review.tui.screens.overview_screen import OverviewScreen

uncut_strips.install()  # before any line is drawn

_BATCH = ("overview", "next_waiting")
"""The actions that exist only when the app has an overview."""


class ReviewApp(App[None]):
    """`review`: one worktree's diff, or the overview of every worktree and their reviews."""

    TITLE = "review"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit"),
        Binding("question_mark", "help", "Help", key_display="?", id="help"),
        Binding("W", "next_waiting", "Next waiting", id="next_waiting"),
        Binding("o", "overview", "Overview", id="overview"),
    ]

    compact: var[bool] = var(False, init=False)
    """Whether the terminal is narrower than `COMPACT_BELOW`: the screens lay themselves out for
    a small screen (`review.tui.compact`), watching this."""

    def __init__(
        self,
        worktree: Worktree | None,
        chosen: Scope,
        config: Config,
        *,
        watch: bool = True,
        first: FirstDiff | None = None,
        overview: Overview | None = None,
        first_rows: Future[list[Row]] | None = None,
        now: Callable[[], float] = time.time,
        hosts: Sequence[Host] = (),
    ) -> None:
        super().__init__()
        if worktree is None and overview is None and not hosts:
            raise ValueError("the app needs a worktree, an overview or hosts")
        self.first = first
        self.worktree = worktree
        self.chosen = chosen
        self.config = config
        self.watching = watch
        self.overview = overview
        self._first_rows = first_rows
        self.now = now
        self.hosts = tuple(hosts)
        """Repositories on other machines that the overview shows below this one's."""
        self.batch = overview is not None or bool(hosts)
        """Whether the app has an overview to go through the worktrees from."""
        self._opened_from: WeakKeyDictionary[ReviewScreen, Path] = WeakKeyDictionary()
        """The overview's path of the worktree each review screen shows."""
        self._leaving: set[ReviewScreen] = set()
        self._opening = False
        self._notify = config.notify
        self.told = ""
        """What the terminal was told last (a bell, or an OSC 9 / 777 notification)."""
        if config.theme not in self.available_themes:
            names = ", ".join(sorted(self.available_themes))
            raise BadConfig(f"unknown theme '{config.theme}' in the config file; choose one of {names}")
        started_with = self.theme
        self.theme = config.theme
        self.set_keymap(config.keys)
        # The CSS parsed by an earlier start is given to the stylesheet, unless the theme differs
        # from the one Textual made it with: Textual then parses all of it again, in a
        # stylesheet of its own, once it runs.
        self._css_kept = parsed_css.recall(self.stylesheet) if self.theme == started_with else None

    def on_ready(self) -> None:
        # once the first frame is drawn, and again on the way out with what was parsed since
        # (a program killed keeps the first)
        self._keep_css()

    def on_unmount(self) -> None:
        self._keep_css()

    def _keep_css(self) -> None:
        if self._css_kept is not None:
            self._css_kept = parsed_css.keep(self.stylesheet, self._css_kept)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a toast, always as plain text: messages carry paths, names and searches from the
        repository, in which `[` is no markup (and `[/]` would stop the app)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def on_overview_screen_called(self, message: OverviewScreen.Called) -> None:
        """Ring the bell or show a desktop notification: worktrees call for the reviewer."""
        from review.overview import attention

        notify = attention.resolve_notify(self._notify, os.environ)
        self.told = attention.signal(message.calls, notify, os.environ)
        # Written by the driver's writer between frames, as Textual writes its own bell.
        if self.told and not self.is_headless and self._driver is not None:
            self._driver.write(self.told)

    def watch_compact(self, compact: bool) -> None:
        self.set_class(compact, COMPACT)

    def on_resize(self, event: events.Resize) -> None:
        # live: a phone turned sideways, a pane made wider
        self.compact = event.size.width < COMPACT_BELOW

    def get_default_screen(self) -> Screen[Any]:
        """The overview, or the review: the app's first screen, mounted and laid out with the app
        itself so that its first frame is whole. (A screen pushed from the app's on_mount is laid
        out while Textual holds back the display, and its first frame then lacks the parts that
        did not change after that.)"""
        # known before the first frame, which is then laid out for the screen's size
        self.compact = self.size.width < COMPACT_BELOW
        if self.batch:
            from review.tui.screens.overview_screen import OverviewScreen

            first, self._first_rows = self._first_rows, None
            return OverviewScreen(
                self.overview, watch=self.watching, now=self.now, first=first, hosts=self.hosts, poll=self.config.poll
            )
        assert self.worktree is not None
        return self._review_screen(self.worktree, self.chosen, first=self.first)

    def _review_screen(self, worktree: Worktree, chosen: Scope, first: FirstDiff | None = None) -> ReviewScreen:
        return ReviewScreen(
            worktree,
            chosen,
            watch=self.watching,
            split=self.config.split,
            syntax_theme=self.config.syntax_theme,
            first=first,
        )

    def refresh(self, *, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        # Textual asks the app for a layout once a screen it took away is gone (a review left for
        # the overview): the screen on top was laid out and drawn as it came back, and a layout
        # draws what it moves itself. Drawn whole again, the overview came twice.
        return super().refresh(repaint=repaint and not layout, layout=layout, recompose=recompose)

    def switch_screen(self, screen: Screen[Any] | str) -> AwaitComplete:
        if isinstance(screen, FirstFrameOnly):
            screen.switched_to()  # (its first frame whole, and the only one)
        return super().switch_screen(screen)

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver is not LinuxDriver:
            return driver
        from review.tui.driver import ReviewDriver

        return ReviewDriver  # (an escape is the Escape key sooner)

    @property
    def _background_screens(self) -> list[Screen[Any]]:
        """The screens that show through the top one (a dialog's), which Textual draws and keeps
        current. Textual counts the screen below the top one as seen even when the top one is
        opaque: every change to the overview under a review (its ages, a row) drew the review
        again, and from then on each time anything woke the overview, about once a second.
        (Textual's own, private: textual is pinned.)"""
        seen: list[Screen[Any]] = []
        for upper, lower in itertools.pairwise(reversed(self._screen_stack)):
            if upper.styles.background.a == 1:
                break
            seen.append(lower)
        return seen[::-1]

    @property
    def overview_screen(self) -> OverviewScreen | None:
        """The overview, when the app has one."""
        if not self.batch:
            return None
        from review.tui.screens.overview_screen import OverviewScreen

        return next((screen for screen in self.screen_stack if isinstance(screen, OverviewScreen)), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _BATCH:
            top = self.screen
            if action == "overview":
                return self.batch and isinstance(top, ReviewScreen)
            return self.batch and (isinstance(top, ReviewScreen) or top is self.overview_screen)
        return True

    # -- going from one review to the next -----------------------------------------------------

    def on_overview_screen_open(self, message: OverviewScreen.Open) -> None:
        """Open the review of a worktree of the overview over the overview."""
        self._open(message.path, replacing=None)

    def _open(self, path: Path, replacing: ReviewScreen | None) -> None:
        if self._opening:
            return
        overview = self.overview_screen
        row = overview.rows.get(path) if overview is not None else None
        if row is not None and row.host is not None:
            if replacing is not None:
                self.pop_screen()
            self._open_elsewhere(row)
            return
        self._opening = True
        self._find_worktree(path, replacing)

    def _open_elsewhere(self, row: Row) -> None:
        """Open the review of another machine's worktree with ssh: in a new tmux window inside
        tmux (the overview stays in sight), else in this terminal, back here when it ends."""
        import shlex
        import shutil
        import subprocess

        from textual.app import SuspendNotSupported

        from review.overview import hosts

        overview = self.overview_screen
        assert overview is not None and row.host is not None
        host = overview.hosts[row.host]
        argv = hosts.open_command(host, hosts.remote_path(row))
        overview.select(row.path)
        if os.environ.get("TMUX") and shutil.which("tmux"):
            done = subprocess.run(["tmux", "new-window", "-n", row.name, shlex.join(argv)], capture_output=True)
            said = done.stderr.decode("utf-8", "replace").strip()
        else:
            try:
                with self.suspend():
                    done = subprocess.run(argv)
            except SuspendNotSupported:
                self.notify(f"{row.host}: this terminal cannot be handed to ssh", severity="error")
                return
            said = f"ssh ended with exit status {done.returncode}"
        if done.returncode != 0:
            self.notify(
                f"The review of {row.name} on {row.host} did not open: {said}", title="review", severity="error"
            )
        overview.ask_again()

    @work(thread=True, group="open")
    def _find_worktree(self, path: Path, replacing: ReviewScreen | None) -> None:
        try:
            worktree = git.find_worktree(path)
            first = read_apart(worktree, Scope(), from_counts=not self.config.split)
            wait([first.anchoring], timeout=FIRST_SCREEN_WAIT)
        except ReviewError as error:
            self.call_from_thread(self._not_opened, str(error))
            return
        self.call_from_thread(self._opened, worktree, path, replacing, first)

    def _not_opened(self, reason: str) -> None:
        self._opening = False
        self.notify(reason, title="review", severity="error", timeout=8)

    def _opened(self, worktree: Worktree, path: Path, replacing: ReviewScreen | None, first: FirstDiff) -> None:
        self._opening = False
        overview = self.overview_screen
        if overview is None:
            return
        # the reviewer went elsewhere meanwhile (a dialog, the overview): they chose otherwise
        if self.screen is not (replacing or overview):
            return
        screen = self._review_screen(worktree, Scope(), first)
        self._opened_from[screen] = path
        if replacing is not None:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        overview.select(path)

    def _leave(self, screen: ReviewScreen, then: Callable[[], None]) -> None:
        """Leave a review once the reviewer's changes to it are saved; while one cannot be saved,
        only when the reviewer says so (its text stays in the unsaved file)."""
        if not screen.is_mounted:
            # It is still starting (the key came right after the one that opened it): taking it
            # away now would take its widgets from under its own start.
            self.set_timer(0.05, lambda: self._leave(screen, then))
            return
        if screen in self._leaving:
            return
        self._leaving.add(screen)
        saving = screen.saving

        def go() -> None:
            self._leaving.discard(screen)
            if self.screen is not screen:
                return  # a dialog opened meanwhile: the reviewer is still at work here
            if not saving.waiting:
                then()
                return
            count = saving.waiting
            question = (
                f"{count} change{'s' * (count != 1)} not saved yet. Their text is kept in {saving.file}. Leave anyway?"
            )

            def answered(yes: bool | None) -> None:
                if yes:
                    then()

            from review.tui.dialogs.confirm_dialog import ConfirmDialog

            self.push_screen(ConfirmDialog(question, yes="Leave", no="Stay"), answered)

        # being saved: a moment more (an agent may hold the lock for a while)
        saving.when_saved(go)

    def action_overview(self) -> None:
        """Back to the overview, its cursor on the worktree just reviewed, that row read again."""
        screen = self.screen
        overview = self.overview_screen
        if not isinstance(screen, ReviewScreen) or overview is None:
            return
        path = self._opened_from.get(screen, screen.worktree.root)

        def back() -> None:
            self.pop_screen()
            overview.came_back(path)

        self._leave(screen, back)

    def action_next_waiting(self) -> None:
        """Open the next worktree that waits on the reviewer, the longest waiting first."""
        overview = self.overview_screen
        if overview is None:
            return
        screen = self.screen
        current = self._opened_from.get(screen, screen.worktree.root) if isinstance(screen, ReviewScreen) else None
        path = overview.next_waiting(current)
        if path is None:
            more = " else" if current is not None else ""
            self.notify(f"Nothing{more} waits on you.", timeout=4)
            return
        if isinstance(screen, ReviewScreen):
            assert current is not None

            def move_on() -> None:
                overview.refresh_rows([current])
                self._open(path, replacing=screen)

            self._leave(screen, move_on)
        elif screen is overview:
            self._open(path, replacing=None)

    # -- quitting ------------------------------------------------------------------------------

    async def action_quit(self) -> None:
        """Quit once the reviewer's changes to every open review are saved; while one cannot be
        saved, only when the reviewer says so."""
        savings = [screen.saving for screen in self.screen_stack if isinstance(screen, ReviewScreen)]
        if not savings:
            self._quit_now()
            return
        left = len(savings)

        def saved() -> None:
            nonlocal left
            left -= 1
            if not left:
                quit_or_ask(savings)

        def quit_or_ask(savings: list[Saving]) -> None:
            from review.tui.dialogs.confirm_dialog import ConfirmDialog

            waiting = [saving for saving in savings if saving.waiting]
            if not waiting:
                self._quit_now()
            elif not isinstance(self.screen, ConfirmDialog):
                count = sum(saving.waiting for saving in waiting)
                files = ", ".join(str(saving.file) for saving in waiting)
                question = (
                    f"{count} change{'s' * (count != 1)} not saved yet. Their text is kept in {files}. Quit anyway?"
                )
                self.push_screen(
                    ConfirmDialog(question, yes="Quit", no="Stay"), lambda yes: self._quit_now() if yes else None
                )

        # being saved: a moment more (an agent may hold the lock for a while)
        for saving in savings:
            saving.when_saved(saved)

    def _quit_now(self) -> None:
        overview = self.overview_screen
        if overview is not None:
            overview.stop()
        self.exit()

    def action_help(self) -> None:
        from review.tui.screens.help_screen import HelpScreen
        from review.tui.widgets.diff_view import DiffView
        from review.tui.widgets.file_list import FileList

        if isinstance(self.screen, HelpScreen):
            return
        bindings = [b for b in self.BINDINGS if isinstance(b, Binding)]
        batch: list[BindingType] = [b for b in bindings if b.action in _BATCH]
        everywhere: list[BindingType] = [b for b in bindings if b.action not in _BATCH]
        waiting: list[BindingType] = [b for b in bindings if b.action == "next_waiting"]
        screen = self.screen
        if screen is self.overview_screen:
            from review.tui.screens.overview_screen import OverviewScreen
            from review.tui.widgets.worktree_table import WorktreeTable

            groups: list[tuple[str, list[BindingType]]] = [
                ("The worktrees", list(OverviewScreen.BINDINGS) + list(WorktreeTable.BINDINGS)),
                ("Going through the reviews", waiting),
                ("Everywhere", everywhere),
            ]
            root = self.overview.repo.root if self.overview is not None else None
            self.push_screen(HelpScreen(groups, self.config.keys, root))
            return
        groups = [
            ("Moving in the diff", list(DiffView.BINDINGS)),
            ("Reviewing", list(ReviewScreen.BINDINGS)),
            ("File list", list(FileList.BINDINGS)),
        ]
        if self.batch:
            groups.append(("Going through the reviews", batch))
        groups.append(("Everywhere", everywhere))
        reviewing = screen.worktree.root if isinstance(screen, ReviewScreen) else None
        self.push_screen(HelpScreen(groups, self.config.keys, reviewing))


def make_app(
    worktree: Worktree,
    chosen: Scope = Scope(),
    config: Config | None = None,
    *,
    watch: bool = True,
    first: FirstDiff | None = None,
) -> ReviewApp:
    """The review app for `worktree`; tests pass `watch=False` to leave the file watcher off.

    `first` is the diff already being read while the app starts, with its sides.
    """
    return ReviewApp(worktree, chosen, config or Config(), watch=watch, first=first)


def make_overview_app(
    overview: Overview | None,
    config: Config | None = None,
    *,
    watch: bool = True,
    now: Callable[[], float] = time.time,
    first: Future[list[Row]] | None = None,
    hosts: Sequence[Host] = (),
) -> ReviewApp:
    """The app on the overview of `overview`'s repository, from which the reviewer opens each
    worktree's review. Its rows start being read at once, while the app starts, unless `first`
    is that reading already under way (`Overview.read_apart()`).

    `hosts` are repositories on other machines, shown below this one's (or alone, without an
    `overview`: a laptop that looks at a workstation's agents). The caller keeps `overview` and
    closes it after the app has run. Tests pass `watch=False` to
    leave the live updates and the review screens' file watchers off, and `now` to stop the clock
    the ages are measured with.
    """
    from review.background import in_a_thread

    return ReviewApp(
        None,
        Scope(),
        config or Config(),
        watch=watch,
        overview=overview,
        first_rows=first or (in_a_thread(overview.read_rows, "review-overview-read") if overview is not None else None),
        now=now,
        hosts=hosts,
    )
