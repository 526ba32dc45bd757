"""`?`: every key binding with its id, so the reviewer can remap it in the config file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from review.config import config_path
from review.repo.text import visible
from review.tui.first_frame import FirstFrameOnly, show_text_scrollbars


class HelpScreen(FirstFrameOnly[None], ModalScreen[None]):
    """A list of the bindings of each part of the screen."""

    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="close_help"),
        Binding("j,down", "scroll(1)", "Down", show=False, id="help_down"),
        Binding("k,up", "scroll(-1)", "Up", show=False, id="help_up"),
        Binding("space,pagedown", "page(1)", "Page down", show=False, id="help_page_down"),
        Binding("b,pageup", "page(-1)", "Page up", show=False, id="help_page_up"),
        Binding("g,home", "ends(False)", "Top", show=False, id="help_top"),
        Binding("G,end", "ends(True)", "Bottom", show=False, id="help_bottom"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 84; max-width: 100%; height: 90%;
            background: $panel; border: round $primary; padding: 0 1;
        }
    }
    """

    def __init__(
        self, groups: list[tuple[str, list[BindingType]]], keymap: Mapping[str, str], worktree: Path | None = None
    ) -> None:
        """A help screen listing `groups` of bindings, with the keys of `keymap` where remapped,
        under the path of the `worktree` reviewed."""
        super().__init__()
        self.groups = groups
        self.keymap = keymap
        self.worktree = worktree

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.text())

    def on_mount(self) -> None:
        if hasattr(type(self.app), "compact"):
            self.watch(self.app, "compact", self._compact)

    def first_shown(self) -> None:
        show_text_scrollbars(self._scroller, self.query_one(Static))

    def _compact(self, compact: bool) -> None:
        # a small screen has no room for the ids, which matter for remapping, at a desk
        self.query_one(Static).update(self.text(ids=not compact))

    @property
    def _scroller(self) -> VerticalScroll:
        return self.query_one(VerticalScroll)

    def action_scroll(self, lines: int) -> None:
        self._scroller.scroll_relative(y=lines, animate=False)

    def action_page(self, pages: int) -> None:
        self._scroller.scroll_relative(y=pages * self._scroller.scrollable_content_region.height, animate=False)

    def action_ends(self, bottom: bool) -> None:
        if bottom:
            self._scroller.scroll_end(animate=False)
        else:
            self._scroller.scroll_home(animate=False)

    def text(self, ids: bool = True) -> Text:
        """The help: the worktree reviewed, then every key by group (with its id, for the config
        file, when `ids`)."""
        text = Text()
        if self.worktree is not None:
            text.append("Reviewing ", "dim")
            text.append(visible(str(self.worktree)), "bold")
            text.append("\n\n")
        text.append("Keys", "bold")
        text.append("   (j k, space b, g G scroll; escape closes)\n", "dim")
        for title, bindings in self.groups:
            text.append(f"\n{title}\n", "bold underline")
            for binding in bindings:
                if not isinstance(binding, Binding) or binding.id is None:
                    continue
                keys = self.keymap.get(binding.id, binding.key)
                shown = ", ".join(self.app.get_key_display(Binding(key.strip(), "")) for key in keys.split(","))
                if not ids:
                    text.append(f"  {shown:<12}", "bold")
                    text.append(f"{binding.description}\n")
                    continue
                text.append(f"  {shown:<18}", "bold")
                text.append(f"{binding.description:<28}")
                text.append(f"{binding.id}\n", "dim")
        text.append(f"\nRemap a key in {config_path()}:\n", "dim")
        text.append('  [keys]\n  next_hunk = "ctrl+n"\n', "dim")
        return text
