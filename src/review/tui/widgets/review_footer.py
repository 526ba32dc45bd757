"""The footer: the keys of what has focus, with help and quit kept in sight at any width.

One line drawn by one widget, from the screen's active bindings at the moment it is drawn, so that
it is whole in the first frame of a screen and after every change of focus; Textual's footer
composes a widget a key once the screen has run, and fits them a frame later. The keys that do not
fit whole give way, from the right, before the pinned ones: `?` and `q` are the two keys a
newcomer needs, so they are pinned on the right, beside the command palette's key.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

PINNED = ("overview", "help", "quit")
"""The actions whose keys are always shown: the way back to the overview (when there is one),
help and quit."""


@dataclass(frozen=True)
class _Key:
    key: str
    """The key pressed when the reviewer clicks it."""
    display: str
    description: str
    enabled: bool

    @property
    def width(self) -> int:
        return cell_len(self.display) + 1 + cell_len(self.description)


class ReviewFooter(Widget):
    """The keys of what has focus, with help, quit and the command palette pinned on the right."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"review-footer--key", "review-footer--description", "review-footer--pinned"}
    DEFAULT_CSS = """
    ReviewFooter {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        & > .review-footer--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        & > .review-footer--description { color: $footer-description-foreground; background: $footer-description-background; }
        & > .review-footer--pinned { color: $foreground 20%; }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._drawn_keys: tuple[list[_Key], list[_Key]] = ([], [])
        self._spans: list[tuple[int, int, str]] = []
        """Where each drawn key is (first and last cell), and the key a click on it presses."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # the bindings are published again after every change of focus, mostly the same
        if self.keys() != self._drawn_keys:
            self.refresh()

    def keys(self) -> tuple[list[_Key], list[_Key]]:
        """The keys to show, in order, and those pinned on the right."""
        shown: dict[str, _Key] = {}
        pinned: dict[str, _Key] = {}
        palette = "command_palette" if self.app.ENABLE_COMMAND_PALETTE else None
        for _, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show and binding.action != palette:
                continue
            key = _Key(binding.key, self.app.get_key_display(binding), binding.description, enabled)
            # one entry an action, as Textual's footer has: the first key bound to it
            if binding.action in PINNED or binding.action == palette:
                pinned.setdefault(binding.action, key)
            else:
                shown.setdefault(binding.action, key)
        order = [*PINNED, palette]
        return list(shown.values()), [pinned[action] for action in order if action in pinned]

    def render(self) -> Text:
        width = self.size.width
        keys, pinned = self._drawn_keys = self.keys()
        key_style = self.get_component_rich_style("review-footer--key")
        description_style = self.get_component_rich_style("review-footer--description")
        separator = self.get_component_rich_style("review-footer--pinned")
        right = sum(k.width + 2 for k in pinned) + (1 if pinned else 0)
        line = Text(no_wrap=True, overflow="crop")
        spans: list[tuple[int, int, str]] = []

        def put(key: _Key) -> None:
            dim = Style(dim=not key.enabled)
            start = line.cell_len
            line.append(f" {key.display} ", key_style + dim)
            line.append(f"{key.description} ", description_style + dim)
            spans.append((start, line.cell_len - 1, key.key))

        room = width - right
        for key in keys:
            # a key cut in half reads wrong: the keys that do not fit whole are left out
            if line.cell_len + key.width + 2 > room:
                break
            put(key)
        if pinned:
            line.append(" " * max(0, width - right - line.cell_len))
            line.append("▏", separator)
            for key in pinned:
                put(key)
        self._spans = spans
        return line

    @property
    def drawn(self) -> list[str]:
        """The keys drawn last, left to right."""
        return [key for _, _, key in self._spans]

    def on_click(self, event: events.Click) -> None:
        for first, last, key in self._spans:
            if first <= event.x <= last:
                self.app.simulate_key(key)
                return
