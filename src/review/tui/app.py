"""The Textual application, built by one factory for the command line and for the tests."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding
from textual.timer import Timer

from review.config import BadConfig, Config
from review.git import Worktree
from review.scope import Scope
from review.tui.confirm_dialog import ConfirmDialog
from review.tui.help_screen import HelpScreen
from review.tui.review_screen import FirstDiff, ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList

QUIT_CHECK = 0.05
"""Seconds between looks at whether the changes are saved, while quitting waits for them."""


class ReviewApp(App[None]):
    """`review`: one worktree's diff."""

    TITLE = "review"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit"),
        Binding("question_mark", "help", "Help", key_display="?", id="help"),
    ]

    def __init__(
        self,
        worktree: Worktree,
        chosen: Scope,
        config: Config,
        *,
        watch: bool = True,
        first: FirstDiff | None = None,
    ) -> None:
        super().__init__()
        self.first = first
        self.worktree = worktree
        self.chosen = chosen
        self.config = config
        self.watching = watch
        if config.theme not in self.available_themes:
            names = ", ".join(sorted(self.available_themes))
            raise BadConfig(f"unknown theme '{config.theme}' in the config file; choose one of {names}")
        self.theme = config.theme
        self._quitting: Timer | None = None
        """While quitting waits for the reviewer's changes to be saved."""
        self.set_keymap(config.keys)

    def on_mount(self) -> None:
        self.push_screen(
            ReviewScreen(
                self.worktree,
                self.chosen,
                watch=self.watching,
                split=self.config.split,
                syntax_theme=self.config.syntax_theme,
                first=self.first,
            )
        )

    async def action_quit(self) -> None:
        """Quit once the reviewer's changes are saved; while one cannot be saved, only when the
        reviewer says so."""
        if self._quitting is None:
            self._quitting = self.set_interval(QUIT_CHECK, self._quit_when_saved)
            self._quit_when_saved()

    def _quit_when_saved(self) -> None:
        savings = [screen.saving for screen in self.screen_stack if isinstance(screen, ReviewScreen)]
        waiting = sum(saving.waiting for saving in savings)
        if not waiting:
            self.exit()
            return
        stuck = [saving for saving in savings if saving.stuck]
        if not stuck:
            return  # being saved: a moment more (an agent may hold the lock for a while)
        assert self._quitting is not None
        self._quitting.stop()
        self._quitting = None
        question = f"{waiting} change{'s' * (waiting != 1)} not saved yet. Their text is kept in {stuck[0].file}. Quit anyway?"

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        if not isinstance(self.screen, ConfirmDialog):
            self.push_screen(ConfirmDialog(question, yes="Quit", no="Stay"), answered)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        groups = [
            ("Moving in the diff", list(DiffView.BINDINGS)),
            ("Reviewing", list(ReviewScreen.BINDINGS)),
            ("File list", list(FileList.BINDINGS)),
            ("Everywhere", list(self.BINDINGS)),
        ]
        self.push_screen(HelpScreen(groups, self.config.keys, self.worktree.root))


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
