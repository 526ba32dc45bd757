"""A screen's first frame whole, and its only one until something changes.

Textual's compositor places a widget's scrollbars before it tells the widget its size. A widget
whose content is only measured then (the diff, the file list) would ask for its scrollbars in the
next frame, which moves its rows and narrows its lines a moment after the first frame showed
them. Working out its size beforehand, as the compositor will, lets its first frame be its last
(`size_to_come`, `show_scrollbars`).

After its first frame, Textual draws a screen again several times in the next 100 ms, though
nothing changed: for the repaint it asks for after the first layout, for each time the terminal
tells its size, for the layouts and repaints the widgets asked for as they were made, and for the
scrollbars of every scrolling widget at each layout (`FirstFrameOnly`, `LaidOnce`). Later, as
the screen changes, it drew twice what one frame shows: a widget asked to be drawn just before
the whole screen was, the scrollbars a layout sized, and what a layout moved when another layout
was already asked for (a scrollbar shown or hidden as a widget learns its size). (This reaches
into Textual's private parts: textual is pinned.)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Self, TypeVar

from textual import events, messages
from textual._time import get_time
from textual.geometry import Region, Size
from textual.message import Message
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.widget import Widget

Result = TypeVar("Result")


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


def show_scrollbars(widget: Widget, container: Size, virtual: Size | None = None) -> None:
    """Show the scrollbars `widget` needs for its virtual size (or `virtual`, for a container of
    widgets, whose own Textual measures only as it lays it out) in `container`, as Textual
    decides them once it knows the widget's size."""
    styles = widget.styles
    virtual = widget.virtual_size if virtual is None else virtual

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


def show_text_scrollbars(scroller: Widget, text: Widget) -> None:
    """Show the scrollbars `scroller` needs for `text`, its one child, with its text (the layout
    would add them a frame later): measured at the scroller's whole width, as a scrollbar only
    adds rows to a wrapped text."""
    room = scroller.container_size or size_to_come(scroller)
    show_scrollbars(scroller, room, Size(0, text.get_content_height(room, room, room.width)))


class NoSecondLayout(Widget):
    """A widget laid out once for each change of its size. Textual lays a widget whose virtual
    size changed out a second time, a frame later, drawing it again the same. Its scrollbars are
    set as its size is (`_scroll_update`); what it shows must not depend on its virtual size but
    through them. Named after the widget's own class (`class Text(Static, NoSecondLayout)`):
    Textual takes a widget's CSS type from its first base. (Textual's own, private: textual is
    pinned.)"""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


class LaidOnce:
    """Whether a layout gives a scrolling widget the sizes it was last laid out with. Textual's
    ScrollView takes every layout for a resize (it compares its virtual size with the size of
    its content on the screen) and draws its scrollbars again."""

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


class FirstFrameOnly(Screen[Result]):
    """A screen drawn once as it is first shown, not again until something changes."""

    def __init__(self) -> None:
        super().__init__()
        self._shown_once = False
        self._drawn_at: Size | None = None
        """The size the screen was laid out for last (see `_screen_resized`)."""
        self._repaint_once_more = True
        """False from the first resume until the repaint Textual asks for after it (`refresh`)."""
        self._first_frame_at = float("-inf")
        """When the first frame was drawn, on Textual's clock."""
        self._drawn = False
        """Whether the screen was drawn (on top)."""
        self._mounted_layouts_due = 1
        """Layouts Textual asks for as it sees the screen mounted, after its first frame (see
        `refresh`): two, and a repaint, for a screen switched to (`switched_to`)."""
        self._switched_repaint_due = False
        self._whole_at = float("-inf")
        """When the whole screen was last drawn, on Textual's clock."""
        self._drawn_late = False
        """Whether the last frame was put off until the next layout (`_compositor_refresh`)."""

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # (handled before Screen's own handler, which lays the screen out and draws it)
        if self._shown_once:
            return
        self._shown_once = True
        # Its styles were worked out as it mounted, a moment ago: working them out again for
        # every part of a screen (some forty kinds of row in the diff) would hold back the first
        # frame by about 20 ms. Later resumes do it, as the theme may have changed meanwhile.
        event.refresh_styles = False
        # Textual hides the rack of toasts once the screen is shown, which lays the screen out
        # again a frame later; hidden now, when there is no toast yet, the first frame is whole.
        for rack in self.query("#textual-toastrack"):
            rack.display = bool(self.app._notifications)  # (private: textual is pinned)
        self._drawn_at = self.app.size
        # the repaint is left out only when Textual lays the screen out, and so draws it whole,
        # as this resume is handled: when its size is not the screen's yet
        self._repaint_once_more = self.outer_size == self.app.size
        self.first_shown()

    def first_shown(self) -> None:
        """Called as the screen is first shown, before its first frame is drawn."""

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if not self._repaint_once_more and not (regions or layout or recompose):
            # Asked for as the first resume is handled, once the screen was laid out and drawn
            # whole: so were the parts asked for before, as the screen was made.
            self._repaint_once_more = True
            self._repaint_required = False
            self._dirty_widgets.clear()
            for widget in self._laid_out_widgets():
                # set as the screen was made and laid out, to be sent once each widget is idle
                widget._repaint_required = widget._layout_required = False
            self._first_frame_at = get_time()
            return self
        if layout and not regions and self._mounted_layouts_due and self._drawn:
            # A pushed screen is laid out once more as Textual sees its widgets mounted, a moment
            # after its first frame (`AwaitMount`): the same layout, which drew it whole again.
            # A layout draws what it moves itself.
            self._mounted_layouts_due -= 1
            repaint = False
        elif self._switched_repaint_due and self._drawn and not (regions or layout or recompose):
            # the repaint Textual asks for as it drops the screen switched from
            self._switched_repaint_due = False
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def switched_to(self) -> None:
        """Called as `App.switch_screen` puts this screen in place of the top one (the app's
        override calls it): Textual then waits twice for its widgets to be mounted, laying it out
        each time, and draws it whole once more as it drops the other, all after its first
        frame."""
        self._mounted_layouts_due = 2
        self._switched_repaint_due = True

    def _compositor_refresh(self) -> None:
        on_top = self is self.app.screen
        if on_top and self._drawn and self._repaint_required:
            # What a layout moved, asked for with a repaint of the whole screen, which draws it
            # too in the same update (as the overview comes back, with its rows read again).
            return
        if on_top and self._drawn and not self._drawn_late and self._laid_out_again():
            # A widget waits to be laid out again, mostly one a layout just resized (Textual
            # shows or hides its scrollbars once it knows its size, after placing them): what is
            # drawn now is drawn with what that layout moves, in one frame, not two (the diff as
            # the file list is hidden, `f`, or the search field shown). Once: a layout that
            # always asks for another is drawn each time.
            self._drawn_late = True
            self._layout_required = True
            self.check_idle()
            return
        self._drawn_late = False
        whole = on_top and self in self._dirty_widgets
        super()._compositor_refresh()
        self._drawn = self._drawn or self.is_active
        if whole:
            self._whole_at = get_time()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        # (as Textual's: a scroll alone only shows what it exposes, without laying out again)
        reflowed = self is self.app.screen and not (scroll and not self._layout_widgets)
        asked = {bar for bar in self._scrollbars() if bar._repaint_required} if reflowed else set()
        super()._refresh_layout(size, scroll)
        if reflowed:
            # A layout sizes the scrollbars of what it moved or resized, and draws them with it:
            # each was drawn again the same a frame later (the overview's detail growing one).
            for bar in self._scrollbars():
                if bar not in asked:
                    bar._repaint_required = False

    def _laid_out_again(self) -> bool:
        """Whether a widget asks to be laid out (again)."""
        return any(widget._layout_required for widget in self._laid_out_widgets())

    def _scrollbars(self) -> Iterator[Widget]:
        return (widget for widget in self._laid_out_widgets() if isinstance(widget, ScrollBar))

    def _laid_out_widgets(self) -> Iterator[Widget]:
        """The screen's widgets, their scrollbars included (which are no children of theirs)."""
        for widget in self.walk_children(Widget, with_self=False):
            yield widget
            for part in ("_vertical_scrollbar", "_horizontal_scrollbar", "_scrollbar_corner"):
                bar = getattr(widget, part, None)
                if bar is not None:
                    yield bar

    async def _on_update(self, message: messages.Update) -> None:
        # A widget drawn again, asked for before the whole screen was last drawn, which showed it:
        # drawn again the same a frame later (the overview's table, its cursor set as the
        # reviewer came back from a review, its update sent once the whole overview was drawn).
        self._drawn_already(message, max(self._first_frame_at, self._whole_at))

    async def _on_layout(self, message: messages.Layout) -> None:
        self._drawn_already(message, self._first_frame_at)

    def _drawn_already(self, message: Message, drawn_at: float) -> None:
        """Leave out a widget's change asked for before the whole screen was drawn at `drawn_at`,
        which showed it (Screen's own handler then does not run)."""
        if message.time <= drawn_at:
            message.stop()
            message.prevent_default()

    def _screen_resized(self, size: Size) -> None:
        # the terminal tells its size a few times as the app starts: a layout only when it changed
        if size == self._drawn_at:
            return
        self._drawn_at = size
        super()._screen_resized(size)
