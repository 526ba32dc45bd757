"""The first screen's colours made in a child process: the texts it is given are those the view
colours, the colours it gives back are the ones lexed here, and a child that fails or is slow
costs the screen nothing but its own lexing."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import pytest

from conftest import Repo, recalled
from review.repo import colouring, git, highlight, scope
from review.repo.diff import Diff, FileDiff, Line
from review.repo.scope import Scope
from review.state import colours, counted
from review.state.opening import read_apart

pytestmark = pytest.mark.usefixtures("coloured_apart")


@pytest.fixture(autouse=True)
def fresh_run() -> Iterator[None]:
    """Each test starts as a run of its own: nothing recalled, no lexer compiled here yet."""
    highlight._recalled.clear()
    highlight.forget_made()
    highlight._lexer_class.cache_clear()
    yield
    highlight._recalled.clear()
    highlight.forget_made()


def line(kind: str, text: str) -> Line:
    return Line(kind, None if kind == "+" else 1, None if kind == "-" else 1, text)


def test_a_chunk_is_coloured_as_two_texts_its_old_side_and_its_new() -> None:
    lines = [line(" ", "a"), line("-", "b"), line("+", "c"), line(" ", "d")]
    assert colouring.sides(lines, 0) == ([0, 1, 3], [0, 2, 3])
    long = [line("+", f"x{n}") for n in range(colouring.CHUNK + 5)]
    assert colouring.sides(long, 0) == ([], list(range(colouring.CHUNK)))
    assert colouring.sides(long, colouring.CHUNK) == ([], list(range(colouring.CHUNK, colouring.CHUNK + 5)))


def test_the_first_screens_texts_are_its_first_files_hunks_each_side_whole(agent_worktree: Repo) -> None:
    _, diff = scope.load(git.find_worktree(agent_worktree.root), Scope())
    texts = colouring.first_texts(diff)
    first = diff.files[0].hunks[0].lines
    # (a new file has no old side to lex)
    wanted = [(diff.files[0].path, [first[i].text for i in side]) for side in colouring.sides(first, 0) if side]
    assert texts[: len(wanted)] == wanted
    # every file with hunks of this small diff is on its first screen
    assert {path for path, _ in texts} == {f.path for f in diff.files if f.hunks_shown_unasked}


def rewritten(repo: Repo, names: list[str], old: str, new: str) -> Diff:
    """The diff of files committed with the text `old`, then written with `new`."""
    for text, made in ((old, True), (new, False)):
        for name in names:
            repo.write(name, text)
        if made:
            repo.commit("the files")
    return scope.load(git.find_worktree(repo.root), Scope(base="HEAD"))[1]


def test_the_first_screens_texts_stop_past_its_first_rows(repo: Repo) -> None:
    forty = [f"src/m{n:02}.py" for n in range(40)]
    diff = rewritten(
        repo,
        forty,
        "".join(f"value_{i} = {i}\n" for i in range(10)),
        "".join(f"value_{i} = {i * 2}\n" for i in range(10)),
    )
    texts = colouring.first_texts(diff, 50)
    shown = {path for path, _ in texts}
    # a file of ten lines rewritten takes 2 + 21 rows: fifty rows hold three of the forty
    assert shown == set(forty[:3])
    assert {path for path, _ in colouring.first_texts(diff, 120)} == set(forty[:6])


def test_the_first_screens_texts_are_gathered_as_its_files_are_read_and_no_further(repo: Repo) -> None:
    forty = [f"src/m{n:02}.py" for n in range(40)]
    rewritten(repo, forty, "a = 1\n" * 10, "b = 2\n" * 10)
    worktree = git.find_worktree(repo.root)
    first = colouring.FirstScreen(50)
    given: list[str] = []

    def parsed(file: FileDiff) -> bool:
        given.append(file.path)
        return first.add(file)  # (its hunks read while git writes the files after it)

    diff = scope.read(worktree, scope.resolve(worktree, Scope(base="HEAD")), parsed=parsed)
    assert given == forty[:3]
    assert first.full
    assert first.texts == colouring.first_texts(diff, 50)


def test_the_first_screens_texts_stop_past_a_pipes_worth_of_text(repo: Repo) -> None:
    diff = rewritten(
        repo,
        [f"wide{n}.py" for n in range(3)],
        "".join(f"v{i} = '{'x' * 300}'\n" for i in range(20)),
        "".join(f"v{i} = '{'y' * 300}'\n" for i in range(20)),
    )
    texts = colouring.first_texts(diff)
    # each file's chunk is 12,000 characters: the first passes the limit
    assert [path for path, _ in texts] == ["wide0.py", "wide0.py"]


def test_the_colours_the_child_makes_are_those_lexed_here() -> None:
    texts = [("src/a.py", ["def greet(name):", '    return "hi " + name']), ("page.html", ["<p class='x'>hi</p>"])]
    child = colouring.start()
    assert child is not None
    child.expect(["src/a.py", "page.html"])
    child.colour(texts)
    child.recall()
    assert highlight._lexer_class.cache_info().currsize == 0  # nothing compiled here
    for path, lines in texts:
        made = recalled(path, lines)
        assert made == highlight._lex(path, lines, "\n".join(lines) + "\n")
        assert isinstance(made, list) and any(made)


@pytest.mark.parametrize(
    "child",
    [
        [sys.executable, "-c", "import time; time.sleep(30)"],  # too slow
        [sys.executable, "-c", "print('{not json')"],
        [sys.executable, "-c", 'print(\'{"key": [[[0, 1, "NotAToken"]]]}\')'],
        [sys.executable, "-c", "raise SystemExit(3)"],
    ],
)
def test_a_child_that_fails_or_is_slow_leaves_the_colours_to_be_lexed_here(
    child: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(colouring, "CHILD", child)
    monkeypatch.setattr(colouring, "ANSWER_WAIT", 0.5)
    colourer = colouring.start()
    assert colourer is not None
    colourer.expect(["a.py"])
    colourer.colour([("a.py", ["x = 1"])])
    started = time.monotonic()
    colourer.recall()
    assert time.monotonic() - started < 5
    assert highlight._recalled == {}
    assert highlight.highlight("a.py", ["x = 1"]) != [[]]  # lexed here


def test_a_child_that_cannot_be_started_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(colouring, "CHILD", ["/nonexistent/python"])
    assert colouring.start() is None


def test_a_first_opening_has_its_first_screens_colours_made_apart(agent_worktree: Repo) -> None:
    worktree = git.find_worktree(agent_worktree.root)
    assert not colours.cache_file(worktree).exists()
    first = read_apart(worktree, Scope())
    assert first.coloured.wait(30)
    texts = colouring.first_texts(first.reading.result(), colouring.screen_rows())
    assert texts
    assert highlight._lexer_class.cache_info().currsize == 0
    for path, lines in texts:
        assert recalled(path, lines) is not None


def test_an_opening_with_its_colours_remembered_starts_no_child(
    agent_worktree: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    worktree = git.find_worktree(agent_worktree.root)
    highlight.highlight("src/app.py", ["x = 1"])
    colours.save(worktree)
    started: list[object] = []
    monkeypatch.setattr(colouring, "start", lambda: started.append(1))
    first = read_apart(worktree, Scope())
    assert first.coloured.wait(30)
    assert started == []


def test_a_diff_opened_from_its_counts_has_its_first_screen_coloured_apart_too(
    agent_worktree: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its counts remembered and its colours not: the files past the first screen, whose patches
    # git reads once the screen is shown, are not waited for
    monkeypatch.setattr(counted, "RECENT_SECONDS", -3600.0)
    monkeypatch.setattr(counted, "WHOLE_AT_ONCE_BYTES", 0)
    monkeypatch.setattr(counted, "FIRST_ROWS", 1)
    worktree = git.find_worktree(agent_worktree.root)
    first = read_apart(worktree, Scope())
    first.shown.set()
    until = time.monotonic() + 30
    while counted.remembered_size(worktree).files == 0 and time.monotonic() < until:
        time.sleep(0.05)
    colours.cache_file(worktree).unlink(missing_ok=True)
    highlight._recalled.clear()
    again = read_apart(worktree, Scope())
    assert again.coloured.wait(30)  # before the screen is shown
    texts = colouring.first_texts(again.reading.result(), colouring.screen_rows())
    assert texts
    for path, lines in texts:
        assert recalled(path, lines) is not None
    again.shown.set()
    assert again.checked.result(timeout=30) is True
