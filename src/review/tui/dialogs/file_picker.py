"""The changed files as a pop-up, for a small screen where the file list has no room beside the
diff: choosing one goes to it."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from review.repo.diff import Diff, FileDiff
from review.repo.text import visible
from review.tui.dialogs.frame import Picker
from review.tui.widgets.file_list import file_counts
from review.tui.widgets.review_footer import ReviewFooter


def file_prompt(file: FileDiff, viewed: bool) -> Text:
    """A file as the pop-up lists it: status letter, the whole path (wrapped, never cut), its
    counts and a mark once viewed."""
    text = Text(end="")
    text.append(f"{file.status.letter} ", Style(bold=True))
    text.append(visible(file.path), Style(dim=viewed))
    text.append_text(file_counts(file, viewed))
    return text


class FilePicker(Picker[int | None]):
    """Choose a file of the diff; the pop-up closes with its index."""

    BINDINGS = [
        # a priority over the list's own enter, so that the footer shows it
        Binding("enter", "go_to", "Go to", priority=True, id="go_to_file"),
        Binding("escape,f", "close", "Close", id="close_files"),
        Binding("j", "move(1)", "Down", show=False, id="picker_down"),
        Binding("k", "move(-1)", "Up", show=False, id="picker_up"),
    ]

    DEFAULT_CSS = """
    FilePicker {
        & > Vertical { width: 100%; height: 100%; min-height: 0; }
        #title { margin: 0 0 1 0; }
        OptionList { height: 1fr; }
    }
    """

    def __init__(self, diff: Diff, viewed: AbstractSet[str], current: int | None) -> None:
        """Open the pop-up on `diff`'s files, those in `viewed` marked, the one at `current`
        (the file under the diff's cursor) highlighted."""
        super().__init__()
        self.diff = diff
        self.viewed = set(viewed)
        self.current = current

    def compose(self) -> ComposeResult:
        files = self.diff.files
        with Vertical():
            yield Static(Text(f"Files ({len(files)}, {len(self.viewed)} viewed)"), id="title")
            options = [Option(file_prompt(file, file.path in self.viewed), id=str(i)) for i, file in enumerate(files)]
            yield OptionList(*options, markup=False)
            yield ReviewFooter(dialog=True)

    def on_mount(self) -> None:
        if self.current is not None and self.diff.files:
            self.query_one(OptionList).highlighted = self.current

    def chosen(self, option_id: str) -> int | None:
        return int(option_id)
