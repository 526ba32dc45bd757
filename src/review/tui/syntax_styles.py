"""The foreground colours of a Pygments style for the syntax colours' token types, remembered
between starts.

Importing Pygments' styles (its utilities, the style's module, the table it makes of the style)
takes 4 ms of the first frame, which shows a few dozen token types. What the style gives each
standard token type (`pygments.token.STANDARD_TYPES`) is remembered in the user's cache folder
instead, by the style's name and Pygments' version, with the size and time of the file the style
was read from (a style installed as a plugin changes without Pygments): a start that finds it
so draws without the import. A token type not remembered has the style imported, as before.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pygments
from pygments.token import STANDARD_TYPES, _TokenType
from rich.style import Style

from review.state.files import user_cache_folder, write_cache

_Looks = tuple[str | None, bool, bool, bool]
"""A token type's colour (`#rrggbb`, or None for the terminal's), bold, italic and underline."""

_NAME = re.compile(r"[\w-]+")
"""A style's name that names its file: any other (from the config file) is not remembered."""
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
"""A colour as Pygments gives it: any other in the file is not taken."""


class SyntaxStyles:
    """Foreground colours for Pygments token types; the diff's own backgrounds stay."""

    def __init__(self, theme: str) -> None:
        self._name = theme
        self._file = (
            user_cache_folder() / "syntax" / f"{theme}-{pygments.__version__}.json" if _NAME.fullmatch(theme) else None
        )
        """Where the style's colours are remembered; None for a name that cannot name a file."""
        self._remembered = _recall(self._file) if self._file is not None else {}
        self._theme: Any = None
        """The Pygments style, once a token type not remembered asks for it."""
        self._cache: dict[_TokenType, Style] = {}

    def style(self, token_type: _TokenType) -> Style:
        cached = self._cache.get(token_type)
        if cached is None:
            looks = self._remembered.get(str(token_type)) or self._looks(token_type)
            colour, bold, italic, underline = looks
            cached = self._cache[token_type] = Style(color=colour, bold=bold, italic=italic, underline=underline)
        return cached

    def _looks(self, token_type: _TokenType) -> _Looks:
        if self._theme is None:
            self._load()
        # a style knows the standard types alone: a lexer's own is styled as its nearest of them
        while not self._theme.styles_token(token_type) and token_type.parent is not None:
            token_type = token_type.parent
        found = self._theme.style_for_token(token_type)
        return (f"#{found['color']}" if found["color"] else None, found["bold"], found["italic"], found["underline"])

    def _load(self) -> None:
        # (Rich's syntax module, which would import the style too, takes twice as long to import)
        from pygments.styles import get_style_by_name
        from pygments.util import ClassNotFound

        try:
            self._theme = get_style_by_name(self._name)
        except ClassNotFound:
            self._theme = get_style_by_name("default")
            return  # (not remembered: the style may be installed later)
        # (a style is a class, of the module it was read from)
        source = _stamp(getattr(sys.modules.get(self._theme.__module__), "__file__", None))
        if source is not None and self._file is not None:
            looks = {str(token_type): self._looks(token_type) for token_type in STANDARD_TYPES}
            write_cache(self._file, json.dumps({"source": source, "looks": looks}).encode())


def _stamp(path: str | None) -> list[object] | None:
    """A file's path with its size and modification time; None when it has none."""
    if path is None:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return [path, found.st_size, found.st_mtime_ns]


def _recall(path: Path) -> dict[str, _Looks]:
    """The looks remembered in `path`, when the style's file is as it was then."""
    try:
        data = json.loads(path.read_bytes())
        source = data["source"]
        if _stamp(source[0]) != source:
            return {}
        return {
            name: (colour, bool(bold), bool(italic), bool(underline))
            for name, (colour, bold, italic, underline) in data["looks"].items()
            if colour is None or (isinstance(colour, str) and _COLOUR.fullmatch(colour))
        }
    except (OSError, ValueError, TypeError, KeyError, IndexError):
        return {}
