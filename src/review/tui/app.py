"""The Textual application, built by one factory for the command line and for the tests."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding

from review.config import Config
from review.errors import BadConfig
from review.repo.git import Worktree
from review.repo.scope import Scope
from review.tui.dialogs.confirm_dialog import ConfirmDialog
from review.tui.screens.help_screen import HelpScreen
from review.tui.screens.review_screen import FirstDiff, ReviewScreen
from review.tui.widgets.diff_view import DiffView
from review.tui.widgets.file_list import FileList


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
        reviewing = [screen for screen in self.screen_stack if isinstance(screen, ReviewScreen)]
        if not reviewing:
            self.exit()
            return
        saving = reviewing[0].saving

        def quit_or_ask() -> None:
            if not saving.waiting:
                self.exit()
            elif not isinstance(self.screen, ConfirmDialog):
                count = saving.waiting
                question = f"{count} change{'s' * (count != 1)} not saved yet. Their text is kept in {saving.file}. Quit anyway?"
                self.push_screen(
                    ConfirmDialog(question, yes="Quit", no="Stay"), lambda yes: self.exit() if yes else None
                )

        # being saved: a moment more (an agent may hold the lock for a while)
        saving.when_saved(quit_or_ask)

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
