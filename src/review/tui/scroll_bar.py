"""The vertical scrollbar of the diff and of the file list, drawn by the widget itself as the last
cells of each of its lines.

Textual's scrollbar is a widget of its own, drawn again whole, line by line, whenever its widget
scrolls: a key that scrolls the diff and the file list (`n`, to the next comment) drew about 150
lines where 75 changed (median 20.9 ms against 12.7 now on a large diff, 20.5 against 13.5 on a
huge one). Two cells more on each line the widget draws anyway cost next to nothing.

It looks as Textual's does (the widget's `scrollbar-*` styles, a thumb placed to an eighth of a
cell) and answers the mouse as it does: a press above or below the thumb scrolls a page, the thumb
is dragged, and the wheel scrolls the widget. A widget gets one by being a `ScrollViewWithItsBar`.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import ceil
from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.scroll_view import ScrollView
from textual.strip import Strip

from review.tui import kept_lines
from review.tui.kept_lines import KeptByLine

_LOWER = " ▁▂▃▄▅▆▇"
"""A cell's lower part filled, by eighths."""


class Thumb(NamedTuple):
    """Where the thumb starts and ends, in eighths of a cell from the top of the bar."""

    start: int
    end: int

    @property
    def cells(self) -> range:
        """The cells the thumb covers, a part of one included."""
        return range(self.start // 8, (self.end + 7) // 8)


def thumb(total: int, height: int, top: int) -> Thumb | None:
    """The thumb of a bar `height` cells long, for `height` rows shown of `total` from row `top`;
    None when every row is shown. (Worked out as Textual works out its own, in the same order,
    so that both look the same to the cell.)"""
    if height <= 0 or total <= height:
        return None
    length = max(1, height / (total / height))
    at = (height - length) * (top / (total - height))
    start = int(at * 8)
    return Thumb(start, start + ceil(length * 8))


class _Looks(NamedTuple):
    track: Style
    thumb: Style
    head: Style
    """A cell whose lower part is the thumb's top."""
    tail: Style
    """A cell whose upper part is the thumb's bottom (a lower block, reversed)."""


class ScrollBar:
    """The vertical scrollbar of a line-API ScrollView whose overflow is hidden: the widget draws
    its lines `room()` cells wide, each `beside` the bar, and gives the bar its mouse events
    first."""

    def __init__(self, widget: ScrollView) -> None:
        self._widget = widget
        self._hover = False
        self._grabbed: tuple[int, int] | None = None
        """Where the mouse grabbed the thumb (its row on the screen) and the row then on top."""
        self._dragged = False
        """Whether the last press was on the thumb: the click that ends it is the bar's."""
        self._looks: dict[str, _Looks] = {}
        """The bar's colours when still, under the mouse and held, as the widget's styles say
        (forgotten when they change, `forget_looks`)."""
        self._cells: dict[tuple[str, Style], Strip] = {}
        """The bar's cells, by glyphs and style: each is made once."""
        self._joined: LRUCache[tuple[int, int], tuple[Strip, Strip]] = LRUCache(512)
        """Lines with their cell, by the ids of both (and the line, which keeps its id its own)."""

    # -- what is drawn ---------------------------------------------------------------------------

    @property
    def width(self) -> int:
        """The cells the bar takes at the right of the widget's lines, when they need one: its
        `scrollbar-size-vertical`, as Textual's would."""
        return self._widget.styles.scrollbar_size_vertical

    def _room(self) -> tuple[int, int]:
        """The widget's room for its lines, in cells and rows: its `scrollable_content_region`,
        which walks up to the screen each time it is asked for (a few times for every line)."""
        widget = self._widget
        container = widget.container_size
        return container.width, container.height - widget.scrollbar_size_horizontal

    def shown(self) -> bool:
        """Whether the widget has more rows than it shows, and so a bar."""
        return self._widget.virtual_size.height > self._room()[1]

    def room(self) -> int:
        """The cells of each line left for the widget's own content."""
        width, height = self._room()
        return max(0, width - self.width) if self._widget.virtual_size.height > height else width

    def beside(self, line: Strip, y: int, top: int | None = None) -> Strip:
        """`line` with the bar's cell on row `y` after it, when the widget has a bar (and has
        row `top` on top, if given: by default the row it has). The same line and cell give the
        same strip: Textual keeps what it makes of a strip (styled, cropped, filtered) on the
        strip, so that a line drawn again as it was costs next to nothing."""
        _, height = self._room()
        total = self._widget.virtual_size.height
        if total <= height:
            return line
        cell = self._cell(y, thumb(total, height, self._widget.scroll_offset.y if top is None else top))
        key = (id(line), id(cell))
        found = self._joined.get(key)
        if found is None:
            found = self._joined[key] = (line, Strip.join([line, cell]))
        return found[1]

    def _cell(self, y: int, found: Thumb | None) -> Strip:
        """The bar's cell on the widget's line `y`, where the thumb is `found`."""
        looks = self._current_looks()
        glyph, style = " ", looks.track
        if found is not None:
            start, start_part = divmod(found.start, 8)
            end, end_part = divmod(found.end, 8)
            if y == end and end_part:
                glyph, style = _LOWER[8 - end_part], looks.tail
            elif y == start and start_part:
                glyph, style = _LOWER[8 - start_part], looks.head
            elif start <= y < end:
                style = looks.thumb
        key = (glyph * self.width, style)
        strip = self._cells.get(key)
        if strip is None:
            strip = self._cells[key] = Strip([Segment(glyph * self.width, style)], self.width)
        return strip

    def _current_looks(self) -> _Looks:
        state = "active" if self._grabbed is not None else "hover" if self._hover else ""
        looks = self._looks.get(state)
        if looks is None:
            styles = self._widget.styles
            if state == "active":
                background, colour = styles.scrollbar_background_active, styles.scrollbar_color_active
            elif state == "hover":
                background, colour = styles.scrollbar_background_hover, styles.scrollbar_color_hover
            else:
                background, colour = styles.scrollbar_background, styles.scrollbar_color
            if background.a < 1:
                background = self._widget.background_colors[0] + background
            back, bar = background.rich_color, (background + colour).rich_color
            looks = self._looks[state] = _Looks(
                track=Style(bgcolor=back),
                thumb=Style(color=bar, reverse=True),
                head=Style(bgcolor=back, color=bar),
                tail=Style(bgcolor=back, color=bar, reverse=True),
            )
        return looks

    def forget_looks(self) -> None:
        """Work the colours out again: the widget's styles changed (its theme, its focus)."""
        self._looks.clear()
        self._cells.clear()
        self._joined.clear()

    # -- the mouse ---------------------------------------------------------------------------------

    def _under(self, event: events.MouseEvent) -> bool:
        width = self._room()[0]
        return self.shown() and width - self.width <= event.x < width

    def press(self, event: events.MouseDown) -> bool:
        """Take a press on the bar: grab the thumb, or scroll a page towards the press. Whether
        the press was the bar's."""
        self._dragged = False
        if not self._under(event):
            return False
        widget = self._widget
        _, height = self._room()
        found = thumb(widget.virtual_size.height, height, widget.scroll_offset.y)
        if found is not None and event.y in found.cells:
            self._grabbed = (event.screen_y, widget.scroll_offset.y)
            self._dragged = True
            widget.capture_mouse()
            widget.refresh()
        else:
            upwards = found is not None and event.y < found.cells.start
            widget.scroll_to(y=widget.scroll_offset.y + (-height if upwards else height), animate=False)
        return True

    def takes(self, event: events.Click) -> bool:
        """Whether a click is the bar's: on it, or ending a drag of its thumb (wherever the mouse
        was let go), which is not a click on the widget's rows."""
        return self._dragged or self._under(event)

    def move(self, event: events.MouseMove) -> bool:
        """Follow the mouse: drag the thumb it holds, or light the bar under it. Whether the move
        was the bar's."""
        widget = self._widget
        if self._grabbed is not None:
            grabbed_at, top = self._grabbed
            _, height = self._room()
            if height:
                rows_per_cell = widget.virtual_size.height / height
                widget.scroll_to(y=top + (event.screen_y - grabbed_at) * rows_per_cell, animate=False)
            return True
        self._light(self._under(event))
        return self._hover

    def release(self) -> bool:
        """Let go of the thumb; whether it was held."""
        if self._grabbed is None:
            return False
        self._grabbed = None
        self._widget.release_mouse()
        self._widget.refresh()
        return True

    def leave(self) -> None:
        """The mouse left the widget."""
        if self._grabbed is None:
            self._light(False)

    def _light(self, hover: bool) -> None:
        if hover != self._hover:
            self._hover = hover
            self._widget.refresh()


class ScrollViewWithItsBar(ScrollView):
    """A line-API ScrollView that draws its vertical scrollbar itself (`ScrollBar`): it draws
    each line `bar.room()` cells wide (`line`), and its overflow is hidden from Textual."""

    KEPT_SCREENS = kept_lines.SCREENS
    """Screens of its lines kept styled (`KeptByLine`): those it shows and draws ahead."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.bar = ScrollBar(self)
        self._kept = self._styles_cache = KeptByLine(self.KEPT_SCREENS)  # (private: textual is pinned)

    def line(self, y: int) -> Strip:
        """Line `y` of the widget, short of its scrollbar."""
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        return self.bar.beside(self.line(y), y)

    def style_ahead(self, top: int, lines: Iterable[Strip]) -> None:
        """Have `lines`, the widget's lines from its row `top` on as `line` will draw them once
        it is scrolled there, styled as Textual will style them (`KeptByLine`): a jump there
        then finds them all made."""
        beside = self.bar.beside
        self._kept.style_ahead(self, [beside(line, y, top) for y, line in enumerate(lines)])

    @property
    def allow_vertical_scroll(self) -> bool:
        # (Textual's own test is whether its scrollbar shows)
        return self.is_scrollable

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.bar.forget_looks()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if self.bar.press(event):
            event.stop()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self.bar.release():
            event.stop()
