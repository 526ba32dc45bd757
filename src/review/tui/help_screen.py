"""`?`: every key binding with its id, so the reviewer can remap it in the config file."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from review.config import config_path


class HelpScreen(ModalScreen[None]):
    """A list of the bindings of each part of the screen."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", id="close_help")]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 84; max-width: 100%; height: 90%;
            background: $panel; border: round $primary; padding: 0 1;
        }
    }
    """

    def __init__(self, groups: list[tuple[str, list[BindingType]]], keymap: dict[str, str]) -> None:
        super().__init__()
        self.groups = groups
        self.keymap = keymap

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._text())

    def _text(self) -> Text:
        text = Text()
        text.append("Keys", "bold")
        text.append("   (escape closes)\n", "dim")
        for title, bindings in self.groups:
            text.append(f"\n{title}\n", "bold underline")
            for binding in bindings:
                if not isinstance(binding, Binding) or binding.id is None:
                    continue
                keys = self.keymap.get(binding.id, binding.key)
                shown = ", ".join(self.app.get_key_display(Binding(key.strip(), "")) for key in keys.split(","))
                text.append(f"  {shown:<18}", "bold")
                text.append(f"{binding.description:<28}")
                text.append(f"{binding.id}\n", "dim")
        text.append(f"\nRemap a key in {config_path()}:\n", "dim")
        text.append("  [keys]\n  next_hunk = \"ctrl+n\"\n", "dim")
        return text
