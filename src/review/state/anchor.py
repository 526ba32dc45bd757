"""Finding a comment's code again after the code has changed under it.

When a comment is written, `capture` keeps the commented lines with a few lines of context on each
side. After the agent has edited the file, `locate` finds that code in the file as it is now:
at the same place (`exact`), unchanged somewhere else (`moved`), edited but still recognisable
(`changed`, as GitHub marks a comment outdated), or gone (`lost`).

Lines are compared without their trailing whitespace, so an editor that trims line ends does not
disturb a comment. To line-map the old text to the new, lines are compared without their
indentation too, so re-indented code is still recognised, as `changed`.

How much a matching line says about a place is its worth: 1 / the number of times it occurs in
the file now, and nothing for a line without a letter or a digit (blank lines, braces), which
matches anywhere. Places are compared by the worth of what matches there.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from typing import NamedTuple

from review.state.model import Anchor, AnchorState

CONTEXT = 3
"""Lines of context kept above and below the commented lines."""

# A line that occurs more often than this in a file says nothing about where a comment is, and a
# block that does is not weighed at each of its places.
_MAX_OCCURRENCES = 100
# Letters and digits a block of two lines or more needs to be taken for the commented code when it
# is found elsewhere while its old context now touches: moving code away leaves its context
# touching just as deleting it does, and `else:` / `return None` found elsewhere is a coincidence.
_DISTINCT_CHARACTERS = 16
# The worth that recognises a place: a line found once in the file, or two found twice.
_ENOUGH_EVIDENCE = 0.5
# The share of the commented lines that must still match when no context is left around them.
_SIMILAR = 0.5
# Worth lost per line that a way of matching the old text puts between its lines: lines inserted
# into the commented code are followed, but the old lines are not matched to scattered copies.
_SPREAD_COST = 0.005
# Lines on each side of a place that are looked at first: few, so that in repetitive code a copy
# of some of the lines close by is not taken for them.
_NEAR = 5
# How far the code may have grown by lines inserted into it and still be followed whole.
_GROWTH = 200
# Places the old text is compared with, besides the original one.
_PLACES = 3
# Worths are sums of fractions: closer than this, two are the same.
_SAME = 1e-9

_Opcodes = Sequence[tuple[str, int, int, int, int]]
"""How to turn the old text into the new one, as difflib describes it."""
_Match = tuple[int, int, int]
"""A run of lines the old and new text have in common: (old start, new start, length)."""


class Located(NamedTuple):
    """Where a comment's code is in the file as it is now."""

    line: int | None
    """The first line, 1-based; None when the code is lost."""
    end_line: int | None
    """The last line, inclusive; None when the code is lost."""
    state: AnchorState
    """How the code was found: `exact`, `moved`, `changed` or `lost`."""


LOST = Located(None, None, "lost")


def capture(
    lines: Sequence[str], line: int, end_line: int, source: str | None = None, context: int = CONTEXT
) -> Anchor:
    """The anchor of lines `line`..`end_line` (1-based, inclusive) of a file whose lines are `lines`.

    Args:
        lines: The file's lines, as they are where the comment is written.
        line: The first commented line, 1-based.
        end_line: The last commented line, inclusive.
        source: The blob or commit the lines were read from; None for the working tree.
        context: How many lines to keep above and below; fewer at the ends of the file.

    Raises:
        ValueError: the range is not within the file, or ends before it starts.
    """
    if context < 0:
        raise ValueError(f"context must be 0 lines or more, not {context}")
    if end_line < line:
        raise ValueError(f"the range {line}-{end_line} ends before it starts")
    if line < 1:
        raise ValueError(f"line {line} is not in the file: lines are numbered from 1")
    if end_line > len(lines):
        size = "is empty" if not lines else f"has {len(lines)} line{'s' if len(lines) != 1 else ''}"
        raise ValueError(f"line {end_line} is not in the file, which {size}")
    start = line - 1
    return Anchor(
        lines=list(lines[start:end_line]),
        before=list(lines[max(0, start - context) : start]),
        after=list(lines[end_line : end_line + context]),
        source=source,
        line=line,
        end_line=end_line,
    )


def locate(anchor: Anchor, lines: Sequence[str]) -> Located:
    """Where the anchored code is in the file as it is now (`lines`)."""
    return locate_all([anchor], lines)[0]


def locate_all(anchors: Iterable[Anchor], lines: Sequence[str]) -> list[Located]:
    """Where each anchored code is in the file as it is now (`lines`), in the order given.

    The same as `locate` for each, without looking the file's lines up once a comment.
    """
    file = _File(lines)
    return [_locate(anchor, file) for anchor in anchors]


class _File:
    """A file's lines as they are now, with an index of them made when first needed."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._worth: dict[str, float] = {}

    def __len__(self) -> int:
        return len(self.lines)

    @cached_property
    def _index(self) -> _Index:
        return _index(tuple(self.lines))

    @property
    def loose(self) -> list[str]:
        """The lines without indentation or trailing whitespace."""
        return self._index.loose

    @property
    def positions(self) -> dict[str, list[int]]:
        """Each loose line -> the 0-based positions where it occurs, in order."""
        return self._index.positions

    def occurrences(self, key: str) -> int:
        return len(self.positions.get(key, ()))

    def worth(self, key: str) -> float:
        """How much a matching loose line says about a place."""
        if key not in self._worth:
            self._worth[key] = 1.0 / max(self.occurrences(key), 1) if _telling(key) else 0.0
        return self._worth[key]

    def holds(self, block: Sequence[str], start: int) -> bool:
        """Whether the lines from `start` (0-based) are `block`, trailing whitespace aside."""
        if start < 0 or start + len(block) > len(self.lines):
            return False
        return all(self.lines[start + k].rstrip() == text for k, text in enumerate(block))


class _Index(NamedTuple):
    """A file's lines without indentation, and where each occurs."""

    loose: list[str]
    positions: dict[str, list[int]]


# Callers place a file's comments one at a time (`locate`), each call with the file's lines: the
# last few files' indexes are kept, so that each file is indexed once, not once a comment.
@lru_cache(maxsize=4)
def _index(lines: tuple[str, ...]) -> _Index:
    loose = [line.strip() for line in lines]
    positions: defaultdict[str, list[int]] = defaultdict(list)
    for position, key in enumerate(loose):
        positions[key].append(position)
    return _Index(loose, dict(positions))


class _Support(NamedTuple):
    """How much of the context around a place is as it was."""

    telling: int
    """Matching lines with a letter or digit in them."""
    total: int
    evidence: float
    """The matching lines' worth."""


class _Context:
    """The lines around the commented ones, ready to be compared with places in the file."""

    def __init__(self, before: Sequence[str], after: Sequence[str], length: int) -> None:
        above = [(-1 - k, line.strip()) for k, line in enumerate(reversed(before))]
        below = [(length + k, line.strip()) for k, line in enumerate(after)]
        self.lines = [(offset, key, _telling(key)) for offset, key in above + below]
        """(where the line is, counted from the block's first line; its loose text; whether it
        has a letter or digit)"""
        self.telling = any(telling for _, _, telling in self.lines)

    def support(self, file: _File, start: int, *, weigh: bool = True) -> _Support:
        """How much of the context matches around the block at `start`, indentation aside;
        without `weigh`, the file is not indexed and the evidence is left at 0."""
        telling = total = 0
        evidence = 0.0
        for offset, key, tells in self.lines:
            position = start + offset
            if 0 <= position < len(file.lines) and file.lines[position].strip() == key:
                total += 1
                if tells:
                    telling += 1
                    evidence += file.worth(key) if weigh else 0.0
        return _Support(telling, total, evidence)

    def confirms(self, start: int, support: _Support, origin: int | None) -> bool:
        """Whether the context around the block at `start` says it is the commented code."""
        if support.telling > 0:
            return True
        # Context of blank lines and braces confirms nothing elsewhere, but all of it in place does.
        return start == origin and not self.telling and support.total == len(self.lines)


class _Candidate(NamedTuple):
    """A place where the commented lines stand unchanged."""

    start: int
    """0-based."""
    support: _Support
    evidence: float
    """The worth of the commented lines and of the context that matches around them."""


def _locate(anchor: Anchor, file: _File) -> Located:
    block = [line.rstrip() for line in anchor.lines]
    if not block or not len(file):
        return LOST
    origin = anchor.line - 1 if anchor.line is not None else None
    context = _Context(anchor.before, anchor.after, len(block))
    # Lines still where they were, and recognisably so, are exact; when all of their context is
    # there too, that is settled without indexing the file.
    if origin is not None and file.holds(block, origin):
        if context.support(file, origin, weigh=False).total == len(context.lines):
            return _found(origin, len(block), origin, "exact")
        support = context.support(file, origin)
        if support.evidence >= _ENOUGH_EVIDENCE and context.confirms(origin, support, origin):
            return _found(origin, len(block), origin, "exact")

    def distance(start: int) -> int:
        return abs(start - origin) if origin is not None else start

    worth = sum(file.worth(line.strip()) for line in block)
    candidates = [
        _Candidate(start, support, worth + support.evidence)
        for start in _occurrences(file, block, context, origin)
        for support in [context.support(file, start)]
    ]
    best = max(
        candidates, key=lambda found: (found.evidence, found.support.total, -distance(found.start)), default=None
    )
    followed = _follow(file, anchor, origin)
    if best is None:
        return followed.located if followed is not None else LOST
    moved = _found(best.start, len(block), origin, "moved")
    confirmed = context.confirms(best.start, best.support, origin)
    trusted = confirmed or any(_telling(line) for line in block)
    if followed is None:
        return moved if trusted else LOST
    if followed.located.state == "lost":
        # The context closed up where the code was: it was deleted, or moved to where it is found.
        moved_away = _distinct(block) or (trusted and best.evidence > followed.score + _SAME)
        return moved if moved_away else LOST
    if confirmed:
        # The commented lines unchanged in one place, edited in another, as in copied code: the
        # context tells which was commented, and where it cannot, the nearer place.
        here, there = best.support.evidence, followed.context
        if abs(here - there) > _SAME:
            return moved if here > there else followed.located
        there_start = (followed.located.line or 1) - 1
        return moved if distance(best.start) <= distance(there_start) else followed.located
    # Found unchanged in new surroundings, while its old place holds none of it: moved there, if
    # it is distinct enough not to be a coincidence.
    return moved if _distinct(block) and not followed.block else followed.located


def _found(start: int, length: int, origin: int | None, unchanged: AnchorState) -> Located:
    state: AnchorState = "exact" if start == origin else unchanged
    return Located(start + 1, start + length, state)


def _occurrences(file: _File, block: Sequence[str], context: _Context, origin: int | None) -> list[int]:
    """The 0-based starts of the places where the file holds `block` unchanged: all of them, or
    for a block as common as a blank line, those its context points to and the nearest ones."""
    # Searching from the block's rarest line keeps a block full of blank lines cheap to find.
    counts = [file.occurrences(line.strip()) for line in block]
    pivot = min(range(len(block)), key=counts.__getitem__)
    if counts[pivot] == 0:
        return []
    starts = [position - pivot for position in file.positions[block[pivot].strip()]]
    if len(starts) <= _MAX_OCCURRENCES:
        return [start for start in starts if file.holds(block, start)]
    # Places that no telling context line points to are all alike: only the nearest can win.
    pointed: set[int] = set()
    for offset, key, tells in context.lines:
        if tells and file.occurrences(key) <= _MAX_OCCURRENCES:
            pointed.update(position - offset for position in file.positions.get(key, ()))
    found = [start for start in pointed.intersection(starts) if file.holds(block, start)]
    middle = bisect_left(starts, origin or 0)
    above = (start for start in reversed(starts[:middle]) if file.holds(block, start))
    below = (start for start in starts[middle:] if file.holds(block, start))
    nearest = [start for start in (next(above, None), next(below, None)) if start is not None]
    return sorted({*found, *nearest})


def _distinct(block: Sequence[str]) -> bool:
    telling = [line for line in block if _telling(line)]
    return len(telling) >= 2 and sum(map(str.isalnum, "".join(telling))) >= _DISTINCT_CHARACTERS


def _telling(line: str) -> bool:
    return any(character.isalnum() for character in line)


class _Alignment(NamedTuple):
    """One way of matching the old text, context included, to a window of the file."""

    matches: list[_Match]
    """With new starts counted from the start of the file."""
    window: tuple[int, int]
    evidence: float
    """The matched lines' worth."""
    score: float
    """The evidence, less the cost of lines put between the matched ones."""
    telling: int
    """How many of the matched lines have a letter or a digit."""


class _Followed(NamedTuple):
    """Where the old text, context included, matches the file best."""

    located: Located
    score: float
    """The worth of the matching lines, less the cost of lines put between them."""
    context: float
    """The worth of the matching context lines."""
    block: float
    """The worth of the matching commented lines."""


def _follow(file: _File, anchor: Anchor, origin: int | None) -> _Followed | None:
    """The place the old text, context included, matches best, and how much says so: where the
    commented code is, edited or not, or LOST when it was removed from between its context.
    None when nothing recognisable is left."""
    before, after = anchor.before, anchor.after
    block = [line.rstrip() for line in anchor.lines]
    old = [line.strip() for line in (*before, *block, *after)]
    first = len(before)
    origin_offset = origin - len(before) if origin is not None else None

    def rank(alignment: _Alignment) -> tuple[float, int]:
        offset = alignment.matches[0][1] - alignment.matches[0][0]
        return alignment.score, -abs(offset - origin_offset) if origin_offset is not None else 0

    places: list[tuple[_Alignment, tuple[int, int]]] = []
    for near, wide in _windows(file, old, origin_offset):
        alignment = _align(file, old, first, near)
        if alignment is not None:
            places.append((alignment, wide))
    # The best matching place may be a copy of some of the lines and no more; then the next.
    for alignment, wide in sorted(places, key=lambda place: rank(place[0]), reverse=True):
        # An end of the old text left unmatched close by may have been pushed away by lines
        # inserted into the commented code: look further, at a cost for each line put between.
        # One line found far away is more likely a copy than the rest of the code pushed down.
        if not _ends_match(old, alignment.matches):
            wider = _align(file, old, first, wide)
            if wider is not None and wider.score > alignment.score + _SAME and wider.telling >= alignment.telling + 2:
                alignment = wider
        judged = _judge(file, old, first, block, alignment, origin)
        if judged is not None:
            return _Followed(judged[0], alignment.score, *judged[1:])
    return None


def _judge(
    file: _File, old: Sequence[str], first: int, block: Sequence[str], alignment: _Alignment, origin: int | None
) -> tuple[Located, float, float] | None:
    """Where an alignment of the old text puts the commented lines, `block` (old[first:] on),
    or LOST when it shows them removed from between their context, with the worth of the
    context and of the commented lines it matches; None when it does not recognise the place."""
    last = first + len(block) - 1
    now_at = {i + k: j + k for i, j, size in alignment.matches for k in range(size)}
    context_evidence = sum(file.worth(old[i]) for i in now_at if not first <= i <= last)
    block_evidence = sum(file.worth(old[i]) for i in now_at if first <= i <= last)
    low, high = alignment.window
    opcodes = _opcodes([(i, j - low, size) for i, j, size in alignment.matches], len(old), high - low)
    start = low + _first(opcodes, first, len(old))
    end = low + _last(opcodes, last, len(old))
    if context_evidence < _ENOUGH_EVIDENCE:
        now = file.loose[max(start, 0) : end + 1]
        similar = SequenceMatcher(None, old[first : last + 1], now, autojunk=False).ratio() >= _SIMILAR
        if not (block_evidence >= _ENOUGH_EVIDENCE and similar):
            return None
    if end < start or start >= len(file) or end < 0 or _touching(file, old, first, last, now_at):
        return LOST, context_evidence, block_evidence
    start, end = max(start, 0), min(end, len(file) - 1)
    if end - start + 1 == len(block) and file.holds(block, start):
        return _found(start, len(block), origin, "moved"), context_evidence, block_evidence
    return Located(start + 1, end + 1, "changed"), context_evidence, block_evidence


def _windows(file: _File, old: Sequence[str], origin: int | None) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Windows of the file (start, end; 0-based, end excluded) where the old text may now be, a
    near and a wide one for each place.

    Each line of the old text that occurs in the file votes, by its worth, for where the old text
    would then start; the best voted places and the original one are looked at.
    """
    votes: defaultdict[int, float] = defaultdict(float)
    for index, key in enumerate(old):
        positions = file.positions.get(key, []) if _telling(key) else []
        if len(positions) > _MAX_OCCURRENCES:
            continue
        for position in positions:
            votes[position - index] += 1.0 / len(positions)
    offsets: list[int] = []
    for offset in sorted(votes, key=votes.__getitem__, reverse=True):
        if len(offsets) == _PLACES:
            break
        if all(abs(offset - chosen) > len(old) for chosen in offsets):
            offsets.append(offset)
    if origin is not None and all(abs(origin - chosen) > len(old) for chosen in offsets):
        offsets.append(origin)

    def window(offset: int, spread: int) -> tuple[int, int]:
        return max(0, offset - spread), min(len(file), offset + len(old) + spread)

    return [(window(offset, _NEAR), window(offset, _GROWTH)) for offset in offsets]


def _align(file: _File, old: Sequence[str], first: int, window: tuple[int, int]) -> _Alignment | None:
    """How the old text matches the lines of `window`; None when nothing telling does."""
    low, high = window
    matches = [(i, low + j, size) for i, j, size in _alignment(old, file.loose[low:high], first)]
    if not matches:
        return None
    matched = [key for i, _, size in matches for key in old[i : i + size]]
    evidence = sum(map(file.worth, matched))
    telling = sum(map(_telling, matched))
    return _Alignment(matches, window, evidence, evidence - _SPREAD_COST * _spread(matches), telling)


def _ends_match(old: Sequence[str], matches: Sequence[_Match]) -> bool:
    """Whether a telling line matches at or before the first telling line of the old text, and at
    or after its last one."""
    telling = [index for index, key in enumerate(old) if _telling(key)]
    return bool(telling) and matches[0][0] <= telling[0] and matches[-1][0] + matches[-1][2] > telling[-1]


def _alignment(old: Sequence[str], new: Sequence[str], first: int) -> list[_Match]:
    """The runs of lines that `old` and `new` have in common, in order, as (old start, new start,
    length); runs of only blank lines and braces are left out, as they match anywhere. Lines of
    `old` before `first` are the context above the commented lines."""
    # They are not made junk for the matcher: that would split a run like `yield x`, ``, `# next`
    # in three and let a lone `else:` elsewhere win over it.
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    matches = [
        (i, j, size) for i, j, size in matcher.get_matching_blocks() if any(_telling(key) for key in old[i : i + size])
    ]
    # The matcher takes the first of several equal runs; the context above belongs to the copy
    # nearest the commented lines.
    for index in reversed(range(len(matches))):
        i, j, size = matches[index]
        if i + size > first:
            continue
        ceiling = matches[index + 1][1] if index + 1 < len(matches) else len(new)
        for later in range(ceiling - size, j, -1):
            if new[later : later + size] == old[i : i + size]:
                matches[index] = (i, later, size)
                break
    return matches


def _spread(matches: Sequence[_Match]) -> int:
    """How many more lines the matched runs span in the new text than in the old."""
    old_span = matches[-1][0] + matches[-1][2] - matches[0][0]
    new_span = matches[-1][1] + matches[-1][2] - matches[0][1]
    return max(0, new_span - old_span)


def _opcodes(matches: Sequence[_Match], old_size: int, new_size: int) -> _Opcodes:
    """How to turn the old text into the new keeping `matches`, as difflib's get_opcodes says."""
    opcodes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for old_start, new_start, size in [*matches, (old_size, new_size, 0)]:
        if i < old_start and j < new_start:
            opcodes.append(("replace", i, old_start, j, new_start))
        elif i < old_start:
            opcodes.append(("delete", i, old_start, j, new_start))
        elif j < new_start:
            opcodes.append(("insert", i, old_start, j, new_start))
        i, j = old_start + size, new_start + size
        if size:
            opcodes.append(("equal", old_start, i, new_start, j))
    return opcodes


def _first(opcodes: _Opcodes, index: int, size: int) -> int:
    """Where the old line `index`, the first commented line, begins in the new text."""
    for tag, i1, i2, j1, j2 in opcodes:
        if not i1 <= index < i2:
            continue
        if tag == "equal":
            return j1 + index - i1
        if tag == "delete":
            return j1
        # An edited stretch is measured from the side where the text still matches.
        if i1 > 0:
            return min(j1 + index - i1, j2)
        return max(j1, j2 - (i2 - index))
    raise AssertionError(f"line {index} of {size} is in no opcode")


def _last(opcodes: _Opcodes, index: int, size: int) -> int:
    """Where the old line `index`, the last commented line, ends in the new text (inclusive)."""
    for tag, i1, i2, j1, j2 in opcodes:
        if not i1 <= index < i2:
            continue
        if tag == "equal":
            return j1 + index - i1
        if tag == "delete":
            return j1 - 1
        if i2 < size:
            return max(j2 - 1 - (i2 - 1 - index), j1 - 1)
        return min(j1 + index - i1, j2 - 1)
    raise AssertionError(f"line {index} of {size} is in no opcode")


def _touching(file: _File, old: Sequence[str], first: int, last: int, now_at: dict[int, int]) -> bool:
    """Whether the context above the commented lines is now directly followed by the context
    below them, blank lines and braces included."""
    above, below = old[:first], old[last + 1 :]
    if not above or not below:
        return False
    if first - 1 in now_at:
        follows = now_at[first - 1] + 1
        if file.loose[follows : follows + len(below)] == below:
            return True
    if last + 1 in now_at:
        precedes = now_at[last + 1]
        if precedes >= len(above) and file.loose[precedes - len(above) : precedes] == above:
            return True
    return False
