"""The footer of the review screen: Textual's, with help and quit kept in sight at any width.

Textual's footer lists the focused widget's keys first and the app's last, so on a narrow
terminal `?` and `q` are the first to be cut off, though they are the two keys a newcomer needs.
Here they are pinned on the right, beside the command palette's key, and the other keys give way.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported; textual is pinned exactly

PINNED = ("overview", "help", "quit")
"""The actions whose keys are always shown: the way back to the overview (when there is one),
help and quit."""


class ReviewFooter(Footer):
    """The keys of what has focus, with help, quit and the command palette pinned on the right."""

    DEFAULT_CSS = """
    ReviewFooter {
        & > #pinned { dock: right; width: auto; height: 1; background: $footer-background; }
        & > #pinned FooterKey.-command-palette { dock: none; }
    }
    """

    def compose(self) -> ComposeResult:
        keys = list(super().compose())
        pinned = [
            key
            for key in keys
            if isinstance(key, FooterKey) and (key.action in PINNED or key.has_class("-command-palette"))
        ]
        yield from (key for key in keys if key not in pinned)
        if pinned:
            pinned.sort(key=lambda key: key.has_class("-command-palette"))
            yield HorizontalGroup(*pinned, id="pinned")
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Show the keys that fit whole beside the pinned ones; a key cut in half reads wrong."""
        pinned = sum(group.outer_size.width for group in self.query("#pinned"))
        if not pinned and self.size.width and self.query("#pinned"):
            self.call_after_refresh(self._fit)  # just composed: the pinned keys are not laid out yet
            return
        room = self.size.width - pinned
        for key in self.query_children(FooterKey):
            room -= key.render().cell_len + key.styles.margin.width
            key.display = room >= 0
