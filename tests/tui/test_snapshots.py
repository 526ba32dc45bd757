"""How the viewer looks: a few snapshots at a fixed terminal size, workers awaited.

Update them with `pytest tests/test_snapshots.py --snapshot-update` after a deliberate change,
and look at the SVG files in tests/__snapshots__/ before committing.
"""

from __future__ import annotations

from conftest import Repo, settle
from review.repo import git
from review.tui.app import make_app

SIZE = (100, 28)

PYTHON = '''"""Totals of a ledger."""

from dataclasses import dataclass


@dataclass
class Entry:
    amount: float
    category: str = "misc"


def total(entries):
    return sum(e.amount for e in entries)
'''


def app_for(repo: Repo):  # type: ignore[no-untyped-def]
    return make_app(git.find_worktree(repo.root), watch=False)


async def ready(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)


def python_change(project: Repo) -> Repo:
    project.write("ledger.py", PYTHON)
    project.commit("ledger")
    project.write(
        "ledger.py",
        PYTHON.replace(
            "    return sum(e.amount for e in entries)",
            '    """The sum of all amounts."""\n    return sum(entry.amount for entry in entries)',
        ).replace('category: str = "misc"', 'category: str = "other"\n    note: str = ""'),
    )
    return project


def test_unified_view(snap_compare, project: Repo) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(python_change(project)), terminal_size=SIZE, run_before=ready)


def test_split_view(snap_compare, project: Repo) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(python_change(project)), press=["s"], terminal_size=SIZE, run_before=ready)


def test_a_new_python_file_is_highlighted(snap_compare, project: Repo) -> None:  # type: ignore[no-untyped-def]
    project.write("ledger.py", PYTHON)
    assert snap_compare(app_for(project), terminal_size=SIZE, run_before=ready)


def test_a_rename_with_an_edit(snap_compare, project: Repo) -> None:  # type: ignore[no-untyped-def]
    project.git("mv", "src/util.py", "src/helpers.py")
    project.write("src/helpers.py", "def helper():\n    return 2\n")
    assert snap_compare(app_for(project), terminal_size=SIZE, run_before=ready)


def test_a_binary_file(snap_compare, project: Repo) -> None:  # type: ignore[no-untyped-def]
    project.write("logo.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    project.commit("logo")
    project.write("logo.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    assert snap_compare(app_for(project), terminal_size=SIZE, run_before=ready)


def test_a_file_name_with_an_escape_sequence(snap_compare, project: Repo) -> None:  # type: ignore[no-untyped-def]
    project.write("evil\x1b[31mred\x1b[0m.txt", "title \x1b]0;pwned\x07 and bell \x07\nline\tafter a tab\n")
    assert snap_compare(app_for(project), terminal_size=SIZE, run_before=ready)


def test_comments_in_every_state(snap_compare, project: Repo) -> None:  # type: ignore[no-untyped-def]
    from review.repo.lines import FileReader
    from review.state import comments, rounds
    from review.state.comments import Where
    from review.state.store import Store

    body = "".join(f"line {n}\n" for n in range(1, 41))
    project.write("notes.txt", body)
    project.commit("notes")
    project.write("notes.txt", body.replace("line 10\n", "line ten\n"))
    worktree = git.find_worktree(project.root)
    store = Store(project.root)
    lines = (project.root / "notes.txt").read_text().splitlines()

    def add(line: int, text: str, severity: str = "should") -> None:
        comments.add(store, Where("notes.txt", line=line), text, severity, lines)  # type: ignore[arg-type]

    add(10, "Spell the number out everywhere, then.", "must")
    add(12, "Will move when lines are added above.")
    add(14, "Will be changed.", "question")
    add(16, "Will vanish.", "nit")
    add(8, "Already fine.")
    rounds.send(store, worktree, "request_changes", "First pass", FileReader(worktree, None))
    comments.reply(store, "c1", "agent", "Done: only this one was a number in words.")
    comments.resolve(store, "c1", None)
    comments.set_status(store, "c5", "resolved")
    add(11, "A draft, not sent yet.")
    edited = body.replace("line 10\n", "line ten\n").replace("line 14\n", "line fourteen!\n").replace("line 16\n", "")
    project.write("notes.txt", "inserted\n" + edited)
    assert snap_compare(app_for(project), terminal_size=(100, 44), run_before=ready)


def test_agent_notes_beside_a_comment(snap_compare, project: Repo) -> None:  # type: ignore[no-untyped-def]
    """The agent's notes (on the whole change, on a line, one answered) in their own border and
    label, beside the reviewer's comment; the cursor on a note offers its keys in the footer."""
    from review.state import comments, notes
    from review.state.comments import Where
    from review.state.store import Store

    python_change(project)
    store = Store(project.root)
    lines = (project.root / "ledger.py").read_text().splitlines()
    notes.add(store, Where(notes.WHOLE_CHANGE), "Entries carry a note now; totals are unchanged.", None)
    notes.add(store, Where("ledger.py", line=9, end_line=10), "A field for the note of an entry.", lines)
    comments.add(store, Where("ledger.py", line=15), "Name it `entries_total`?", "nit", lines)
    notes.add(store, Where("ledger.py", line=14), "The docstring the linter asked for.", lines)
    comments.reply(store, "n3", "reviewer", "Fine; keep it short.")

    async def on_a_note(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await pilot.press("n", "n")

    assert snap_compare(app_for(project), terminal_size=(130, 36), run_before=on_a_note)


def narrow(agent_worktree: Repo) -> Repo:
    """A worktree with a draft and a file whose name is longer than a narrow file list."""
    from review.state import comments
    from review.state.comments import Where
    from review.state.store import Store

    agent_worktree.write("src/currency_conversion.py", "".join(f"RATE_{n} = {n}\n" for n in range(11)))
    lines = (agent_worktree.root / "src/app.py").read_text().splitlines()
    comments.add(Store(agent_worktree.root), Where("src/app.py", line=5), "Why double it?", "must", lines)
    return agent_worktree


def test_at_80_by_24_the_header_the_counts_help_and_quit_stay(snap_compare, agent_worktree: Repo) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(narrow(agent_worktree)), terminal_size=(80, 24), run_before=ready)


def test_at_60_by_20_compact_the_header_counts_and_keys_stay(snap_compare, agent_worktree: Repo) -> None:  # type: ignore[no-untyped-def]
    """Below 80 columns the layout is compact (tests/tui/test_compact.py): the diff alone."""
    assert snap_compare(app_for(narrow(agent_worktree)), terminal_size=(60, 20), run_before=ready)
