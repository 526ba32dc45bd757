"""Word-level changes: which words of a removed line differ from the added line that replaced it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from review.repo.diff import Hunk, Line

Span = tuple[int, int]
"""Start and end offsets of changed text within a line."""

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
# Lines that share less than this are rewritten, not edited: marking words in them is noise.
_MIN_SIMILARITY = 0.4
# difflib is quadratic; beyond this the whole line is simply marked as changed.
_MAX_LINE = 1_000


def pair_lines(lines: Sequence[Line]) -> list[tuple[int, int]]:
    """Index pairs (removed, added) of lines that replace each other: within each run of removed
    lines followed directly by a run of added lines, the first with the first, and so on."""
    pairs: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        if lines[i].kind != "-":
            i += 1
            continue
        removed_start = i
        while i < len(lines) and lines[i].kind == "-":
            i += 1
        added_start = i
        while i < len(lines) and lines[i].kind == "+":
            i += 1
        count = min(added_start - removed_start, i - added_start)
        pairs.extend((removed_start + k, added_start + k) for k in range(count))
    return pairs


def changed_spans(old: str, new: str) -> tuple[list[Span], list[Span]] | None:
    """The changed spans of `old` and of `new`, or None when the lines are too different for
    word-level marks to help."""
    if len(old) > _MAX_LINE or len(new) > _MAX_LINE:
        return None
    old_tokens = _TOKEN.findall(old)
    new_tokens = _TOKEN.findall(new)
    matcher = SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
    # the quick upper bounds settle most rewritten lines without the full comparison
    if matcher.real_quick_ratio() < _MIN_SIMILARITY or matcher.quick_ratio() < _MIN_SIMILARITY:
        return None
    if matcher.ratio() < _MIN_SIMILARITY:
        return None
    old_offsets = _offsets(old_tokens)
    new_offsets = _offsets(new_tokens)
    old_spans: list[Span] = []
    new_spans: list[Span] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            _add(old_spans, old_offsets[i1], old_offsets[i2])
        if j2 > j1:
            _add(new_spans, new_offsets[j1], new_offsets[j2])
    return old_spans, new_spans


class WordChanges:
    """The changed spans of a hunk's lines, each pair of lines compared when first asked for."""

    def __init__(self, hunk: Hunk) -> None:
        self.lines = hunk.lines
        self.partner: dict[int, int] = {}
        for removed, added in pair_lines(hunk.lines):
            self.partner[removed] = added
            self.partner[added] = removed
        self._spans: dict[int, list[Span]] = {}

    def ending_changed(self, index: int) -> bool:
        """Whether line `index` and its counterpart differ in their line ending (CR LF or LF),
        which their text alone does not show."""
        other = self.partner.get(index)
        return other is not None and self.lines[index].crlf != self.lines[other].crlf

    def spans(self, index: int) -> list[Span]:
        """The changed spans of line `index`; none when it has no counterpart or is rewritten."""
        if index in self._spans:
            return self._spans[index]
        other = self.partner.get(index)
        if other is None:
            return []
        removed, added = sorted((index, other))
        found = changed_spans(self.lines[removed].text, self.lines[added].text)
        self._spans[removed], self._spans[added] = found if found is not None else ([], [])
        return self._spans[index]


def _offsets(tokens: list[str]) -> list[int]:
    offsets = [0]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    return offsets


def _add(spans: list[Span], start: int, end: int) -> None:
    if spans and spans[-1][1] == start:
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))
