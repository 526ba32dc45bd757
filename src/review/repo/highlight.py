"""Syntax colours for diff lines: Pygments token types by line, with the lexer chosen by file name.

Each side of a hunk is lexed as one text, so a docstring or block comment that spans several lines
is coloured on all of them, and the tokens are then cut back into spans of the given lines. Only
token types are returned: how each looks is the view's business, and the lines themselves are
never changed, so the view draws them as they are and lays the spans over them.

The colours of the first texts asked for (a first screen's) are kept (`made`) to be remembered
between runs (`review.state.colours`), and given back (`recall`) for the same text of a file of
the same name without lexing it: the first screen of a viewer opened again needs no lexer.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import threading
from collections.abc import Iterator, Sequence
from functools import lru_cache
from posixpath import basename
from typing import TYPE_CHECKING

from pygments import __version__ as _PYGMENTS
from pygments.token import Text, _TokenType, string_to_tokentype

if TYPE_CHECKING:
    from pygments.lexer import Lexer

Token = tuple[int, int, _TokenType]
"""Start and end offsets within a line, and the Pygments token type of the text between them."""

# Beyond either limit the text is left plain: a few lexers backtrack badly on long lines, and a
# frame must never wait seconds for colour.
_MAX_TEXT = 200_000
_MAX_LINE = 5_000

# Pygments compiles a lexer class's rules on first use, rewriting shared rule lists in place with
# no lock, and lexers that embed others (HTML with CSS and JavaScript) do so midway through lexing.
# Lexing is pure Python, so the GIL already runs one at a time: the lock costs no throughput.
_LEXING = threading.Lock()

KEPT = 64
"""Texts whose colours `made` gives, the first lexed: more than a first screen shows."""

_recalled: dict[str, list[list[Token]]] = {}
"""Colours made in an earlier run, by `_key` (see `recall`)."""
_made: dict[str, list[list[Token]]] = {}
"""Colours made or recalled since `forget_made`, in the order asked for, at most `KEPT`."""


def lexer_for(path: str) -> Lexer | None:
    """A fresh Pygments lexer for the file at `path`, chosen by its name, or None for plain text.

    Recognises whole names (`Makefile`, `Dockerfile`, `.bashrc`) as well as extensions. Never
    raises, whatever the name holds.
    """
    lexer_class = _lexer_class(basename(path))
    if lexer_class is None:
        return None
    try:
        with _LEXING:
            # Line endings, blank edges and the final newline are the diff's: the lexer keeps them.
            return lexer_class(stripnl=False, stripall=False, ensurenl=False)
    # Compiling a lexer's rules runs its code for the first time; a broken one means plain text.
    except Exception:
        return None


def highlight(path: str, lines: Sequence[str]) -> list[list[Token]]:
    """The coloured spans of each of `lines`, one list a line, lexed together as the file at `path`.

    Offsets count characters of the lines as given. Text that is plain (whitespace, or a file type
    with no lexer) has no span. Lines too long to lex quickly, and any lexer that fails, leave
    every line plain rather than stall or break the view.
    """
    plain: list[list[Token]] = [[] for _ in lines]
    if not lines or any(len(line) > _MAX_LINE for line in lines):
        return plain
    # The newline after the last line lets lexers close a comment or statement that ends there.
    text = "\n".join(lines) + "\n"
    if len(text) > _MAX_TEXT:
        return plain
    key = _key(path, text)
    spans = _recalled.get(key)
    if spans is None or not _fits(spans, lines):
        spans = _lex(path, lines, text)
    if len(_made) < KEPT:
        _made[key] = spans
    return spans


def _lex(path: str, lines: Sequence[str], text: str) -> list[list[Token]]:
    plain: list[list[Token]] = [[] for _ in lines]
    lexer = lexer_for(path)
    if lexer is None:
        return plain
    try:
        with _LEXING:
            return _split(lines, _tokens(lexer, text))
    # A lexer is code written for every language there is: whatever goes wrong in one, the
    # reviewer still gets the lines.
    except Exception:
        return plain


def _key(path: str, text: str) -> str:
    """What a text's colours are known by: the lexer is chosen by the file's name, and the
    colours are Pygments' (another version may colour otherwise)."""
    named = f"{_PYGMENTS}\0{basename(path)}\0{text}".encode("utf-8", "surrogatepass")
    return hashlib.sha1(named, usedforsecurity=False).hexdigest()


def _fits(spans: list[list[Token]], lines: Sequence[str]) -> bool:
    return len(spans) == len(lines) and all(
        end <= len(line) for spans_of, line in zip(spans, lines, strict=True) for _, end, _ in spans_of
    )


def recall(remembered: object) -> None:
    """Take the colours of texts lexed in an earlier run, as `made` gave them, for `highlight`
    to give without lexing them again (the first screen is drawn before its lexer is compiled).

    Raises:
        ValueError: `remembered` is not of the shape `made` gives; nothing is taken.
    """
    if not isinstance(remembered, dict):
        raise ValueError("remembered colours are not an object")
    found: dict[str, list[list[Token]]] = {}
    kinds: dict[str, _TokenType] = {}  # a few token types, named by a thousand spans
    for key, lines in remembered.items():
        found[key] = _shared([[_span(span, kinds) for span in spans] for spans in lines])
    _recalled.update(found)


def _span(span: object, kinds: dict[str, _TokenType]) -> Token:
    # (checked by hand: a pattern match took 5 µs a span, 7 ms for a first screen's 1,300)
    if isinstance(span, list) and len(span) == 3:
        start, end, name = span
        if type(start) is int and type(end) is int and 0 <= start < end and isinstance(name, str):
            kind = kinds.get(name)
            if kind is None and name.startswith("Token"):
                kind = kinds[name] = string_to_tokentype(name)
            if kind is not None:
                return start, end, kind
    raise ValueError(f"not a remembered span: {span!r:.40}")


def made() -> dict[str, list[list[tuple[int, int, str]]]]:
    """The colours made (or recalled) first since `forget_made`, to be remembered (`recall`)."""
    return {
        key: [[(start, end, str(kind)) for start, end, kind in spans] for spans in lines]
        for key, lines in _made.copy().items()
    }


def forget_made() -> None:
    """Start counting the colours `made` gives afresh: another diff is about to be shown."""
    global _made
    _made = {}


@lru_cache(maxsize=1024)
def _lexer_class(name: str) -> type[Lexer] | None:
    # Keyed on the whole name, not the extension: Pygments matches whole names and double
    # extensions too (CMakeLists.txt is CMake while other .txt files are text; .html.j2 is Jinja).
    try:
        candidates = [(_load(module, lexer), pattern) for module, lexer, pattern in _patterns().matching(name)]
    # Plugin lexers and lexer modules are third-party code; a broken one must not stop the others.
    except Exception:
        return None
    if not candidates:
        return None
    # Pygments' own choice among several: its priority, a bonus for a whole name, then the name.
    lexer_class, _ = max(candidates, key=lambda c: (c[0].priority + (0.5 if "*" not in c[1] else 0), c[0].__name__))
    from pygments.lexers.special import TextLexer

    return None if issubclass(lexer_class, TextLexer) else lexer_class


class _Patterns:
    """Pygments' file name patterns, indexed: `find_lexer_class_for_filename` compiles all of
    its 1,500 patterns on first use (65 ms, on the way to the first screen), while nearly all are
    a plain extension or a whole name, found here in a dict. Lexers from plugins are not looked
    at."""

    def __init__(self) -> None:
        # Pygments' table of its lexers, without importing any of them.
        from pygments.lexers._mapping import LEXERS

        self.by_extension: dict[str, list[tuple[str, str, str]]] = {}
        self.by_name: dict[str, list[tuple[str, str, str]]] = {}
        self.globs: list[tuple[str, str, str]] = []
        for module, lexer, _aliases, patterns, _mimetypes in LEXERS.values():
            for pattern in patterns:
                entry = (module, lexer, pattern)
                extension = pattern[2:]
                if pattern.startswith("*.") and extension and not any(c in extension for c in "*?[.\\"):
                    self.by_extension.setdefault(extension, []).append(entry)
                elif not any(c in pattern for c in "*?["):
                    self.by_name.setdefault(pattern, []).append(entry)
                else:
                    self.globs.append(entry)
        self._compiled: list[tuple[re.Pattern[str], tuple[str, str, str]]] | None = None

    def matching(self, name: str) -> list[tuple[str, str, str]]:
        """The lexers (module, name, pattern) whose patterns match the file name `name`."""
        found = list(self.by_name.get(name, ()))
        _, dot, extension = name.rpartition(".")
        if dot:
            found += self.by_extension.get(extension, ())
        if self._compiled is None:
            self._compiled = [(re.compile(fnmatch.translate(entry[2])), entry) for entry in self.globs]
        found += [entry for pattern, entry in self._compiled if pattern.match(name)]
        return found


@lru_cache(maxsize=1)
def _patterns() -> _Patterns:
    return _Patterns()


def _load(module: str, name: str) -> type[Lexer]:
    from pygments.lexers import find_lexer_class

    lexer_class: type[Lexer] | None = find_lexer_class(name)
    if lexer_class is None:
        raise LookupError(f"no lexer {name} in {module}")
    return lexer_class


def _tokens(lexer: Lexer, text: str) -> Iterator[tuple[int, _TokenType, str]]:
    # `get_tokens` would drop a leading byte order mark and turn a lone "\r" into "\n", moving
    # offsets; the unprocessed tokens keep the text as it is.
    position = 0
    for _, token_type, value in lexer.get_tokens_unprocessed(text):
        # Offsets are counted from the values, so a lexer that loses or changes text must not
        # shift the colours of every line after it.
        if not text.startswith(value, position):
            raise ValueError(f"{type(lexer).__name__} does not reproduce its input")
        yield position, token_type, value
        position += len(value)


def _split(lines: Sequence[str], tokens: Iterator[tuple[int, _TokenType, str]]) -> list[list[Token]]:
    spans: list[list[Token]] = [[] for _ in lines]
    row = 0
    row_start = 0
    for start, token_type, value in tokens:
        end = start + len(value)
        if token_type in Text:
            continue
        while start < end:
            row_end = row_start + len(lines[row])
            if start > row_end:
                row += 1
                row_start = row_end + 1
                continue
            stop = min(end, row_end)
            if start < stop:
                _add(spans[row], start - row_start, stop - row_start, token_type)
            start = stop + 1
    return _shared(spans)


def _shared(spans: list[list[Token]]) -> list[list[Token]]:
    """`spans`, with one tuple for all the spans alike: a file's code repeats itself, its spans
    more (the colours kept around the cursor: paging through the large diff peaked at 74-77 MB,
    and at 69-71 MB so)."""
    same: dict[Token, Token] = {}
    for line in spans:
        line[:] = [same.setdefault(span, span) for span in line]
    return spans


def _add(spans: list[Token], start: int, end: int, token_type: _TokenType) -> None:
    if spans and spans[-1][1] == start and spans[-1][2] == token_type:
        spans[-1] = (spans[-1][0], end, token_type)
    else:
        spans.append((start, end, token_type))
