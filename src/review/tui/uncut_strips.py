"""Every line Textual draws no longer ends as garbage that only a collection of all objects frees.

Textual's compositor divides each line it draws at the edges of the regions on screen
(`Strip.divide`); a line that is not cut is given back whole, and Textual keeps that answer in
the line's own cache, the line inside a list inside itself. Such a reference cycle outlives the
last reference to the line, until Python collects all its objects: on a huge diff that
collection took 100-200 ms, and paging without a pause piled up every line drawn (tens of MB).
Here a line that is not cut is given back without being kept, as Textual would have given it.
(Private behaviour of a pinned Textual: `tests/tui/test_uncut_strips.py` sees whether it holds.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.strip import Strip

_divide = Strip.divide


def _divide_uncut_apart(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = [cut for cut in cuts if cut <= self.cell_length]
    if cuts == [self.cell_length]:
        return [self]
    return _divide(self, cuts)


def install() -> None:
    """Have every strip divided so (once; idempotent)."""
    Strip.divide = _divide_uncut_apart  # type: ignore[method-assign]
