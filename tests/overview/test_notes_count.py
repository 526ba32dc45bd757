"""The agent's notes in the overview: each row counts the notes that wait on the reviewer, in the
rows, `review status --json` and its table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Repo
from review.overview.rows import Row
from review.overview.status import Overview, row_json
from review.overview.table import table
from review.state import comments, notes
from review.state.comments import Where
from review.state.store import Store


def row_of(overview: Overview, tree: Repo) -> Row:
    return {row.path: row for row in overview.read_all()}[tree.root]


def noted(project: Repo) -> tuple[Repo, Store]:
    """A worktree whose agent left three notes: on a line, on a file, on the whole change."""
    made = project.worktree("agent", "agent/work")
    made.write("src/app.py", "changed\n" + (made.root / "src/app.py").read_text())
    store = Store(made.root)
    lines = (made.root / "src/app.py").read_text().splitlines()
    notes.add(store, Where("src/app.py", line=1), "a header", lines)
    notes.add(store, Where("src/util.py"), "untouched, on purpose", None)
    notes.add(store, Where(notes.WHOLE_CHANGE), "one refactor", None)
    return made, store


def test_a_row_counts_the_notes_the_reviewer_has_not_dismissed_or_answered(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    agent, store = noted(project)
    opened = overview(project.root)
    assert row_of(opened, agent).notes == 3
    notes.dismiss(store, "n2")
    comments.reply(store, "n3", "reviewer", "Which one?")
    row = row_of(opened, agent)
    assert (row.notes, row.open_comments, row.review_state) == (1, 0, "none")
    comments.reply(store, "n3", "agent", "Totals in Decimal")
    assert row_of(opened, agent).notes == 2


def test_status_json_and_table_give_the_count(project: Repo, overview: Callable[[Path], Overview]) -> None:
    noted(project)
    rows = overview(project.root).read_all()
    by_name = {row.name: row for row in rows}
    assert (row_json(by_name["agent"])["notes"], row_json(by_name["repo"])["notes"]) == (3, 0)
    heading, *lines = table(rows).splitlines()
    column = heading.index("NOTES")
    (line,) = [line for line in lines if line.startswith("agent ")]
    assert line[column:].split()[0] == "3"
    (main,) = [line for line in lines if line.startswith("repo ")]
    assert main[column:].split()[0] == "-"
