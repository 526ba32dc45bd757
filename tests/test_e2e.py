"""End to end: the real `review` command in tmux, driven by keys as a person would."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tmux import Terminal, review_command

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")

REVIEW = review_command()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("e2e") / "demo"
    subprocess.run([REVIEW, "demo", str(folder), "--no-open"], check=True, capture_output=True)
    return folder


def demo_copy(tmp_path: Path) -> Path:
    """A demo of the test's own, for a test that changes it (or its review)."""
    copy = tmp_path / "copy"
    subprocess.run([REVIEW, "demo", str(copy), "--no-open"], check=True, capture_output=True)
    return copy


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    made = Terminal(tmp_path)
    yield made
    made.close()


def open_review(terminal: Terminal, *args: str) -> None:
    terminal.run(" ".join([REVIEW, *args]))


def test_review_a_demo_worktree_with_keys(terminal: Terminal, demo: Path) -> None:
    open_review(terminal, str(demo / "tally-currency"))
    screen = terminal.wait_for("A tally/currency.py")
    assert "tally-currency" in screen and "agent/currency" in screen
    assert "main...working tree" in screen
    assert '"""Converting amounts between currencies at fixed rates."""' in screen

    terminal.keys("}")
    screen = terminal.wait_for("M tally/ledger.py  +6 −3")
    assert "from tally.currency import convert" in screen

    terminal.keys("]", "]")
    screen = terminal.wait_for('def total(entries, currency="EUR"):')

    terminal.keys("s")
    screen = terminal.wait_for("│")
    row = next(line for line in screen.splitlines() if "def total(entries):" in line)
    assert 'def total(entries, currency="EUR"):' in row  # old and new side by side

    terminal.keys("s")
    terminal.wait_until_gone("│")
    terminal.keys("/")
    terminal.wait_for("search (enter: find")
    terminal.literal("RATES[target]")
    terminal.wait_for(" RATES[target]")
    terminal.keys("Enter")
    screen = terminal.wait_for("return amount * RATES[source] / RATES[target]")

    terminal.keys("G")
    terminal.wait_for("test_total_adds_every_amount_in_euros")

    terminal.keys("q")
    terminal.wait_until_gone("Hunk")


def test_the_first_screen_comes_whole_with_its_colours(terminal: Terminal, demo: Path) -> None:
    # The first screen that shows the diff already has everything else: the header's totals,
    # the file list with its cursor, the footer, and the code's syntax colours.
    open_review(terminal, str(demo / "tally-currency"))
    screen = terminal.first_with("Converting amounts between currencies")
    plain = re.sub(r"\x1b\[[\d;]*m", "", screen)
    assert "7 files  +29 −13" in plain
    assert "currency.py +11 −0" in plain and "ledger.py +6 −3" in plain
    assert "? Help" in plain and "q Quit" in plain
    docstring = next(line for line in screen.splitlines() if "Converting amounts" in line)
    code = next(
        line
        for line in screen.splitlines()
        if "def convert(amount, source, target):" in re.sub(r"\x1b\[[\d;]*m", "", line)
    )
    # the keyword and the name are drawn in colours of their own, not the docstring's
    colours = {m.group(1) for m in re.finditer(r"\x1b\[[\d;]*?38;([\d;]+?)(?:;48;[\d;]+)?m", code)}
    assert len(colours) >= 2, code
    # and the docstring in another than the plain text's (the file list's name on its row)
    assert _colour_before(docstring, '"""Converting') != _colour_before(docstring, "ledger.py"), docstring
    terminal.keys("q")


def _colour_before(line: str, text: str) -> str:
    """The foreground colour in effect where `text` starts on a line of `capture-pane -e`."""
    colours = re.findall(r"\x1b\[(?:[\d;]*;)?38;(5;\d+|2;\d+;\d+;\d+)", line[: line.index(text)])
    return colours[-1] if colours else "default"


def test_viewed_mark_is_kept_across_runs(terminal: Terminal, demo: Path, tmp_path: Path) -> None:
    copy = demo_copy(tmp_path)
    open_review(terminal, str(copy / "tally-cleanup"))
    terminal.wait_for("0/7 viewed")
    terminal.keys("x")
    terminal.wait_for("1/7 viewed")
    terminal.keys("q")
    terminal.wait_until_gone("Hunk")
    open_review(terminal, str(copy / "tally-cleanup"))
    terminal.wait_for("1/7 viewed")
    terminal.keys("q")


@pytest.mark.parametrize("size", [(80, 24), (300, 80)])
def test_small_and_large_terminals(tmp_path: Path, demo: Path, size: tuple[int, int]) -> None:
    terminal = Terminal(tmp_path, width=size[0], height=size[1])
    try:
        open_review(terminal, str(demo / "tally-csv-export"))
        screen = terminal.wait_for("README.md")
        lines = screen.splitlines()
        assert len(lines) == size[1]
        assert all(len(line) <= size[0] for line in lines)
        terminal.keys("s")
        terminal.wait_for("│")
        terminal.keys("q")
    finally:
        terminal.close()


def test_no_color_still_shows_the_diff(tmp_path: Path, demo: Path) -> None:
    terminal = Terminal(tmp_path, env={"NO_COLOR": "1"})
    try:
        open_review(terminal, str(demo / "tally-currency"))
        terminal.wait_for("A tally/currency.py")
        styled = terminal.tmux("capture-pane", "-p", "-e", "-t", "main")
        # only shades of grey are left (tmux reports them from the 256-colour palette)
        colours = {int(n) for n in re.findall(r"[34]8;5;(\d+)", styled)}
        assert colours and colours <= set(range(232, 256)) | {0, 7, 8, 15, 16, 231}
        assert not re.search(r"[34]8;2;", styled)
        terminal.keys("q")
    finally:
        terminal.close()


def test_escape_sequences_from_the_repository_stay_inert(terminal: Terminal, tmp_path: Path) -> None:
    repo = tmp_path / "evil"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    name = "x\x1b]0;pwned-by-name\x07.txt"
    (repo / name).write_text("\x1b]0;pwned-by-content\x07 \x1b[2J\x1b[31mred\n")
    terminal.tmux("select-pane", "-t", "main", "-T", "clean-title")
    open_review(terminal, str(repo))
    screen = terminal.wait_for("^[]0;pwned-by-name^G.txt")
    assert "^[]0;pwned-by-content^G ^[[2J^[[31mred" in screen
    assert terminal.title() == "clean-title"
    terminal.keys("q")


def test_errors_are_one_line_in_the_terminal(terminal: Terminal, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    open_review(terminal, str(plain))
    screen = terminal.wait_for("is not inside a git repository")
    assert "Traceback" not in screen


def test_comment_on_two_lines_send_and_the_agent_reads_them(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    subprocess.run([REVIEW, "demo", str(folder), "--no-open"], check=True, capture_output=True)
    worktree = folder / "tally-currency"
    terminal = Terminal(tmp_path, width=120, height=40)
    try:
        open_review(terminal, str(worktree))
        terminal.wait_for("A tally/currency.py")
        terminal.keys("/")
        terminal.wait_for("search (enter: find")
        terminal.literal("def convert")
        terminal.keys("Enter")
        terminal.wait_for("match 1/")  # the search is done: the header counts its matches
        terminal.keys("c")
        terminal.wait_for("Comment on tally/currency.py:7")
        terminal.literal("Name the arguments: amount, from, to.")
        terminal.keys("C-s")
        # the text shows in the editor as it is typed: wait for the editor to close first
        terminal.wait_until_gone("Comment on tally/currency.py:7")
        terminal.wait_for("Name the arguments: amount, from, to.")

        terminal.keys("}")
        terminal.wait_for("M tally/ledger.py")
        terminal.keys("/")
        terminal.wait_for("search (enter: find")
        terminal.literal('currency: str = "EUR"')
        terminal.keys("Enter")
        terminal.wait_for("match 1/")  # the search is done: the header counts its matches
        terminal.keys("c")
        terminal.wait_for("Comment on tally/ledger.py:17")
        terminal.keys("C-t")
        terminal.literal("Use an enum for currencies.")
        terminal.keys("C-s")
        terminal.wait_until_gone("Comment on tally/ledger.py:17")
        terminal.wait_for("Use an enum for currencies.")

        terminal.keys("S")
        terminal.wait_for("2 draft comments will be sent")
        terminal.literal("Two small things")
        terminal.keys("C-s")
        terminal.wait_for("Sent review r1: 2 comments.")
    finally:
        terminal.close()

    # another shell, as the agent
    done = subprocess.run([REVIEW, "pending", "--json"], cwd=worktree, capture_output=True, text=True, check=True)
    data = json.loads(done.stdout)
    assert data["round"]["summary"] == "Two small things"
    found = {(c["path"], c["line"], c["severity"], c["body"], tuple(c["code"])) for c in data["comments"]}
    assert found == {
        (
            "tally/currency.py",
            7,
            "should",
            "Name the arguments: amount, from, to.",
            ("def convert(amount, source, target):",),
        ),
        ("tally/ledger.py", 17, "question", "Use an enum for currencies.", ('    currency: str = "EUR"',)),
    }


def cursor_rows(terminal: Terminal, colour: str | None, column: int) -> list[int]:
    """The rows whose cell at `column` (inside the diff) has the cursor's background."""
    return [row for row, cells in enumerate(terminal.backgrounds()) if len(cells) > column and cells[column] == colour]


def test_the_highlighted_row_is_the_row_c_comments_on(terminal: Terminal, tmp_path: Path) -> None:
    copy = demo_copy(tmp_path)
    terminal.env["COLORTERM"] = "truecolor"
    open_review(terminal, str(copy / "tally-currency"))
    terminal.wait_for("A tally/currency.py")
    terminal.settled()
    column = 60  # inside the diff, right of the file list
    # the cursor starts on the diff's first row, under the header: its colour is the cursor's
    colour = terminal.backgrounds()[1][column]
    assert cursor_rows(terminal, colour, column) == [1]

    seen = set()
    for keys in (("G",), ("k", "k", "k"), ("}",), ("]",), ("j", "j"), ("{",), ("b",), ("G", "k", "k", "k")):
        terminal.keys(*keys)
        terminal.settled()
        rows = cursor_rows(terminal, colour, column)
        assert len(rows) == 1, f"after {keys} the cursor is drawn on rows {rows}:\n{terminal.screen()}"
        seen.add(rows[0])
    assert len(seen) > 3  # it really moved about the screen
    # the row drawn as the cursor is the line the comment editor opens on
    line = terminal.screen().splitlines()[rows[0]]
    numbers = re.findall(r"\b\d+\b", line[30:45])
    assert numbers, f"no line number on the highlighted row: {line!r}"
    terminal.keys("c")
    screen = terminal.wait_for("Comment on ")
    title = next(text for text in screen.splitlines() if "Comment on " in text)
    assert f":{numbers[-1]}" in title, (line, title)


def test_the_file_lists_cursor_is_drawn_on_one_row_as_it_moves(terminal: Terminal, tmp_path: Path) -> None:
    # the list draws again only the rows its cursor leaves and takes: the terminal must show one
    copy = demo_copy(tmp_path)
    terminal.env["COLORTERM"] = "truecolor"
    open_review(terminal, str(copy / "tally-currency"))
    terminal.wait_for("A tally/currency.py")
    terminal.keys("Tab")
    terminal.settled()
    column = 6  # inside the name of every row of the list
    rows = terminal.screen().splitlines()
    first = next(row for row, text in enumerate(rows) if "A currency.py" in text[:30])
    colour = terminal.backgrounds()[first][column]
    assert cursor_rows(terminal, colour, column) == [first]
    for keys, moved in (
        (("j", "j", "j"), 3),
        (("k",), 2),
        (("j", "j", "j", "j", "j"), 7),
        (("k", "k", "k"), 4),
        (("j", "j"), 6),
    ):
        terminal.keys(*keys)
        terminal.settled()
        assert cursor_rows(terminal, colour, column) == [first + moved], terminal.screen()
    assert "A test_currency.py" in terminal.screen().splitlines()[first + 6][:30]
    terminal.keys("Enter")  # and the diff shows the file under the cursor
    terminal.wait_for("▾ A tests/test_currency.py")
    terminal.keys("x")  # viewed: the list draws that row again, with its mark
    terminal.wait_for("A test_currency.py +9 −0 ✓")


def test_the_diffs_scrollbar_follows_the_keys_and_the_mouse(terminal: Terminal, tmp_path: Path) -> None:
    # The diff draws its scrollbar itself, in its last two columns: the terminal shows the thumb
    # where the diff is, and a press on the bar or a drag of the thumb, sent as a terminal sends
    # the mouse (SGR mouse reports), scrolls the diff.
    repo = tmp_path / "long"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "notes.txt").write_text("".join(f"note {n}\n" for n in range(1, 131)))
    terminal.env["COLORTERM"] = "truecolor"
    open_review(terminal, str(repo))
    terminal.wait_for("A notes.txt")
    terminal.settled()
    bar = 119  # the terminal's last column: 120 wide

    def thumb() -> list[int]:
        shown = terminal.backgrounds(reverse=True)
        return [row for row, cells in enumerate(shown) if len(cells) > bar and cells[bar] == colour]

    # the thumb at the top: some 9 rows of the 34 the diff shows of its 132
    colour = terminal.backgrounds(reverse=True)[1][bar]
    assert terminal.backgrounds(reverse=True)[30][bar] != colour
    at_top = thumb()
    assert at_top[0] == 1 and 7 <= len(at_top) <= 10, at_top
    terminal.keys("Space")  # a page down
    terminal.settled()
    paged = thumb()
    assert paged[0] > at_top[0] + 5, paged

    def mouse(button: int, column: int, row: int, pressed: bool = True) -> None:
        terminal.literal(f"\x1b[<{button};{column + 1};{row + 1}{'M' if pressed else 'm'}")

    mouse(0, bar, 33)  # a press below the thumb: a page further
    mouse(0, bar, 33, pressed=False)
    terminal.settled()
    further = thumb()
    assert further[0] > paged[0] + 5, further
    mouse(0, bar, further[2])  # the thumb dragged back up, past the top
    mouse(32, bar, 10)
    mouse(32, bar, 0)
    mouse(0, bar, 0, pressed=False)
    terminal.settled()
    assert thumb()[0] == 1
    assert "▾ A notes.txt" in terminal.screen().splitlines()[1]
    terminal.keys("q")


def test_opened_again_the_first_screen_has_the_same_colours_from_those_remembered(
    terminal: Terminal, tmp_path: Path
) -> None:
    # the second time, the first screen's syntax colours are the ones remembered from the first
    # (review.state.colours): the reviewer sees the very same screen
    copy = demo_copy(tmp_path)
    remembered = Path(os.environ["XDG_CACHE_HOME"]) / "review" / "colours"
    screens = []
    for _ in range(2):
        open_review(terminal, str(copy / "tally-currency"))
        screens.append(terminal.first_with("A tally/currency.py"))  # the first frame, in colour
        deadline = time.monotonic() + 30
        while not any(remembered.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.1)
        terminal.keys("q")
        terminal.wait_until_gone("A tally/currency.py")
    assert any(remembered.glob("*.json"))
    assert screens[0] == screens[1]
    assert re.search(r"\x1b\[[0-9;]*m(from|import|def|class)\b", screens[1])  # keywords in their colour


def test_the_demo_opens_the_overview_and_says_where_its_worktrees_are(terminal: Terminal, tmp_path: Path) -> None:
    folder = tmp_path / "fresh-demo"
    open_review(terminal, "demo", str(folder))
    screen = terminal.wait_for("Waiting on you")  # the overview is open
    assert "4 worktrees" in screen
    terminal.keys("q")
    terminal.wait_for("Open the overview with:")
    # (the paths are long: the shell wraps them at the terminal's edge, and prints them in turn)
    for name in ("tally-currency", "tally-csv-export", "tally-cleanup"):
        terminal.wait_for(str(folder / name), joined=True)


# The overview


def row_line(screen: str, name: str) -> str:
    """The overview's row of a worktree: the line on which its name comes first (after a queue number)."""
    for line in screen.splitlines():
        words = line.split()
        if words and (words[0] == name or (len(words) > 1 and words[0].isdigit() and words[1] == name)):
            return line
    raise AssertionError(f"no row for {name}:\n{screen}")


def test_the_overview_marks_the_two_conflicting_agents_and_status_json_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    subprocess.run([REVIEW, "demo", str(folder), "--no-open"], check=True, capture_output=True)
    terminal = Terminal(tmp_path, width=160, height=48)
    try:
        open_review(terminal, "all", str(folder / "tally"))
        screen = terminal.wait_for("✗ tally-currency")
        assert "✗ tally-csv-export" in row_line(screen, "tally-currency")
        assert "✗ tally-currency" in row_line(screen, "tally-csv-export")
        assert "✗" not in row_line(screen, "tally")  # main changes nothing
        # the detail pane of the row under the cursor (the first in the queue) shows the hunk
        screen = terminal.wait_for('def total(entries, currency="EUR"):')
        assert "merging both conflicts in tally/ledger.py" in screen
        assert 'def total(entries, currency="EUR"):' in screen
        assert "def total(entries, category=None):" in screen
    finally:
        terminal.close()
    done = subprocess.run([REVIEW, "status", "--json", str(folder / "tally")], capture_output=True, text=True)
    rows = {Path(row["path"]).name: row for row in json.loads(done.stdout)["worktrees"]}
    for one, other in (("tally-currency", "tally-csv-export"), ("tally-csv-export", "tally-currency")):
        overlap = next(o for o in rows[one]["overlaps"] if Path(o["worktree"]).name == other)
        assert overlap["conflict"] is True and overlap["conflict_files"] == ["tally/ledger.py"]


def test_going_through_the_queue_from_the_overview_and_back(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    subprocess.run([REVIEW, "demo", str(folder), "--no-open"], check=True, capture_output=True)
    terminal = Terminal(tmp_path, width=120, height=36)
    try:
        open_review(terminal, "all", str(folder / "tally"))
        terminal.wait_for("Waiting on you")
        terminal.settled()
        first = highlighted_name(terminal)
        terminal.keys("Enter")
        screen = terminal.wait_for("main...working tree")
        assert screen.split()[0] == first  # the header names the worktree opened
        terminal.keys("W")  # the next worktree that waits on the reviewer
        screen = terminal.wait_for("o Overview")
        second = next(name for name in ("tally-currency", "tally-cleanup") if name != first)
        terminal.wait_for(f" {second} ")
        terminal.keys("o")
        terminal.wait_for("Waiting on you")
        terminal.settled()
        assert highlighted_name(terminal) == second  # the overview kept its place on the last one opened
    finally:
        terminal.close()


def highlighted_name(terminal: Terminal) -> str:
    """The worktree on the row drawn with the cursor's background."""
    screen = terminal.screen().splitlines()
    backgrounds = terminal.backgrounds()
    names = {"tally", "tally-currency", "tally-csv-export", "tally-cleanup"}
    # below the summary line, the table's rows: a queue number or a name first
    rows = [index for index, line in enumerate(screen) if index > 0 and set(line.split()[:2]) & names]
    counts: dict[str | None, list[int]] = {}
    for index in rows:
        colour = backgrounds[index][4] if len(backgrounds[index]) > 4 else None
        if colour is not None:  # the detail pane below names worktrees too, on no background
            counts.setdefault(colour, []).append(index)
    # the cursor's row is the one whose background no other row has
    lonely = [found[0] for found in counts.values() if len(found) == 1]
    assert len(lonely) == 1, (counts, screen)
    words = screen[lonely[0]].split()
    return next(word for word in words if word in names)


def test_the_overview_follows_an_agent_answering_from_another_pane(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    subprocess.run([REVIEW, "demo", str(folder), "--no-open"], check=True, capture_output=True)
    currency = folder / "tally-currency"
    subprocess.run(
        [REVIEW, "comment", "tally/ledger.py:20", "-m", "Use Decimal for money", "-C", str(currency)],
        check=True,
        capture_output=True,
    )
    subprocess.run([REVIEW, "send", "-C", str(currency)], check=True, capture_output=True)
    terminal = Terminal(tmp_path, width=160, height=48)
    try:
        open_review(terminal, "all", str(folder / "tally"))
        wait_for_row(terminal, "main", "tally-currency", "comments to address")
        # the agent's side, in a pane of its own in the worktree: it reads the review and answers
        overview_pane = terminal.tmux("display-message", "-p", "-t", "main", "#{pane_id}").strip()
        terminal.tmux("split-window", "-t", "main", "-v", "-c", str(currency))
        agent_pane = terminal.tmux("display-message", "-p", "-t", "main", "#{pane_id}").strip()
        assert agent_pane != overview_pane
        terminal.tmux(
            "send-keys", "-t", agent_pane, "-l", f"{REVIEW} pending >/dev/null && {REVIEW} resolve c1 -m 'Decimal now'"
        )
        terminal.tmux("send-keys", "-t", agent_pane, "Enter")
        overview = wait_for_row(terminal, overview_pane, "tally-currency", "addressed")
        assert "Waiting on you" in overview
    finally:
        terminal.close()


def wait_for_row(terminal: Terminal, pane: str, name: str, text: str, timeout: float = 30.0) -> str:
    """The pane's screen once the overview's row of `name` says `text` (a pane is drawn again
    from blank when it is resized, and rows come in as they are read)."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = terminal.tmux("capture-pane", "-p", "-t", pane)
        try:
            if text in row_line(screen, name):
                return screen
        except AssertionError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"the row of {name} never said {text!r}:\n{screen}")


def test_approving_a_worktree_on_a_phone_sized_terminal(tmp_path: Path) -> None:
    """At 50 by 25 (a phone's SSH app): the next worktree that waits on the reviewer, the agent's
    answer read in the comments pop-up, the approval in one key and a confirm, and back in the
    overview its row says approved."""
    folder = tmp_path / "demo"
    subprocess.run([REVIEW, "demo", str(folder), "--no-open"], check=True, capture_output=True)
    currency = folder / "tally-currency"
    for verb in (
        ["comment", "tally/ledger.py:20", "-m", "Why convert here, not when an entry is made?"],
        ["send", "-m", "One question"],
        ["reply", "c1", "-m", "Entries keep their currency; the total converts them."],
        ["resolve", "c1", "-m", "Said so in the docstring"],
    ):
        subprocess.run([REVIEW, *verb], cwd=currency, check=True, capture_output=True)
    terminal = Terminal(tmp_path, width=50, height=25)
    try:
        open_review(terminal, "all", str(folder / "tally"))
        screen = terminal.wait_for("i detail")
        assert "W next" in screen and "? more" in screen
        terminal.keys("W")
        screen = terminal.wait_for("A approve")
        if screen.split()[0] != "tally-currency":  # cleanup waits on the reviewer too
            terminal.keys("W")
            screen = terminal.wait_for(" tally-currency ")
        assert screen.split()[0] == "tally-currency", screen
        assert all(len(line) <= 50 for line in screen.splitlines())

        terminal.keys("p")
        screen = terminal.wait_for("Comments (1)")
        said = " ".join(screen.replace("│", " ").replace("▊", " ").replace("▎", " ").split())
        assert "agent: Entries keep their currency; the total converts them." in said, screen
        terminal.keys("Escape")
        terminal.wait_until_gone("Comments (1)")

        terminal.keys("A")
        terminal.wait_for("Approve tally-currency?")
        terminal.keys("y")
        terminal.wait_for("Sent review r2")
        terminal.keys("o")
        terminal.wait_for("i detail")
        deadline = time.monotonic() + 30
        while True:
            rows = [line for line in terminal.screen().splitlines() if "currency " in line.split("✗")[0]]
            if any("approved" in row for row in rows) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert any("approved" in row for row in rows), terminal.screen()
        terminal.keys("q")
    finally:
        terminal.close()


def test_a_large_diff_opened_again_shows_what_git_reads_after_the_agent_wrote_more(tmp_path: Path) -> None:
    # A diff of more than 4 MB of patches opens from its files' counts the second time
    # (review.state.counted): the reviewer sees the same as git says, the file the agent wrote
    # since included, and the files git read behind the first screen (the last one, by G).
    repo = tmp_path / "repo"

    def git(*args: str, cwd: Path = repo) -> str:
        return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout

    repo.mkdir()
    git("init", "-q", "-b", "main")
    names = [f"src/part_{n:02}.py" for n in range(24)]
    for n, name in enumerate(names):
        (repo / name).parent.mkdir(exist_ok=True)
        (repo / name).write_text(
            "".join(f"value_{n}_{i} = compute_{i}(old_input_{i})  # before\n" for i in range(2500))
        )
    git("add", "-A")
    git("commit", "-qm", "the parts")
    agent = tmp_path / "agent"
    git("worktree", "add", "-q", "-b", "agent/work", str(agent))
    for n, name in enumerate(names):
        (agent / name).write_text(
            "".join(f"value_{n}_{i} = compute_{i}(new_input_{i})  # after\n" for i in range(2500))
        )
    time.sleep(2.1)  # files written this shortly before a reading are not remembered
    counts = Path(os.environ["XDG_CACHE_HOME"]) / "review" / "counts"
    terminal = Terminal(tmp_path, width=120, height=36)
    try:
        open_review(terminal, str(agent))
        terminal.wait_for("24 files")
        deadline = time.monotonic() + 30
        while not any(counts.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert any(counts.glob("*.json"))
        terminal.keys("q")
        terminal.wait_until_gone("24 files")

        # the agent goes on, in a file past the first screen
        with open(agent / names[20], "a") as file:
            file.write("".join(f"extra_{i} = {i}\n" for i in range(7)))
        added, removed = (
            int(n) for n in re.findall(r"(\d+) (?:insertion|deletion)", git("diff", "--shortstat", "main", cwd=agent))
        )
        open_review(terminal, str(agent))
        screen = terminal.wait_for(f"+{added:,} −{removed:,}".replace(",", ""))
        assert "Traceback" not in screen
        terminal.keys("G")
        terminal.wait_for("2500 + value_23_2499 = compute_2499(new_input_2499)  # after")
        terminal.keys("/")
        terminal.wait_for("search (enter: find")
        terminal.literal("extra_6 = 6")
        terminal.keys("Enter")
        screen = terminal.wait_for("match 1/1")
        assert "+ extra_6 = 6" in screen
    finally:
        terminal.close()


TYPED_APART = 0.07
"""Seconds between keys typed one after the other (`_bursts`): a quick typist's."""


def _bursts(
    argv: list[str],
    size: tuple[int, int] = (120, 36),
    quiet: float = 1.0,
    keys: list[bytes | tuple[bytes, ...]] | None = None,
    longest: float = 30.0,
) -> list[bytes]:
    """What a program writes to its terminal until it has been quiet for `quiet` seconds, read
    from a pseudo-terminal as it comes, in bursts: writes less than 15 ms apart (Textual writes
    a frame at once). Each of `keys` is typed once it is quiet (a tuple's keys `TYPED_APART`
    seconds apart), and starts a burst (empty until the program answers); it never reads for
    more than `longest` seconds."""
    import fcntl
    import pty
    import select
    import signal
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # (the child: the program, in the terminal's size)
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        os.execvpe(argv[0], argv, {**os.environ, "TERM": "xterm-256color"})
    bursts: list[bytes] = []
    last = float("-inf")
    typing = list(keys or [])
    typed = False
    until = time.monotonic() + longest
    try:
        while time.monotonic() < until and (not bursts or time.monotonic() - last < quiet or typing):
            if bursts and time.monotonic() - last >= quiet:
                key = typing.pop(0)
                for at, part in enumerate(key if isinstance(key, tuple) else (key,)):
                    time.sleep(TYPED_APART if at else 0)
                    os.write(fd, part)
                bursts.append(b"")
                last = time.monotonic()
                typed = True
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            now = time.monotonic()
            if bursts and now - last < 0.015 and not typed:
                bursts[-1] += data
            else:
                bursts.append(data)
            last, typed = now, False
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)
    return bursts


def _answers(bursts: list[bytes]) -> list[list[bytes]]:
    """What the program wrote after each key `_bursts` typed, a list of bursts for each."""
    typed = [i for i, burst in enumerate(bursts) if burst == b""]
    return [bursts[at + 1 : end] for at, end in zip(typed, [*typed[1:], len(bursts)], strict=True)]


def _pointer_only(burst: bytes) -> bool:
    """Whether `burst` only tells the terminal the mouse pointer's shape (as a screen is pushed):
    it draws nothing."""
    return re.fullmatch(rb"(\x1b\][^\x07]*\x07)+", burst) is not None


def _rows_written_twice(output: bytes) -> list[int]:
    """The rows of the screen that `output` moves the cursor to the start of more than once: a
    frame writes each row it draws once."""
    rows = [int(row) for row in re.findall(rb"\x1b\[(\d+);1H", output)]
    return sorted({row for row in rows if rows.count(row) > 1})


@pytest.mark.alone  # (a frame is told from the next by a pause in the output: two busy cores would blur it)
@pytest.mark.parametrize("size", [(120, 36), (60, 20)], ids=["wide", "small"])
def test_the_first_screen_is_drawn_in_one_frame_with_nothing_after_it(tmp_path: Path, size: tuple[int, int]) -> None:
    # Wide: tally/ledger.py, lower on the first screen, has a line too wide for it: the horizontal
    # scrollbar came in a second frame, which took the diff's last row, and a third restyled it.
    # Small: the diff wraps, and was laid out again once git's reading was checked, drawn whole
    # again (a diff read whole has no file measured before git read it).
    copy = demo_copy(tmp_path)
    for opening in ("first", "again"):
        bursts = _bursts([REVIEW, str(copy / "tally-currency")], size)
        drawn = [i for i, burst in enumerate(bursts) if b"tally/currency.py" in burst]
        assert drawn, opening
        assert [len(burst) for burst in bursts[drawn[0] + 1 :]] == [], opening


@pytest.mark.alone  # (as above)
@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["wide", "narrow"])
def test_the_overview_is_drawn_in_one_frame_with_the_conflicting_lines(tmp_path: Path, size: tuple[int, int]) -> None:
    # The rows came about 50 ms after an empty table, and the conflicting lines of the worktree
    # under the cursor, read in a thread, in a third frame; the table, measured only then, was
    # laid out once more in a fourth. Narrow: the detail's scrollbar came a frame late.
    copy = demo_copy(tmp_path)
    bursts = _bursts([REVIEW, "all", str(copy / "tally")], size)
    drawn = [i for i, burst in enumerate(bursts) if b"cleanup" in burst]  # (narrow: "tally-" left out)
    assert drawn
    first = bursts[drawn[0]]
    assert b"csv-export" in first and b", line 20" in first  # (the conflicting lines' heading)
    assert b'def total(entries, currency="EUR"):' in first
    assert [len(burst) for burst in bursts[drawn[0] + 1 :]] == []


@pytest.mark.alone  # (as above)
def test_a_review_opened_from_the_overview_is_drawn_once_and_not_again_while_nothing_changes(tmp_path: Path) -> None:
    # Textual took the overview under the review for a screen that shows through it: each of its
    # changes drew the review again, whole, and from then on about once a second.
    copy = demo_copy(tmp_path)
    bursts = _bursts([REVIEW, "all", str(copy / "tally")], quiet=2.5, keys=[b"\r"])
    opened = next(i for i, burst in enumerate(bursts) if b"working tree" in burst)  # (the review's header)
    # nor once more a moment later, as Textual saw its widgets mounted and laid it out again
    assert [len(burst) for burst in bursts[opened + 1 :]] == []


@pytest.mark.alone  # (as above)
@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["wide", "narrow"])
def test_moving_in_the_overview_draws_the_cursor_and_the_next_detail_in_one_frame(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    # The cursor came in one frame, the detail of the worktree it came to in the next (a message
    # away), its conflicting lines in a third (read only then), and a fourth drew it again.
    # Narrow: the detail grows a scrollbar on the second row, drawn again the same 20 ms later.
    copy = demo_copy(tmp_path)
    bursts = _bursts([REVIEW, "all", str(copy / "tally")], size, keys=[b"j", b"j", b"k"])
    answers = _answers(bursts)
    assert len(answers) == 3
    for answer in answers:
        drawn = [burst for burst in answer if burst]
        assert len(drawn) == 1, [len(burst) for burst in drawn]
        assert b"Waits on" in drawn[0] and b"reading the conflicting lines" not in drawn[0]


@pytest.mark.alone  # (as above)
def test_the_reviews_keys_that_change_its_layout_draw_it_once(tmp_path: Path) -> None:
    # Each drew the screen twice: the file list hidden or shown (`f`), long lines wrapped (`w`)
    # and the search field shown or gone (`/`, escape) changed the diff's size, and Textual showed
    # or hid its scrollbar in a second layout; the help came in five frames; `x` said "saving…"
    # in the header and took it back, a frame each.
    copy = demo_copy(tmp_path)
    keys = [b"?", b"\x1b", b"/", b"\x1b", b"f", b"f", b"w", b"w", b"x", b"x"]
    bursts = _bursts([REVIEW, str(copy / "tally-currency")], keys=keys, quiet=0.6)
    for key, answer in zip(keys, _answers(bursts), strict=True):
        drawn = [len(burst) for burst in answer if burst and not _pointer_only(burst)]
        assert len(drawn) == 1, (key, drawn)


@pytest.mark.alone  # (as above)
@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["wide", "narrow"])
def test_the_worktrees_detail_pops_up_whole_in_one_frame(tmp_path: Path, size: tuple[int, int]) -> None:
    # `i` drew the pop-up empty, then its text; once filled it was drawn whole again (Textual laid
    # it out as the overview awaited it, and set its breakpoint's class a frame late), and its
    # wrapped text's scrollbar came in a third.
    copy = demo_copy(tmp_path)
    bursts = _bursts([REVIEW, "all", str(copy / "tally")], size, keys=[b"j", b"i", b"\x1b"], quiet=0.6)
    popped = _answers(bursts)[1]
    drawn = [burst for burst in popped if not _pointer_only(burst)]
    assert len(drawn) == 1, [len(burst) for burst in drawn]
    assert b"Waits on you" in drawn[0] and b"esc" in drawn[0]


@pytest.mark.alone  # (as above)
def test_back_from_a_review_the_overview_is_drawn_whole_once(tmp_path: Path) -> None:
    # Textual asked for a layout once the review was gone, and the overview was drawn whole again;
    # then the table, its row read again, was drawn just before the whole screen (2 ms apart).
    copy = demo_copy(tmp_path)
    bursts = _bursts([REVIEW, "all", str(copy / "tally")], keys=[b"\r", b"o"])
    back = _answers(bursts)[-1]
    whole = [len(burst) for burst in back if b"Waiting on you" in burst]
    assert len(whole) == 1, whole
    assert _rows_written_twice(b"".join(back)) == []


@pytest.mark.alone  # (as above)
def test_the_next_waiting_review_is_drawn_whole_once(tmp_path: Path) -> None:
    # `W` puts the next review in place of this one (Textual's `switch_screen`), which laid it out
    # twice more and drew it whole again after its first frame.
    copy = demo_copy(tmp_path)
    bursts = _bursts([REVIEW, "all", str(copy / "tally")], keys=[b"\r", b"W", b"W"])
    for answer in _answers(bursts)[1:]:
        # (each whole frame has the header once; two may come in one burst)
        headers = [burst.count(b"working tree") for burst in answer]
        assert sum(headers) == 1, headers


@pytest.mark.alone  # (as above)
def test_escape_closes_a_dialog_before_the_next_key_comes(tmp_path: Path) -> None:
    # Textual read an escape alone as the Escape key only once its input thread woke, a tenth of
    # a second later: a key typed in between made it alt+key, and the editor stayed open.
    copy = demo_copy(tmp_path)
    bursts = _bursts(
        [REVIEW, str(copy / "tally-currency")], keys=[b"]", b"j", b"j", b"c", (b"\x1b", b"x")], quiet=0.3, longest=8
    )
    closed = _answers(bursts)[-1]
    assert b"1/7 viewed" in b"".join(closed)  # (`x` marked the file viewed, in the review)


@pytest.mark.alone  # (as above)
def test_the_comment_editor_comes_whole_with_its_keys(tmp_path: Path) -> None:
    # Textual's footer in a dialog composed its keys once the dialog ran: they came 100 ms after
    # it, and the dialog was drawn whole twice more.
    copy = demo_copy(tmp_path)
    # (its cursor blinks: never quiet)
    bursts = _bursts([REVIEW, str(copy / "tally-currency")], keys=[b"]", b"j", b"j", b"c"], longest=6)
    opened = next(i for i, burst in enumerate(bursts) if b"Comment on" in burst)
    assert b"Save" in bursts[opened] and b"Severity" in bursts[opened]
    # then only the text cursor's blinking: the chosen severity was coloured a frame late
    assert all(len(burst) < 1000 and "●".encode() not in burst for burst in bursts[opened + 1 :]), bursts[opened + 1 :]
