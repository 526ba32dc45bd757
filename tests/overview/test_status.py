"""The status of every worktree as scripts read it (`review status --json`) and the order the
reviewer goes through them in: `review.overview.status`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Repo, app_with
from review.agents import activity
from review.overview.status import Overview, age, by_wait, queue, row_json, stamp
from review.state.store import Store


def edited_ago(tree: Repo, seconds: float) -> float:
    """A new file in the worktree, last changed `seconds` ago, and nothing else: its work waits
    on the reviewer since then."""
    path = tree.write("notes.md", f"{tree.root.name}\n")
    moment = time.time() - seconds
    os.utime(path, (moment, moment))
    return moment


DESIGNED = {
    "path",
    "branch",
    "agent",
    "agent_state",
    "last_change",
    "files",
    "added",
    "removed",
    "ahead",
    "behind",
    "review_state",
    "waits_on",
    "open_comments",
    "answered_comments",
    "addressed_comments",
    "overlaps",
}
"""The fields of a worktree that DESIGN.md lists for `review status --json`."""
EXTRA = {
    "name",
    "head",
    "reason",
    "waiting_since",
    "notes",
    "requested",
    "delivery",
    "merges_cleanly",
    "default_conflict_files",
    "note",
    "problem",
}
"""The fields the overview adds to them."""


def test_the_json_has_the_designed_fields_and_the_overviews_own(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    two.write("src/app.py", app_with(l5="five by two"))
    opened = overview(project.root)
    opened.read_all()
    status = json.loads(json.dumps(opened.as_json()))
    assert set(status) == {"schema", "version", "repo", "default_branch", "worktrees"}
    assert (status["schema"], status["repo"], status["default_branch"]) == (
        "review-status/1",
        str(project.root),
        "main",
    )
    assert [set(worktree) for worktree in status["worktrees"]] == [DESIGNED | EXTRA] * 3
    assert status["worktrees"][1]["overlaps"] == [
        {"worktree": str(two.root), "files": ["src/app.py"], "conflict": True, "conflict_files": ["src/app.py"]}
    ]


def test_the_json_gives_a_worktrees_row_as_read(project: Repo, overview: Callable[[Path], Overview]) -> None:
    one = project.worktree("one", "agent/one")
    moment = edited_ago(one, 600)
    opened = overview(project.root)
    opened.read_all()
    row = opened.as_json()["worktrees"][1]
    assert {key: row[key] for key in ("path", "name", "branch", "files", "added", "removed", "ahead", "behind")} == {
        "path": str(one.root),
        "name": "one",
        "branch": "agent/one",
        "files": 1,
        "added": 1,
        "removed": 0,
        "ahead": 0,
        "behind": 0,
    }
    assert (row["agent"], row["agent_state"], row["review_state"]) == (None, "unknown", "none")
    assert (row["waits_on"], row["reason"]) == ("reviewer", "ready for review")
    assert row["last_change"] == row["waiting_since"] == stamp(moment)
    assert (row["merges_cleanly"], row["note"], row["problem"]) == (True, None, None)


def test_a_time_is_written_as_the_review_file_writes_times() -> None:
    assert stamp(1_800_000_000.7) == "2027-01-15T08:00:00Z"
    assert stamp(None) is None


def test_the_queue_is_the_reviewers_worktrees_the_longest_waiting_first(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    trees = {name: project.worktree(name, f"agent/{name}") for name in ("a", "b", "c", "busy", "broken")}
    edited_ago(trees["a"], 3000)
    edited_ago(trees["b"], 1000)
    edited_ago(trees["c"], 2000)
    edited_ago(trees["busy"], 4000)
    activity.record(trees["busy"].root, "working", "claude", "UserPromptSubmit")
    edited_ago(trees["broken"], 5000)
    Store(trees["broken"].root).make_folder()
    Store(trees["broken"].root).path.write_text("garbage")
    assert [row.name for row in queue(overview(project.root).read_all())] == ["a", "c", "b"]


def test_rows_group_by_what_they_wait_on_the_reviewer_first_and_problems_last(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    trees = {name: project.worktree(name, f"agent/{name}") for name in ("new", "old", "busy", "broken")}
    edited_ago(trees["new"], 100)
    edited_ago(trees["old"], 200)
    edited_ago(trees["busy"], 300)
    activity.record(trees["busy"].root, "working", "claude", "UserPromptSubmit")
    Store(trees["broken"].root).make_folder()
    Store(trees["broken"].root).path.write_text("garbage")
    opened = overview(project.root)
    assert [row.name for row in by_wait(opened.read_all())] == ["old", "new", "busy", "repo", "broken"]


def test_among_the_rows_that_wait_on_nothing_those_ready_to_merge_come_first(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    from review.repo.git import find_worktree
    from review.repo.lines import FileReader
    from review.repo.scope import Scope, resolve
    from review.state import rounds

    done = project.worktree("done", "agent/done")
    edited_ago(done, 100)
    worktree = find_worktree(done.root)
    rounds.send(Store(done.root), worktree, "approve", "", FileReader(worktree, resolve(worktree, Scope()).old))
    rows = by_wait(overview(project.root).read_all())
    assert [(row.name, row.reason) for row in rows] == [
        ("done", "approved: ready to merge"),
        ("repo", "no changes"),
    ]


@pytest.mark.parametrize(
    ("seconds", "says"),
    [(0, "0s"), (59, "59s"), (60, "1m"), (3599, "59m"), (3600, "1h"), (86399, "23h"), (2 * 86400 + 5, "2d")],
)
def test_an_age_is_told_in_its_largest_unit(seconds: int, says: str) -> None:
    assert age(1000.0, now=1000.0 + seconds) == says


def test_an_unknown_time_has_no_age_and_a_future_one_is_now() -> None:
    assert age(None) == ""
    assert age(2000.0, now=1000.0) == "0s"


def test_a_long_followed_overview_starts_a_new_scratch_store_and_removes_the_old(
    project: Repo, overview: Callable[[Path], Overview], monkeypatch: pytest.MonkeyPatch
) -> None:
    from review.overview import status

    monkeypatch.setattr(status, "RENEW_AFTER", 3)
    one = project.worktree("one", "agent/one")
    two = project.worktree("two", "agent/two")
    for tree in (one, two):
        tree.write("src/app.py", f"{tree.root.name}\n")
    seen = overview(project.root)
    seen.read_all()
    first = seen.scratch.folder
    rows = {row.path: row for row in seen.refresh([one.root])}
    assert seen.scratch.folder != first and not first.exists()
    # every row was read into the new store, and the radar merges there
    assert all(row.snapshot for row in rows.values())
    conflict = next(o for o in rows[one.root].overlaps if o.worktree == two.root)
    assert conflict.conflict is True
    assert seen.conflicts(rows[one.root], rows[two.root])


READ_APART = """
import json, sys
from review.overview.status import Overview, row_json
with Overview(sys.argv[1]) as overview:
    try:
        rows = overview.read_apart().result()
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
    else:
        print(json.dumps([row_json(row) for row in rows] + [row_json(row) for row in overview.read_radar()]))
"""


def read_apart(path: Path) -> object:
    """What `Overview.read_apart` gives in a process of its own, as `review all` runs it."""
    done = subprocess.run([sys.executable, "-c", READ_APART, str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_reading_in_a_child_process_gives_the_rows_and_radar_of_reading_here(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one, two = project.worktree("one", "agent/one"), project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    two.write("src/app.py", app_with(l5="five by two"))
    here = [row_json(row) for row in overview(project.root).read_all()]
    apart = read_apart(project.root)
    assert isinstance(apart, list)
    # the rows the child read, then the radar read here from the merges it handed over
    assert apart[: len(here)] == here and apart[len(here) :] == here
    assert any(overlap["conflict"] for row in apart for overlap in row["overlaps"])
