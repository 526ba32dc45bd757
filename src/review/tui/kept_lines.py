"""A widget's styled lines kept by the line they were made of, not by their row on the screen.

Textual styles each line a widget draws (its padding, its border, the app's colour filter) and
keeps the result by the line's row in the widget. A widget that scrolls has every row drawn
again, so each line it shows is styled again as a new strip, which is then filtered, cropped and
turned into the terminal's codes again (a strip keeps those on itself, and this one is new). A key
that jumps far (`n`, `G`) spent 6-10 ms so on the 38 lines of the diff and 5-8 on the file list's,
every line of them drawn ahead already.

The diff and the file list draw their lines from caches of their own, the same strip for the same
line: kept by that strip here, a line styled once is the same styled strip wherever it lands on
the screen, with all Textual keeps on it; and the lines a jump will show are styled ahead
(`style_ahead`), as they are drawn ahead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rich.terminal_theme import DEFAULT_TERMINAL_THEME, TerminalTheme
from textual._styles_cache import StylesCache  # private: textual is pinned
from textual.cache import LRUCache
from textual.color import Color
from textual.content import Content
from textual.css.styles import StylesBase
from textual.filter import LineFilter
from textual.geometry import Region, Size, Spacing
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

SCREENS = 5
"""Screens of styled lines kept by default (a widget says how many it needs). The diff draws
seven screens ahead of the keys (the next page, the top, the bottom, the next hunk and file, the
next comment and the one before), but each line kept holds some 12 KB (its strips joined, styled
and filtered, and what Textual keeps on them): nine screens of both widgets took the large
diff's peak memory to 81 MB after the keys' benchmark, eight and six to 80-81, five and three
keep it at 78 (the limit is 80). The screens drawn first are then styled again when shown."""

_Label = tuple[Content, Color, Color, Style] | None


class KeptByLine(StylesCache):
    """Textual's styles cache, keeping each styled line by the identity of the line it was made
    of too, while the widget's size, colours and styles stay as they were."""

    def __init__(self, screens: int = SCREENS) -> None:
        super().__init__()
        self._screens = screens
        self._styled: LRUCache[int, tuple[Strip, Strip]] = LRUCache(screens)  # (resized once styled)
        """id of a line as the widget drew it → that line (which keeps its id its own) and the
        line styled; as many as `screens` of the widget's height (`_styled_with`)."""
        self._made_with: tuple[object, ...] | None = None

    def render(
        self,
        styles: StylesBase,
        size: Size,
        base_background: Color,
        background: Color,
        render_content_line: Callable[[int], Strip],
        filters: Sequence[LineFilter],
        border_title: _Label,
        border_subtitle: _Label,
        content_size: Size | None = None,
        padding: Spacing | None = None,
        crop: Region | None = None,
        opacity: float = 1.0,
        ansi_theme: TerminalTheme = DEFAULT_TERMINAL_THEME,
        native_ansi: bool = False,
    ) -> list[Strip]:
        self._styled_with(
            styles, size, content_size or size, padding or styles.padding, base_background, background, opacity
        )
        return super().render(
            styles,
            size,
            base_background,
            background,
            render_content_line,
            filters,
            border_title,
            border_subtitle,
            content_size,
            padding,
            crop,
            opacity,
            ansi_theme,
            native_ansi,
        )

    def style_ahead(self, widget: Widget, lines: Iterable[Strip]) -> None:
        """Style `lines`, which `widget` will draw (filtered too), as its next frame would."""
        if widget._border_title is not None or widget._border_subtitle is not None:
            return  # (private: textual is pinned) a title is drawn on the rows kept by row
        styles, app = widget.styles, widget.app
        base_background, background = widget.background_colors
        size, content_size, padding, opacity = (
            widget.region.size,
            widget.content_region.size,
            styles.padding,
            widget.opacity,
        )
        if not content_size.height:
            return
        self._styled_with(styles, size, content_size, padding, base_background, background, opacity)
        filters = widget.get_line_filters()
        for line in lines:
            styled = self.render_line(
                styles,
                styles.gutter.top,
                size,
                content_size,
                padding,
                base_background,
                background,
                _always(line),
                None,
                None,
                opacity,
                app.ansi_theme,
                app.native_ansi_color,
            )
            for line_filter in filters:
                styled = styled.apply_filter(line_filter, background)

    def _styled_with(
        self,
        styles: StylesBase,
        size: Size,
        content_size: Size,
        padding: Spacing,
        base_background: Color,
        background: Color,
        opacity: float,
    ) -> None:
        """Forget the lines styled unless styled with these: what a line's styling depends on,
        other than the line (its row only for a border or padding above or below, which are not
        kept, `render_line`)."""
        made_with = (
            size,
            content_size,
            padding,
            base_background,
            background,
            opacity,
            styles.border,
            styles.outline,
            styles.tint,
            styles.text_opacity,
            styles.hatch if styles.has_rule("hatch") else None,
        )
        if made_with != self._made_with:
            self._styled.clear()
            self._styled.maxsize = self._screens * max(1, content_size.height)
            self._made_with = made_with

    def render_line(
        self,
        styles: StylesBase,
        y: int,
        size: Size,
        content_size: Size,
        padding: Spacing,
        base_background: Color,
        background: Color,
        render_content_line: Callable[[int], Strip],
        border_title: _Label,
        border_subtitle: _Label,
        opacity: float,
        ansi_theme: TerminalTheme,
        native_ansi: bool,
    ) -> Strip:
        gutter = styles.gutter
        above, below = styles.outline[0][0], styles.outline[2][0]
        content_y = y - gutter.top
        kept = not (
            content_y < 0
            or content_y >= content_size.height
            or y >= size.height - gutter.bottom
            or (above and y == 0)
            or (below and y == size.height - 1)
        )
        line = render_content_line(content_y) if kept else None
        if line is not None:
            found = self._styled.get(id(line))
            if found is not None and found[0] is line:
                return found[1]
            render_content_line = _always(line)
        styled = super().render_line(
            styles,
            y,
            size,
            content_size,
            padding,
            base_background,
            background,
            render_content_line,
            border_title,
            border_subtitle,
            opacity,
            ansi_theme,
            native_ansi,
        )
        if line is not None:
            self._styled[id(line)] = (line, styled)
        return styled


def _always(line: Strip) -> Callable[[int], Strip]:
    """A widget's `render_line` that draws `line` on any row."""
    return lambda _: line
