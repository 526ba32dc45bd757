"""The footer: the keys of what has focus, with help and quit kept in sight at any width.

One line drawn by one widget, from the screen's active bindings at the moment it is drawn, so that
it is whole in the first frame of a screen and after every change of focus; Textual's footer
composes a widget a key once the screen has run, and fits them a frame later. The keys that do not
fit whole give way, from the right, before the pinned ones: `?` and `q` are the two keys a
newcomer needs, so they are pinned on the right, beside the command palette's key.

On a small screen (`review.tui.compact`) the screen gives the footer its few keys that matter
away from a desk, with short names; they are laid out whole on as many rows as they take (two at
40 columns), each a large target for a finger.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget

PINNED = ("overview", "help", "quit")
"""The actions whose keys are always shown: the way back to the overview (when there is one),
help and quit."""


class _Key(NamedTuple):
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
        &.-compact, &.-rows { height: auto; }
        background: $footer-background;
        color: $footer-foreground;
        & > .review-footer--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        & > .review-footer--description { color: $footer-description-foreground; background: $footer-description-background; }
        & > .review-footer--pinned { color: $foreground 20%; }
    }
    """

    def __init__(self, *, dialog: bool = False) -> None:
        """A footer; a `dialog`'s has every key whole on as many rows as they take (a dialog has
        few), and not the command palette's (a dialog keeps it closed)."""
        super().__init__(classes="-rows" if dialog else None)
        self._dialog = dialog
        self._drawn_keys: tuple[list[_Key], list[_Key]] = ([], [])
        self._spans: list[tuple[int, int, int, str]] = []
        """Where each drawn key is (row, first and last cell), and the key a click on it presses."""
        self._compact: Mapping[str, str] | None = None

    @property
    def compact(self) -> Mapping[str, str] | None:
        """The only actions shown, each with its short name, in order (a small screen's footer);
        None for every shown binding, fitted to one row."""
        return self._compact

    @compact.setter
    def compact(self, keys: Mapping[str, str] | None) -> None:
        self._compact = keys
        self.set_class(keys is not None, "-compact")
        self.refresh(layout=True)

    @property
    def _in_rows(self) -> bool:
        """Whether the keys are laid on as many rows as they take: a small screen's few, or a
        dialog's all; else on one row, those that do not fit left out."""
        return self._compact is not None or self._dialog

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # the bindings are published again after every change of focus, mostly the same
        if self.keys() != self._drawn_keys:
            # on a small screen the keys may take another row
            self.refresh(layout=self._in_rows)

    def keys(self) -> tuple[list[_Key], list[_Key]]:
        """The keys to show, in order, and those pinned on the right."""
        if self._compact is not None:
            return self._compact_keys(self._compact), []
        shown: dict[str, _Key] = {}
        pinned: dict[str, _Key] = {}
        palette = "command_palette" if self.app.ENABLE_COMMAND_PALETTE and not self._dialog else None
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

    def _compact_keys(self, names: Mapping[str, str]) -> list[_Key]:
        found: dict[str, _Key] = {}
        for _, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if binding.action in names:
                key = _Key(binding.key, self.app.get_key_display(binding), names[binding.action], enabled)
                # of two keys for one action (q and ctrl+q), the one easier to type on a phone
                if binding.action not in found or key.width < found[binding.action].width:
                    found[binding.action] = key
        return [found[action] for action in names if action in found]

    def _rows(self, keys: list[_Key], width: int) -> list[list[_Key]]:
        """`keys` on rows of `width` cells, each key whole, in order."""
        rows: list[list[_Key]] = [[]]
        used = 0
        for key in keys:
            if rows[-1] and used + key.width + 2 > width:
                rows.append([])
                used = 0
            rows[-1].append(key)
            used += key.width + 2
        return rows

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not self._in_rows:
            return 1
        return len(self._rows(self._row_keys(), width))

    def _row_keys(self) -> list[_Key]:
        """The keys laid out on rows: a small screen's few, or a dialog's all."""
        shown, pinned = self.keys()
        return shown + pinned

    def render(self) -> Text:
        width = self.size.width
        if self._in_rows:
            return self._render_rows(width)
        keys, pinned = self._drawn_keys = self.keys()
        separator = self.get_component_rich_style("review-footer--pinned")
        right = sum(k.width + 2 for k in pinned) + (1 if pinned else 0)
        line = Text(no_wrap=True, overflow="crop")
        spans: list[tuple[int, int, int, str]] = []

        def put(key: _Key) -> None:
            start = line.cell_len
            self._put(line, key)
            spans.append((0, start, line.cell_len - 1, key.key))

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

    def _put(self, line: Text, key: _Key) -> None:
        dim = Style(dim=not key.enabled)
        line.append(f" {key.display} ", self.get_component_rich_style("review-footer--key") + dim)
        line.append(f"{key.description} ", self.get_component_rich_style("review-footer--description") + dim)

    def _render_rows(self, width: int) -> Text:
        shown, pinned = self._drawn_keys = self.keys()
        keys = shown + pinned
        text = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, int, str]] = []
        for y, row in enumerate(self._rows(keys, width)):
            line = Text(no_wrap=True, overflow="crop", end="")
            for key in row:
                start = line.cell_len
                self._put(line, key)
                spans.append((y, start, line.cell_len - 1, key.key))
            if y:
                text.append("\n")
            text.append_text(line)
        self._spans = spans
        return text

    @property
    def drawn(self) -> list[str]:
        """The keys drawn last, left to right and row by row."""
        return [key for _, _, _, key in self._spans]

    def on_click(self, event: events.Click) -> None:
        for y, first, last, key in self._spans:
            if y == event.y and first <= event.x <= last:
                self.app.simulate_key(key)
                return
