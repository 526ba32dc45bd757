"""Syntax colours: token types by line, at offsets into the lines exactly as given."""

from __future__ import annotations

import json
import os
import re

import pytest
from pygments.lexers import PythonLexer
from pygments.token import Comment, Keyword, Name, String, _TokenType

from review.repo import highlight as highlight_module
from review.repo.highlight import Token, _lexer_class, highlight, lexer_for


def coloured(line: str, spans: list[Token]) -> list[tuple[str, _TokenType]]:
    return [(line[start:end], token_type) for start, end, token_type in spans]


def span_of(line: str, spans: list[Token], text: str) -> _TokenType:
    """The token type of the span that covers exactly `text` in `line`."""
    matches = [token_type for piece, token_type in coloured(line, spans) if piece == text]
    assert matches, f"no span covers {text!r} in {coloured(line, spans)}"
    return matches[0]


def test_python_keywords_names_and_strings_are_coloured_where_they_stand() -> None:
    lines = ["def greet(name):", '    return "hi " + name']
    spans = highlight("src/greet.py", lines)
    assert span_of(lines[0], spans[0], "def") in Keyword
    assert span_of(lines[0], spans[0], "greet") in Name.Function
    assert span_of(lines[1], spans[1], "return") in Keyword
    assert span_of(lines[1], spans[1], '"hi "') in String
    assert spans[1][0][:2] == (4, 10)


def test_a_docstring_spanning_lines_colours_the_lines_between() -> None:
    lines = ["def f():", '    """Start of the story,', "    the middle of it,", '    and its end."""', "    return 1"]
    spans = highlight("f.py", lines)
    assert coloured(lines[2], spans[2]) == [("    the middle of it,", String.Doc)]
    assert span_of(lines[3], spans[3], '    and its end."""') in String
    assert span_of(lines[4], spans[4], "return") in Keyword


def test_there_is_one_list_of_spans_for_each_line() -> None:
    lines = ["import os", "", "   ", "x = os.sep", ""]
    assert len(highlight("a.py", lines)) == len(lines)


def test_spans_alike_are_one_tuple_lexed_or_recalled() -> None:
    # (the colours kept ahead of the cursor: most of a file's spans recur)
    lines = ["total = count(x)", "total = count(y)"]
    first, second = highlight("a.py", lines)
    assert first[:3] == second[:3] and all(a is b for a, b in zip(first[:3], second[:3], strict=True))
    highlight_module.forget_made()
    highlight("b.py", lines)
    highlight_module.recall(json.loads(json.dumps(highlight_module.made())))
    again, then = highlight("b.py", lines)
    assert again == first and all(a is b for a, b in zip(again[:3], then[:3], strict=True))


def test_an_empty_side_has_no_lines_of_spans() -> None:
    assert highlight("a.py", []) == []


@pytest.mark.parametrize("path", ["notes.txt", "data.unknownextension", "README", "LICENSE"])
def test_plain_text_and_unknown_files_have_no_colour(path: str) -> None:
    assert lexer_for(path) is None
    assert highlight(path, ["def f():", "    return 1"]) == [[], []]


@pytest.mark.parametrize(
    ("path", "line", "word"),
    [
        ("Makefile", "all: build", "all"),
        ("sub/Dockerfile", "FROM python:3.12", "FROM"),
        (".bashrc", "export A=1", "export"),
    ],
)
def test_files_known_by_their_whole_name_are_coloured(path: str, line: str, word: str) -> None:
    assert lexer_for(path) is not None
    spans = highlight(path, [line])
    assert coloured(line, spans[0])[0][0] == word


def test_a_name_that_is_special_only_whole_keeps_its_meaning() -> None:
    cmake = lexer_for("CMakeLists.txt")
    assert cmake is not None and cmake.name == "CMake"
    assert lexer_for("other.txt") is None


@pytest.mark.parametrize(
    "path",
    ["a b.py", "evil\x1b]0;title\x07.py", "\x1b[31mred", os.fsdecode(b"caf\xe9.py"), "", ".", "dir/", "no_extension"],
)
def test_strange_file_names_never_raise(path: str) -> None:
    lines = ["x = 1"]
    assert len(highlight(path, lines)) == 1


def test_strange_file_names_still_choose_by_extension() -> None:
    assert isinstance(lexer_for("my file\x1b[0m.py"), PythonLexer)
    assert isinstance(lexer_for(os.fsdecode(b"caf\xe9.py")), PythonLexer)


def test_each_call_gets_its_own_lexer() -> None:
    assert lexer_for("a.py") is not lexer_for("a.py")


def test_a_very_long_line_leaves_the_side_plain() -> None:
    lines = ["import os", "x = '" + "a" * 6_000 + "'"]
    assert highlight("a.py", lines) == [[], []]


def test_a_very_large_side_is_left_plain() -> None:
    lines = ["value = compute(1, 2, 3)  # a typical line of code"] * 5_000
    assert highlight("a.py", lines) == [[] for _ in lines]


def test_tabs_are_kept_and_offsets_count_them_as_one_character() -> None:
    lines = ["\tif ready:\t# go", "\t\treturn 1"]
    spans = highlight("a.py", lines)
    assert span_of(lines[0], spans[0], "if") in Keyword
    assert spans[0][0][:2] == (1, 3)
    assert span_of(lines[0], spans[0], "# go") in Comment
    assert span_of(lines[1], spans[1], "return") in Keyword
    assert spans[1][0][:2] == (2, 8)


def test_a_stray_carriage_return_does_not_move_the_offsets() -> None:
    lines = ["x = 1 \r if y else 2", "import os\r", "def f(): pass"]
    spans = highlight("a.py", lines)
    assert span_of(lines[0], spans[0], "if") in Keyword
    assert span_of(lines[0], spans[0], "else") in Keyword
    assert span_of(lines[1], spans[1], "import") in Keyword
    assert span_of(lines[2], spans[2], "def") in Keyword
    assert spans[2][0][:2] == (0, 3)


def test_a_byte_order_mark_does_not_move_the_offsets() -> None:
    lines = ["\ufeffimport os"]
    spans = highlight("a.py", lines)
    assert span_of(lines[0], spans[0], "import") in Keyword


def test_a_lexer_that_fails_leaves_the_lines_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: PythonLexer, text: str) -> None:
        raise RuntimeError("broken lexer")

    monkeypatch.setattr(PythonLexer, "get_tokens_unprocessed", broken)
    assert highlight("a.py", ["import os"]) == [[]]


def _pygments_choice(name: str) -> type | None:
    from pygments.lexers import find_lexer_class_for_filename
    from pygments.lexers.special import TextLexer

    found = find_lexer_class_for_filename(name)
    return None if found is None or issubclass(found, TextLexer) else found


def test_the_lexer_index_chooses_as_pygments_does_for_every_name_pygments_knows() -> None:
    # A name made from each of Pygments' patterns: plain extensions, whole names, and globs
    # (Makefile.*, *.html.j2, *.[1-9]), several of which are claimed by more than one lexer.
    from pygments.lexers._mapping import LEXERS

    names = {
        re.sub(r"\[(.)[^\]]*\]", r"\1", pattern).replace("*", "x").replace("?", "q")
        for _module, _name, _aliases, patterns, _mimetypes in LEXERS.values()
        for pattern in patterns
    }
    names |= {"README", "a.unknown", "x.tar.gz", ".hidden", "noextension", "CMakeLists.txt", "a.TXT"}
    different = [name for name in sorted(names) if _lexer_class(name) is not _pygments_choice(name)]
    assert not different
    assert len(names) > 800
