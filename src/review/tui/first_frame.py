"""The size and scrollbars a widget will have in the screen's first frame, worked out before it.

Textual's compositor places a widget's scrollbars before it tells the widget its size. A widget
whose content is only measured then (the diff, the file list) would ask for its scrollbars in the
next frame, which moves its rows and narrows its lines a moment after the first frame showed
them. Working out its size beforehand, as the compositor will, lets its first frame be its last.
"""

from __future__ import annotations

import itertools

from textual.geometry import Size
from textual.widget import Widget


def size_to_come(widget: Widget) -> Size:
    """The size the screen will give `widget` (inside its border and padding) when it is first
    laid out: its containers arranged as the compositor will arrange them. Zero when it cannot
    tell (a widget that is not shown, say)."""
    path = list(reversed(widget.ancestors_with_self))
    path = path[path.index(widget.screen) :]
    size = widget.app.size
    for container, child in itertools.pairwise(path):
        if not isinstance(container, Widget) or not isinstance(child, Widget):
            return Size(0, 0)
        region = next((p.region for p in container.arrange(size).placements if p.widget is child), None)
        if region is None:
            return Size(0, 0)
        size = region.shrink(child.styles.gutter).size
    return size


def show_scrollbars(widget: Widget, container: Size) -> None:
    """Show the scrollbars `widget` needs for its virtual size in `container`, as Textual decides
    them once it knows the widget's size."""
    styles = widget.styles
    virtual = widget.virtual_size

    def needed(overflow: str, length: int, room: int) -> bool:
        return overflow == "scroll" or (overflow == "auto" and length > room)

    vertical = needed(styles.overflow_y, virtual.height, container.height)
    horizontal = needed(styles.overflow_x, virtual.width, container.width - styles.scrollbar_size_vertical * vertical)
    if horizontal and not vertical:
        vertical = needed(styles.overflow_y, virtual.height, container.height - styles.scrollbar_size_horizontal)
    widget.show_vertical_scrollbar = vertical
    widget.show_horizontal_scrollbar = horizontal
    # as Textual shows them, which would otherwise lay the screen out again after the frame
    if vertical:
        widget.vertical_scrollbar.display = True
    if horizontal:
        widget.horizontal_scrollbar.display = True


class LaidOnce:
    """Whether a layout gives a scrolling widget the sizes it was last laid out with. Textual's
    ScrollView takes every layout for a resize (it compares its virtual size with the size of
    its content on the screen) and draws its scrollbars again: in the frames after the first,
    which then change nothing."""

    def __init__(self) -> None:
        self._last: tuple[Size, Size, Size] | None = None

    def again(self, size: Size, container: Size, virtual: Size) -> bool:
        """Whether the widget's size, its container's and its virtual size (its own, not the one
        the compositor gives) are those of the last layout; they are the last now."""
        sizes = (size, container, virtual)
        if self._last == sizes:
            return True
        self._last = sizes
        return False
