"""The first screen's syntax colours, remembered between runs: given back for the same text of a
file of the same name, never for another; a broken cache is left alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pygments.token import Comment, Keyword

from conftest import Repo
from review.repo import git, highlight
from review.state import colours

LINES = ["def greet(name):", '    return "hi " + name']


@pytest.fixture(autouse=True)
def fresh_run() -> Iterator[None]:
    """Each test starts as a run of its own: nothing recalled, nothing made yet."""
    highlight._recalled.clear()
    highlight.forget_made()
    yield
    highlight._recalled.clear()
    highlight.forget_made()


def another_run() -> None:
    highlight._recalled.clear()
    highlight.forget_made()


def test_colours_made_in_one_run_are_given_back_in_the_next(repo: Repo) -> None:
    worktree = git.find_worktree(repo.root)
    lexed = highlight.highlight("src/greet.py", LINES)
    assert any(kind in Keyword for _, _, kind in lexed[0])
    colours.save(worktree)
    another_run()
    colours.load(worktree)
    assert highlight.highlight("src/greet.py", LINES) == lexed
    # what it gave is remembered again by this run, for the next
    assert list(highlight.made()) == [highlight._key("src/greet.py", "\n".join(LINES) + "\n")]


def remembered_as_comments(path: str) -> None:
    """Remember every line of LINES as one comment: colours no lexer makes of them, so that a
    highlight that gives them was not lexed."""
    text = "\n".join(LINES) + "\n"
    highlight.recall({highlight._key(path, text): [[[0, len(line), "Token.Comment"]] for line in LINES]})


def test_the_text_of_a_file_named_alike_is_not_lexed_again() -> None:
    remembered_as_comments("src/greet.py")
    spans = highlight.highlight("other/folder/greet.py", LINES)  # the lexer is chosen by the name
    assert spans == [[(0, len(line), Comment)] for line in LINES]


@pytest.mark.parametrize(
    ("path", "lines"),
    [
        ("src/greet.rb", LINES),  # another name: another lexer, maybe
        ("src/greet.py", [LINES[0], LINES[1] + " "]),  # another text
        ("src/greet.py", LINES[:1]),
    ],
)
def test_another_name_or_text_is_lexed(path: str, lines: list[str]) -> None:
    remembered_as_comments("src/greet.py")
    spans = highlight.highlight(path, lines)
    assert spans != [[(0, len(line), Comment)] for line in lines]


def test_remembered_spans_that_do_not_fit_the_lines_are_not_used() -> None:
    text = "\n".join(LINES) + "\n"
    highlight.recall({highlight._key("a.py", text): [[[0, 500, "Token.Comment"]], []]})
    spans = highlight.highlight("a.py", LINES)
    assert any(kind in Keyword for _, _, kind in spans[0])


def test_only_the_first_texts_made_are_remembered_and_a_new_diff_starts_afresh() -> None:
    for n in range(highlight.KEPT + 10):
        highlight.highlight("a.py", [f"value_{n} = {n}"])
    assert len(highlight.made()) == highlight.KEPT
    highlight.forget_made()
    assert highlight.made() == {}


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json",
        b"[]",
        b'{"schema": 2, "colours": {}}',
        b'{"schema": 1, "colours": []}',
        b'{"schema": 1, "colours": {"k": [[[0, 3]]]}}',
        b'{"schema": 1, "colours": {"k": [[[3, 1, "Token.Comment"]]]}}',
        b'{"schema": 1, "colours": {"k": [[[0, 3, "Comment"]]]}}',
        b'{"schema": 1, "colours": {"k": [[["0", 3, "Token.Comment"]]]}}',
        b'{"schema": 1, "colours": {"k": [[[0, 3, 7]]]}}',
        b'{"schema": 1, "colours": {"k": [[[0, 3, "Token.Comment", 1]]]}}',
        b'{"schema": 1, "colours": {"k": [[{"0": 3}]]}}',
        b'{"schema": 1, "colours": {"k": 5}}',
    ],
)
def test_a_broken_cache_recalls_nothing(repo: Repo, content: bytes) -> None:
    worktree = git.find_worktree(repo.root)
    path = colours.cache_file(worktree)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    colours.load(worktree)
    assert highlight._recalled == {}
    assert any(kind in Keyword for _, _, kind in highlight.highlight("g.py", LINES)[0])


def test_nothing_made_writes_nothing(repo: Repo) -> None:
    worktree = git.find_worktree(repo.root)
    colours.save(worktree)
    assert not colours.cache_file(worktree).exists()
