"""Fuzzing the diff model: git's real output for a generated repository (`diff_corpus`), broken in
every way `diff_mutations` knows, through the model (`parse`, each file's hunks) and the layout
(every row of every file built, and drawn as the view draws it). Nothing escapes but the
program's own clear error, and the viewer shows each file's diff or one clear line in its place.

The figures of a run (inputs, refused, files shown broken): `pytest -m hardening -s
tests/hardening/test_fuzz_diff.py`.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter
from concurrent.futures import Future
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.pilot import Pilot

from conftest import Repo, settle
from drawn import Drawn, plain_palette
from hardening.diff_corpus import build_repository, diffs, isolated_env
from hardening.diff_mutations import MUTATIONS, mutate, records, split_output
from review.errors import ReviewError
from review.repo import git, scope
from review.repo.diff import Diff, FileDiff, parse
from review.repo.git import Worktree
from review.repo.scope import Scope, Sides
from review.repo.text import visible
from review.repo.words import WordChanges
from review.state import comments
from review.state.model import Review
from review.state.opening import FirstDiff
from review.state.store import Store
from review.tui.app import make_app
from review.tui.diff_rows import RowContext, note_for, render_row
from review.tui.layout import Layout, Row, RowKind
from review.tui.screens.review_screen import ReviewScreen, _read_first
from review.tui.widgets.diff_view import DiffView

SEED = 13
MUTATED = 10_000
"""Mutated diffs the seeded loop sends through the model and the layout."""
HYPOTHESIS_EXAMPLES = 2_000
"""Mutated diffs Hypothesis makes (and would shrink, on a failure)."""

View = tuple[bool, bool, int]
"""Split, wrapped, and the width of the view."""
VIEWS: list[View] = [(split, wrap, width) for split in (False, True) for wrap in (False, True) for width in (80, 33)]
"""The ways the viewer lays a diff out: unified or split, wrapped or not, in a usual pane or a
narrow one. Each input is laid out one way, chosen at random."""

DRAWN_PARTS = 3
"""Rows drawn of the start of each wrapped line (and its last): a line of a megabyte wraps into
tens of thousands of rows, of which the view draws those on screen only."""

MESSAGE_LENGTH = 300
"""The most characters an error about broken git output may take, besides a path it names."""


@dataclass(frozen=True)
class Corpus:
    outputs: list[bytes]
    """git's output for the generated repository in every scope."""
    fingerprints: frozenset[str]
    """The fingerprints of its files: a file whose patch a mutation left alone has one of these,
    and only its header is drawn (the test of the corpus draws it whole)."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Made once for the module, in an environment that leaves out the machine's git settings."""
    place = tmp_path_factory.mktemp("corpus")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in isolated_env(place / "home").items():
            patch.setenv(name, value)
        for name in ("GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"):
            patch.delenv(name, raising=False)
        outputs = diffs(build_repository(place / "repo"))
    return Corpus(outputs, frozenset(file.fingerprint for output in outputs for file in parse(output).files))


# -- what the viewer would do with one output ---------------------------------------------------


@dataclass
class Tally:
    """What became of the inputs: the figures of the report."""

    inputs: int = 0
    refused: int = 0
    """Outputs `parse` refused with a clear error (the viewer says it instead of the diff)."""
    shown: int = 0
    files: int = 0
    broken_files: int = 0
    """Files whose hunks could not be parsed (the viewer shows the reason in their place)."""
    rows: int = 0
    drawn: int = 0
    kinds: Counter[str] = field(default_factory=Counter)

    def __str__(self) -> str:
        return (
            f"{self.inputs:,} inputs: {self.refused:,} refused with a clear error, {self.shown:,} shown "
            f"({self.files:,} files, {self.broken_files:,} of them with the reason their patch cannot be read); "
            f"{self.rows:,} rows built, {self.drawn:,} drawn"
        )


PALETTE = plain_palette()


def longest_path(output: bytes) -> int:
    """Characters of the longest path the output's file records name, as an error shows it."""
    raw, _ = split_output(output)
    fields = [part for record in records(raw) for part in record[1:]]
    return max((len(visible(os.fsdecode(part))) for part in fields), default=0)


def assert_clear(message: str, output: bytes) -> None:
    """An error the reviewer is shown: one line, inert, short but for a path it names."""
    assert message, "an empty error"
    assert visible(message) == message, f"control characters in the error: {message[:200]!r}"
    length = MESSAGE_LENGTH + longest_path(output)
    assert len(message) <= length, f"an error of {len(message)} characters: {message[:200]!r}"


def exercise(output: bytes, view: View, tally: Tally, known: frozenset[str] = frozenset()) -> None:
    """Send one output through the model and the layout as the viewer would, laid out `view`'s
    way. Any failure but a `ReviewError` propagates and fails the test; `known` are the
    fingerprints of files whose patch is as git wrote it, of which only the header is drawn."""
    tally.inputs += 1
    try:
        diff = parse(output)
    except ReviewError as error:
        assert_clear(str(error), output)
        tally.refused += 1
        return
    tally.shown += 1
    tally.files += len(diff.files)
    for file in diff.files:
        _ = (file.display_path, file.large, file.moved_unchanged, file.mode_changed, file.line_kinds)
        try:
            _ = file.hunks
        except ReviewError as error:
            assert_clear(str(error), output)
            tally.broken_files += 1
    split, wrap, width = view
    layout = Layout(diff, split=split, wrap=wrap, width=width)
    built = 0
    words: dict[tuple[int, int], WordChanges] = {}
    for index, file in enumerate(diff.files):
        rows = layout.rows_of(index)
        tally.rows += len(rows)
        built += len(rows)
        shows_diff(layout, index, rows)
        drawn = rows[:1] if file.fingerprint in known else [row for at, row in enumerate(rows) if shown(rows, at)]
        for row in drawn:
            draw(layout, row, words)
        tally.drawn += len(drawn)
    # the count before parsing was corrected as each file was built (a broken file is one note)
    assert layout.total == built


def shown(rows: list[Row], at: int) -> bool:
    """Whether the row at `at` is drawn: all but the middle rows of a long wrapped line (its
    first `DRAWN_PARTS` and its last, which carries the line's end and its notes)."""
    return rows[at].part < DRAWN_PARTS or at + 1 == len(rows) or rows[at + 1].part == 0


def shows_diff(layout: Layout, index: int, rows: list[Row]) -> None:
    """A file's rows show its hunks, or one line in their place: the reason its patch cannot be
    read, or what it is (binary, renamed, empty...)."""
    kinds = [row.kind for row in rows]
    assert kinds[0] is RowKind.FILE and kinds[-1] is RowKind.GAP
    notes = kinds.count(RowKind.NOTE)
    if index in layout.errors:
        assert notes == 1 and RowKind.HUNK not in kinds
    else:
        assert (notes == 1) != (RowKind.HUNK in kinds), kinds


def draw(layout: Layout, row: Row, words: dict[tuple[int, int], WordChanges]) -> None:
    """Draw a row as the view does (its changed words marked): it fills the width, with nothing
    a terminal would act on; a note says why the file's content is not shown."""
    changes = None
    if row.kind in (RowKind.LINE, RowKind.PAIR):
        layout.lines_of(row)
        key = (row.file, row.hunk)
        if key not in words:
            words[key] = WordChanges(layout.diff.files[row.file].hunks[row.hunk])
        changes = words[key]
    strip = render_row(row, RowContext(layout, PALETTE, layout.width, 0, None, changes, None, False))
    assert strip.cell_length == layout.width
    text = strip.text
    assert visible(text) == text, f"a control character drawn: {text[:200]!r}"
    if row.kind is RowKind.NOTE:
        reason = layout.errors.get(row.file) or note_for(layout.diff.files[row.file])
        assert text.strip().startswith(reason[: layout.width - 8].strip())


# -- the model and the layout ------------------------------------------------------------------


def test_the_corpus_is_every_kind_of_change_and_is_read_whole(corpus: Corpus) -> None:
    tally = Tally()
    for output in corpus.outputs:
        for view in VIEWS:
            exercise(output, view, tally)
    assert tally.refused == 0 and tally.broken_files == 0
    statuses = {file.status.letter for output in corpus.outputs for file in parse(output).files}
    assert statuses >= {"A", "M", "D", "R", "C", "T"}
    files = [file for output in corpus.outputs for file in parse(output).files]
    lines = [line for file in files for hunk in file.hunks for line in hunk.lines]
    assert any(file.binary for file in files) and any(not file.utf8 for file in files)
    assert any(line.crlf for line in lines) and any(line.no_newline for line in lines)


def test_ten_thousand_mutated_diffs_end_in_the_diff_or_a_clear_error(corpus: Corpus) -> None:
    rng = random.Random(SEED)
    tally = Tally()
    for _ in range(MUTATED):
        output, names = mutate(rng, rng.choice(corpus.outputs))
        tally.kinds.update(names)
        try:
            exercise(output, rng.choice(VIEWS), tally, corpus.fingerprints)
        except Exception as error:
            raise AssertionError(f"{names} (input {tally.inputs}): {type(error).__name__}: {error}") from error
    print(f"\nseeded mutations: {tally}\n  by mutation: {dict(tally.kinds)}")
    assert tally.inputs == MUTATED
    assert set(tally.kinds) == set(MUTATIONS)
    # each way out was taken many times: refused whole, a file shown broken, shown as it is
    assert tally.refused > 1_000 and tally.broken_files > 500 and tally.shown > 1_000


@st.composite
def broken_outputs(draw: st.DrawFn, outputs: list[bytes]) -> bytes:
    """A corpus output broken by named mutations (their randomness from a drawn seed), and bytes
    of Hypothesis's own choosing spliced in: all of it shrinks to the least that still fails."""
    output = draw(st.sampled_from(outputs))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    for name in draw(st.lists(st.sampled_from(sorted(MUTATIONS)), max_size=3)):
        output = MUTATIONS[name](rng, output)
    if draw(st.booleans()):
        at = draw(st.integers(0, len(output)))
        cut = draw(st.integers(0, 16))
        output = output[:at] + draw(st.binary(max_size=48)) + output[at + cut :]
    return output


def test_what_hypothesis_breaks_ends_in_the_diff_or_a_clear_error(corpus: Corpus) -> None:
    tally = Tally()

    @settings(
        max_examples=HYPOTHESIS_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(broken_outputs(corpus.outputs), st.sampled_from(VIEWS))
    def check(output: bytes, view: View) -> None:
        exercise(output, view, tally, corpus.fingerprints)

    check()
    print(f"\nHypothesis: {tally}")
    assert tally.inputs >= HYPOTHESIS_EXAMPLES


# -- the viewer --------------------------------------------------------------------------------

SIZE = (100, 30)


def delivered(worktree: Worktree, sides: Sides, output: bytes) -> FirstDiff:
    """`output` read as `opening.read_apart` reads git's (its reading thread, run here): the diff
    and the review found in it, or the error either raised."""
    reading: Future[Diff] = Future()
    anchoring: Future[Review] = Future()
    try:
        reading.set_result(parse(output))
        anchoring.set_result(comments.reanchor_on(Store(worktree.root), worktree, sides.old, reading.result()))
    except Exception as error:
        for future in (reading, anchoring):
            if not future.done():
                future.set_exception(error)
    checked: Future[bool] = Future()
    checked.set_result(True)
    coloured = threading.Event()
    coloured.set()
    return FirstDiff(sides, reading, anchoring, time.time(), threading.Event(), checked, coloured)


Samples = tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]


@pytest.fixture(scope="module")
def samples(corpus: Corpus) -> Samples:
    """A mutated diff of each kind that `parse` refuses, where the kind can make one; and one it
    reads, with a file whose patch cannot be read where the kind can break one, else with a
    file it changed."""
    rng = random.Random(SEED)
    refused: list[tuple[str, bytes]] = []
    shown: list[tuple[str, bytes]] = []
    for name, mutation in MUTATIONS.items():
        changed: bytes | None = None
        broken: bytes | None = None
        said = False
        for _ in range(80):
            output = mutation(rng, rng.choice(corpus.outputs))
            try:
                diff = parse(output)
            except ReviewError:
                if not said:
                    refused.append((name, output))
                    said = True
                continue
            if len(diff.files) < 2 or all(file.fingerprint in corpus.fingerprints for file in diff.files):
                continue
            changed = changed or output
            if any(not _readable(file) for file in diff.files):
                broken = output
            if said and broken:
                break
        if broken or changed:
            shown.append((name, broken or changed))  # type: ignore[arg-type]
    return refused, shown


def _readable(file: FileDiff) -> bool:
    try:
        _ = file.hunks
    except ReviewError:
        return False
    return True


def screen_of(pilot: Pilot) -> ReviewScreen:  # type: ignore[type-arg]
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


def assert_inert(drawn: Drawn) -> None:
    for row in drawn.rows:
        line = row.rstrip("\n")
        assert visible(line) == line, f"a control character on screen: {row!r}"


async def keys_still_work(pilot: Pilot) -> None:  # type: ignore[type-arg]
    view = screen_of(pilot).query_one(DiffView)
    split = view.split
    await pilot.press("s")
    assert view.split is not split
    await pilot.press("s", "G", "k", "}")
    assert view.split is split


@pytest.fixture
def worktree(project: Repo) -> Worktree:
    return git.find_worktree(project.root)


async def test_a_diff_git_output_cannot_be_read_from_is_one_clear_message_on_screen(
    samples: Samples, worktree: Worktree
) -> None:
    sides = scope.resolve(worktree, Scope())
    refused, _ = samples
    assert len(refused) >= 10
    for name, output in refused[:4]:
        first = delivered(worktree, sides, output)
        message = str(first[1].exception())
        async with make_app(worktree, watch=False, first=first).run_test(size=SIZE, notifications=True) as pilot:
            await pilot.pause()
            drawn = Drawn.of(pilot.app.export_screenshot())
            assert_inert(drawn)
            said = [row[row.index("Cannot show") :].rstrip() for row in drawn.rows if "Cannot show the diff: " in row]
            assert len(said) == 1, (name, drawn.rows)
            assert len(said[0]) > 40 and f"Cannot show the diff: {message}".startswith(said[0]), (name, said)
            assert not any("Traceback" in row for row in drawn.rows)
            # the header names the worktree and its branch, as above a diff
            assert drawn.rows[0].split()[:2] == [worktree.root.name, "main"], drawn.rows[0]
            await pilot.press("j", "s", "G", "question_mark")
            assert pilot.app.screen.__class__.__name__ == "HelpScreen"
            await pilot.press("escape")


async def test_the_viewer_shows_each_mutated_diff_or_the_reason_a_file_cannot_be_shown(
    corpus: Corpus, samples: Samples, worktree: Worktree
) -> None:
    sides = scope.resolve(worktree, Scope())
    _, shown = samples
    assert len(shown) >= 15
    async with make_app(worktree, watch=False).run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        view = screen.query_one(DiffView)
        broken = 0
        for name, output in shown:
            # as the loading worker hands a diff read again to the screen
            screen._loaded(*_read_first(delivered(worktree, sides, output)))
            await pilot.pause()
            layout = view.diff_layout
            assert screen.diff is not None and layout is not None
            assert len(screen.diff.files) > 1 and layout.total > 0
            assert_inert(Drawn.of(pilot.app.export_screenshot()))
            # a file whose patch cannot be read shows why, in its place (layout.errors has the
            # files built so far, the one first on screen among them)
            for index in [i for i, file in enumerate(screen.diff.files) if file.fingerprint not in corpus.fingerprints][
                :2
            ]:
                view.go_to_file(index)
                await pilot.pause()
                drawn = Drawn.of(pilot.app.export_screenshot())
                assert_inert(drawn)
                if index in layout.errors:
                    reason = layout.errors[index][: SIZE[0] // 2]
                    assert any(reason in row for row in drawn.rows), (name, reason, drawn.rows)
                    broken += 1
            await keys_still_work(pilot)
        await settle(pilot)
    assert broken >= 5, "too few files shown with the reason they cannot be read"


def test_the_viewer_samples_cover_every_mutation(samples: Samples) -> None:
    refused, shown = samples
    assert {name for name, _ in refused} | {name for name, _ in shown} == set(MUTATIONS)
