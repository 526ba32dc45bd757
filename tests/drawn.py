"""What a Pilot test's screen shows, read from Textual's own screenshot: the text of each row and
which rows carry a background colour. This is what the compositor drew, not the widgets' state,
so a row that was not redrawn shows as it was."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from rich.style import Style

from review.tui.diff_rows import Palette

# Rich's SVG export: 20 px characters at an aspect ratio of 0.61, lines 1.22 characters tall.
_CHAR_WIDTH = 12.2
_LINE_HEIGHT = 24.4
_TEXT = re.compile(r'<text [^>]*x="([\d.]+)"[^>]*clip-path="url\(#[\w-]*-line-(\d+)\)"[^>]*>([^<]*)</text>')
_RECT = re.compile(r'<rect fill="(#[0-9a-f]{6})" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"')


@dataclass(frozen=True)
class Drawn:
    rows: list[str]
    backgrounds: list[tuple[str, int, int, int]]
    """(colour, row, first column, last column + 1) of each background rectangle."""

    @classmethod
    def of(cls, svg: str) -> Drawn:
        cells: dict[int, dict[int, str]] = {}
        for x, row, text in _TEXT.findall(svg):
            column = round(float(x) / _CHAR_WIDTH)
            for offset, char in enumerate(html.unescape(text).replace("\xa0", " ")):
                cells.setdefault(int(row), {})[column + offset] = char
        height = max(cells, default=-1) + 1
        rows = []
        for row in range(height):
            line = cells.get(row, {})
            rows.append("".join(line.get(column, " ") for column in range(max(line, default=-1) + 1)))
        backgrounds = [
            (
                colour,
                round((float(y) - 1.5) / _LINE_HEIGHT),
                round(float(x) / _CHAR_WIDTH),
                round((float(x) + float(width)) / _CHAR_WIDTH),
            )
            for colour, x, y, width in _RECT.findall(svg)
        ]
        return cls(rows, backgrounds)

    def toasts(self) -> str:
        """The text of the notifications on screen, their wrapped lines joined by spaces."""
        return " ".join(row.split("▌")[-1].strip() for row in self.rows if "▌" in row)

    def rows_coloured(self, colour: str, columns: range | None = None) -> list[int]:
        """The rows with a background of `colour` (within `columns`, if given)."""
        found = {
            row
            for fill, row, start, end in self.backgrounds
            if fill == colour and (columns is None or (start < columns.stop and end > columns.start))
        }
        return sorted(found)


def plain_palette() -> Palette:
    """The view's palette without a colour, for tests that draw rows and read only their text."""
    plain = Style()
    return Palette(
        **{name: plain for name in Palette._fields if name not in ("syntax", "status")},
        syntax=lambda token: plain,
        status=lambda status: plain,
    )
