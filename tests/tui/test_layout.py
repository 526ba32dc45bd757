"""The row layout: counts known before parsing, and finding places, hunks, files and text."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from conftest import Repo
from review.repo import git, scope
from review.repo.diff import Diff
from review.repo.scope import Scope
from review.state.model import Comment
from review.tui import layout as layout_module
from review.tui.layout import FoldedMatch, Layout, Place, RowKind
from synthetic import generate


def load(repo: Repo | Path) -> Diff:
    root = repo.root if isinstance(repo, Repo) else repo
    return scope.load(git.find_worktree(root), Scope())[1]


@pytest.fixture
def changed(project: Repo) -> Repo:
    project.write("src/app.py", "".join(f"line {n}\n" if n % 7 else f"LINE {n}\n" for n in range(1, 21)))
    project.write("src/util.py", "def helper():\n    return 2\n    # more\n")
    project.write("new.txt", "fresh\ncontent\n")
    project.write("image.bin", b"\0\1\2")
    return project


@pytest.mark.parametrize("split", [False, True])
def test_counts_before_parsing_equal_the_built_rows(tmp_path: Path, split: bool) -> None:
    made = generate(tmp_path, files=25, lines=60, changed=0.3, worktrees=1, commits=3, seed=5)
    diff = load(made.worktrees[0])
    layout = Layout(diff, split=split)
    before = layout.total
    for index in range(len(diff.files)):
        layout.rows_of(index)
    assert layout.total == before


def test_unified_rows_follow_the_diff(changed: Repo) -> None:
    diff = load(changed)
    layout = Layout(diff)
    kinds = [layout.row(i).kind for i in range(layout.total)]
    assert kinds.count(RowKind.FILE) == len(diff.files) == 4
    assert kinds.count(RowKind.GAP) == 4
    assert kinds.count(RowKind.NOTE) == 1  # the binary file
    lines = sum(len(h.lines) for f in diff.files if not f.binary for h in f.hunks)
    assert kinds.count(RowKind.LINE) == lines


def test_split_rows_put_a_removed_line_beside_its_replacement(changed: Repo) -> None:
    layout = Layout(load(changed), split=True)
    index = layout.find(Place("src/util.py", new=2))
    assert index is not None
    old, new = layout.lines_of(layout.row(index))
    assert old is not None and new is not None
    assert (old.text, new.text) == ("    return 1", "    return 2")


def test_a_folded_file_is_its_header_only(changed: Repo) -> None:
    layout = Layout(load(changed), folded=frozenset({"src/app.py"}))
    start = layout.file_start(layout.file_of(layout.find(Place("src/app.py")) or 0))
    assert [layout.row(start).kind, layout.row(start + 1).kind] == [RowKind.FILE, RowKind.GAP]


def test_a_large_file_is_a_note_until_expanded(project: Repo) -> None:
    project.write("big.txt", "".join(f"{n}\n" for n in range(20_001)))
    diff = load(project)
    assert [r.kind for r in Layout(diff).rows_of(0)] == [RowKind.FILE, RowKind.NOTE, RowKind.GAP]
    assert Layout(diff, expanded=frozenset({"big.txt"})).total > 20_000


def test_place_and_find_round_trip_between_unified_and_split(changed: Repo) -> None:
    diff = load(changed)
    unified = Layout(diff)
    split = Layout(diff, split=True)
    for index in range(unified.total):
        place = unified.place(index)
        if place.new is None and place.old is None:
            continue
        found = split.find(place)
        assert found is not None
        old, new = split.lines_of(split.row(found))
        if place.new is not None:
            assert new is not None and new.new == place.new
        else:
            assert old is not None and old.old == place.old


def test_find_goes_to_the_nearest_line_when_the_line_is_gone(changed: Repo) -> None:
    layout = Layout(load(changed))
    index = layout.find(Place("src/app.py", new=500))
    assert index is not None
    _, new = layout.lines_of(layout.row(index))
    app = layout.diff.file("src/app.py")
    assert app is not None and new is not None
    assert new.new == max(line.new for h in app.hunks for line in h.lines if line.new is not None)


def test_next_hunk_and_next_file_cross_files(changed: Repo) -> None:
    layout = Layout(load(changed))
    hunks = []
    at: int | None = 0
    while (at := layout.next_hunk(at)) is not None:  # type: ignore[arg-type]
        hunks.append(at)
    assert all(layout.row(h).kind is RowKind.HUNK for h in hunks)
    assert len(hunks) == sum(len(f.hunks) for f in layout.diff.files)
    assert layout.next_hunk(hunks[-1], forward=False) == hunks[-2]
    starts = [layout.file_start(i) for i in range(len(layout.diff.files))]
    assert layout.next_file(0) == starts[1]
    assert layout.next_file(starts[2] + 1, forward=False) == starts[2]
    assert layout.next_file(starts[2], forward=False) == starts[1]
    assert layout.next_file(starts[-1]) is None


def find(text: str) -> re.Pattern[str]:
    return re.compile(re.escape(text), re.IGNORECASE)


def test_search_finds_text_in_either_direction_and_wraps(changed: Repo) -> None:
    layout = Layout(load(changed))
    first = layout.search(find("line 14"), 0)
    assert first is not None
    old, new = layout.lines_of(layout.row(first))
    assert old is not None and new is None and old.text == "line 14"
    second = layout.search(find("line 14"), first)
    assert second is not None and layout.lines_of(layout.row(second))[1].text == "LINE 14"  # type: ignore[union-attr]
    assert layout.search(find("fresh"), first) is not None
    assert layout.search(find("line 14"), layout.total - 1) == first  # wraps around
    assert layout.search(find("line 14"), first, forward=False) == second  # backwards, wrapping
    assert layout.search(find("nowhere to be found"), 0) is None


def test_a_search_leads_into_a_folded_file_and_counts_its_lines(changed: Repo) -> None:
    diff = load(changed)
    app = next(i for i, f in enumerate(diff.files) if f.path == "src/app.py")
    folded = Layout(diff, folded=frozenset({"src/app.py"}))
    assert folded.search(find("line 14"), 0) == FoldedMatch(app)
    # its lines are counted where they will be once it is unfolded
    assert folded.matches(find("line 14")) == Layout(diff).matches(find("line 14"))
    assert len(folded.matches(find("line 14"))) == 2
    header = folded.file_start(app)
    # going back from its header, its lines are all behind: the search wraps around to them last
    assert folded.search(find("line 14"), header, forward=False) == FoldedMatch(app)
    assert folded.search(find("helper"), header, forward=False) not in (None, FoldedMatch(app))
    assert folded.search(find("nowhere to be found"), 0) is None


def test_search_ignores_case_beyond_ascii(project: Repo) -> None:
    project.write("café.txt", "CAFÉ au lait\n")
    layout = Layout(load(project))
    assert layout.search(find("café"), 0) is not None


def test_wrapping_gives_long_lines_several_rows(project: Repo) -> None:
    project.write("long.txt", "x" * 150 + "\n")
    diff = load(project)
    plain = Layout(diff, width=80)
    wrapped = Layout(diff, width=80, wrap=True)
    estimate = wrapped.total
    wrapped.rows_of(0)
    assert wrapped.total == estimate == plain.total + 2


def test_a_line_of_a_megabyte_wraps_in_the_split_view_with_its_comment_after_its_last_row(project: Repo) -> None:
    # Each of its 30,000 rows measured the whole line again: building the file took minutes
    # (the suite's timeout fails this test then).
    project.write("long.txt", "x" * 1_000_000 + "\n")
    diff = load(project)
    comment = Comment(id="c1", path="long.txt", side="new", line=1, body="too long", severity="nit")
    shown = frozenset({"long.txt"})  # a large file, shown when the reviewer asks
    layout = Layout(diff, split=True, wrap=True, width=80, expanded=shown, comments={"long.txt": [comment]})
    rows = layout.rows_of(0)
    parts = [row.part for row in rows if row.kind is RowKind.PAIR]
    assert parts == list(range(math.ceil(1_000_000 / layout._text_width(3))))
    assert rows[rows.index(next(r for r in rows if r.kind is RowKind.PAIR)) + len(parts)].kind is RowKind.COMMENT


def test_a_place_follows_its_line_of_code_when_lines_are_added_above_it(project: Repo) -> None:
    project.write("src/app.py", "".join(f"line {n}\n" if n != 12 else "the commented line\n" for n in range(1, 21)))
    before = Layout(load(project))
    place = before.place(before.find(Place("src/app.py", new=12)) or 0)
    assert (place.new, place.text) == (12, "the commented line")
    text = (project.root / "src/app.py").read_text()
    project.write("src/app.py", "first\nsecond\n" + text)
    after = Layout(load(project))
    found = after.place(after.find(place) or 0)
    assert (found.new, found.text) == (14, "the commented line")


def test_a_blank_line_is_followed_by_its_old_number_not_to_a_nearer_blank(project: Repo) -> None:
    # the committed file has blank lines at 2 and 5; the agent changes line 6 and adds two lines
    # at the top: the blank line that was line 5 is now line 7, and line 4 is the other blank
    project.write("src/app.py", "".join(f"line {n}\n" if n not in (2, 5) else "\n" for n in range(1, 21)))
    project.commit("blank lines")
    project.write(
        "src/app.py",
        "".join(f"line {n}\n" if n not in (2, 5, 6) else "\n" if n != 6 else "six\n" for n in range(1, 21)),
    )
    before = Layout(load(project))
    place = before.place(before.find(Place("src/app.py", new=5)) or 0)
    assert (place.old, place.new, place.text) == (5, 5, "")
    text = (project.root / "src/app.py").read_text()
    project.write("src/app.py", "first\nsecond\n" + text)
    after = Layout(load(project))
    found = after.place(after.find(place) or 0)
    assert (found.old, found.new) == (5, 7)


def test_a_place_whose_code_is_gone_goes_to_the_nearest_line(project: Repo) -> None:
    project.write("src/app.py", "".join(f"line {n}\n" if n != 12 else "the commented line\n" for n in range(1, 21)))
    before = Layout(load(project))
    place = before.place(before.find(Place("src/app.py", new=12)) or 0)
    project.write("src/app.py", "".join(f"line {n}\n" if n != 12 else "rewritten\n" for n in range(1, 21)))
    after = Layout(load(project))
    assert after.place(after.find(place) or 0).new == 12


def test_only_the_rows_of_the_files_used_last_are_kept_and_a_file_is_built_again_the_same(
    project: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layout_module, "KEPT_ROWS", 0)
    monkeypatch.setattr(layout_module, "KEPT_FILES", 2)
    for n in range(5):
        # wide characters: the estimate from the patch bytes is off until a file is built
        project.write(f"wide{n}.txt", "字" * 60 + f"\n{n}\n")
    layout = Layout(load(project), width=80, wrap=True)
    estimate = layout.total
    built = [layout.rows_of(index) for index in range(5)]
    exact = layout.total
    assert exact != estimate
    assert layout.rows_of(4) is built[4]  # kept
    again = layout.rows_of(0)
    assert again is not built[0] and again == built[0]
    assert layout.total == exact  # counts once built are kept: no estimate again
    assert [layout.row(layout.file_start(index)).file for index in range(5)] == [0, 1, 2, 3, 4]
