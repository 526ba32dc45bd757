"""The review folder as an attack: a repository that commits `.review`, or a file in it, as a
symbolic link to a place outside the worktree. review must never write through it, say why in one
line, and read nothing through it: not the review file, the lock, a temporary file, the agent's
state or the reviewer's unsaved text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import Repo, settle
from review.agents import activity
from review.errors import UnsafeReview
from review.repo import git
from review.state import files
from review.state.store import Store
from review.tui.app import make_app
from review.tui.screens.review_screen import ReviewScreen
from test_cli import review
from tmux import Terminal, review_command

SECRET = "the contents of a private file\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the worktree, with a private file in it."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET)
    return folder


def committed_link(repo: Repo, name: str, target: Path) -> None:
    """`name` committed as a symbolic link to `target`, then a change for the diff to show."""
    link = repo.root / name
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)
    repo.git("add", "--force", name)
    repo.git("commit", "--quiet", "-m", f"commit {name} as a link")
    repo.write("src/app.py", "changed\n")


def assert_refused(done, name: str) -> None:  # type: ignore[no-untyped-def]
    assert done.returncode == 1, done
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("review: "), done.stderr
    assert f"{name} is a symbolic link" in lines[0]
    assert "Traceback" not in done.stderr and SECRET.strip() not in done.stdout + done.stderr


def untouched(folder: Path) -> None:
    assert sorted(path.name for path in folder.iterdir()) == ["secret.txt"]
    assert (folder / "secret.txt").read_text() == SECRET


@pytest.mark.parametrize(
    "verb",
    [
        ("comment", "src/app.py:1", "-m", "a comment"),
        ("note", "src/app.py:1", "-m", "a note"),
        ("pending",),
        ("reply", "c1", "-m", "done"),
        ("resolve", "c1", "-m", "done"),
        ("send", "--approve"),
    ],
    ids=lambda verb: verb[0],
)
def test_no_verb_reads_or_writes_through_a_committed_review_folder_link(
    project: Repo, outside: Path, verb: tuple[str, ...]
) -> None:
    committed_link(project, ".review", outside)

    done = review(*verb, cwd=project.root)

    assert_refused(done, ".review")
    untouched(outside)


def test_status_names_the_link_as_the_worktree_s_problem(project: Repo, outside: Path) -> None:
    committed_link(project, ".review", outside)

    done = review("status", "--json", cwd=project.root)

    assert done.returncode == 0
    assert ".review is a symbolic link" in done.stdout
    untouched(outside)


def test_a_linked_review_file_is_neither_read_nor_copied(project: Repo, outside: Path) -> None:
    # Followed, the private file would be read as the review, found broken, and copied into the
    # worktree as review.json.broken-…, where an agent could read it.
    committed_link(project, ".review/review.json", outside / "secret.txt")

    for verb in (("pending",), ("comment", "src/app.py:1", "-m", "a comment")):
        assert_refused(review(*verb, cwd=project.root), "review.json")

    untouched(outside)
    kept = [path for path in (project.root / ".review").iterdir() if not path.is_symlink()]
    assert all(SECRET not in path.read_text(errors="replace") for path in kept if path.is_file())


def test_a_linked_lock_file_is_not_made_where_it_points(project: Repo, outside: Path) -> None:
    committed_link(project, ".review/lock", outside / "made-by-review")

    assert_refused(review("comment", "src/app.py:1", "-m", "a comment", cwd=project.root), "lock")

    untouched(outside)


def test_a_review_file_that_is_not_a_plain_file_is_refused_without_waiting(project: Repo) -> None:
    # A FIFO in its place would block every reader for good.
    (project.root / ".review").mkdir()
    os.mkfifo(project.root / ".review" / "review.json")

    done = review("pending", cwd=project.root)

    assert done.returncode == 1
    assert "review.json is not a plain file" in done.stderr


def test_a_review_folder_that_is_a_file_is_refused(project: Repo) -> None:
    project.write(".review", "not a folder\n")
    project.git("add", "--force", ".review")
    project.git("commit", "--quiet", "-m", "a file named .review")

    done = review("comment", "src/app.py:1", "-m", "a comment", cwd=project.root)

    assert done.returncode == 1
    assert ".review is not a folder" in done.stderr
    assert (project.root / ".review").read_text() == "not a folder\n"


def test_a_temporary_file_name_taken_by_a_link_is_passed_over(
    project: Repo, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The names of temporary files are random; here the first one drawn is known and a link
    # waits there, as if guessed. It is not followed, and the write goes on under another name.
    store = Store(project.root)
    store.make_folder()
    names = iter(["aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(files.secrets, "token_hex", lambda _: next(names))
    os.symlink(outside / "secret.txt", store.folder / ".review.json.aaaaaaaa.tmp")

    store.update(lambda review: review.extra.update(written=True))

    untouched(outside)
    assert store.read().extra == {"written": True}


def test_the_agent_state_is_not_read_through_a_link(project: Repo, outside: Path) -> None:
    (outside / "agent.json").write_text('{"state": "working", "at": "2026-01-01T00:00:00Z"}')
    committed_link(project, ".review/agent.json", outside / "agent.json")

    assert activity.read(project.root) is None
    activity.record(project.root, "idle", "claude", "Stop")

    # The link itself is replaced by the worktree's own file; the file it pointed to is untouched.
    assert not (project.root / ".review" / "agent.json").is_symlink()
    assert (outside / "agent.json").read_text().startswith('{"state": "working"')


def test_the_own_folder_check_names_a_link_and_where_it_points(tmp_path: Path, outside: Path) -> None:
    os.symlink(outside, tmp_path / ".review")

    with pytest.raises(UnsafeReview, match=r"\.review is a symbolic link \(to .*outside\)"):
        files.own_folder(tmp_path / ".review")


async def test_the_viewer_does_not_read_unsaved_text_through_a_link(project: Repo, outside: Path) -> None:
    # The unsaved text is shown to the reviewer and may be saved as a comment that an agent
    # reads: through a link, it would carry a private file to the agent.
    committed_link(project, ".review/unsaved.md", outside / "secret.txt")

    app = make_app(git.find_worktree(project.root), watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen_stack[0]
        assert isinstance(screen, ReviewScreen)
        assert not screen.saving.earlier()

    untouched(outside)


def test_the_viewer_in_a_terminal_says_why_and_writes_nothing_through_the_link(project: Repo, outside: Path) -> None:
    # As the reviewer meets it: the diff shows, one message names the link, and a comment typed
    # and saved goes nowhere near the folder the link points to.
    committed_link(project, ".review", outside)
    terminal = Terminal(project.root, width=100, height=30)
    try:
        terminal.run(f"{review_command()} {project.root}")
        terminal.wait_for("src/app.py")
        terminal.wait_for("symbolic")  # in a toast, where its words may wrap
        terminal.keys("j", "j", "c")
        terminal.wait_for("Comment on src/app.py")
        terminal.literal("a comment that must not leave the worktree")
        terminal.keys("C-s")
        terminal.wait_until_gone("Comment on src/app.py")
        screen = terminal.settled()
        assert "Traceback" not in screen
        terminal.keys("q")
    finally:
        terminal.close()
    untouched(outside)
    assert (project.root / ".review").is_symlink()
