"""The diff model on real repositories: every kind of change, every awkward file."""

from __future__ import annotations

import os

import pytest

from conftest import Repo
from review.errors import BrokenDiff
from review.repo import git, scope
from review.repo.diff import Diff, FileDiff, Status, parse
from review.repo.scope import Scope
from review.repo.text import visible
from review.tui.diff_rows import note_for


def load(repo: Repo, chosen: Scope = Scope()) -> Diff:
    return scope.load(git.find_worktree(repo.root), chosen)[1]


def only(diff: Diff) -> FileDiff:
    assert len(diff.files) == 1, [f.path for f in diff.files]
    return diff.files[0]


def test_a_modified_file_has_hunks_with_old_and_new_line_numbers(project: Repo) -> None:
    project.write("src/app.py", "".join(f"line {n}\n" if n != 10 else "line ten\n" for n in range(1, 21)))
    file = only(load(project))
    assert (file.status, file.added, file.removed) == (Status.MODIFIED, 1, 1)
    [hunk] = file.hunks
    assert hunk.header == "@@ -7,7 +7,7 @@"
    rows = [(line.kind, line.old, line.new, line.text) for line in hunk.lines]
    assert rows[:3] == [(" ", 7, 7, "line 7"), (" ", 8, 8, "line 8"), (" ", 9, 9, "line 9")]
    assert rows[3:5] == [("-", 10, None, "line 10"), ("+", None, 10, "line ten")]
    assert rows[-1] == (" ", 13, 13, "line 13")


def test_several_hunks_carry_the_enclosing_function(project: Repo) -> None:
    body = "def first():\n" + "".join(f"    a{n} = {n}\n" for n in range(30))
    project.write("src/util.py", body)
    project.commit("longer util")
    project.write("src/util.py", body.replace("a2 = 2", "a2 = 20").replace("a27 = 27", "a27 = 270"))
    hunks = only(load(project)).hunks
    assert len(hunks) == 2
    assert hunks[1].section == "def first():"


def test_an_added_file_is_shown_in_full(project: Repo) -> None:
    project.write("src/new.py", "one\ntwo\n")
    file = only(load(project))
    assert (file.status, file.added, file.removed, file.old_mode) == (Status.ADDED, 2, 0, "000000")
    assert [line.text for line in file.hunks[0].lines] == ["one", "two"]


def test_a_deleted_file_is_shown_in_full(project: Repo) -> None:
    (project.root / "src/util.py").unlink()
    file = only(load(project))
    assert (file.status, file.path, file.added, file.removed) == (Status.DELETED, "src/util.py", 0, 2)
    assert [line.kind for line in file.hunks[0].lines] == ["-", "-"]


def test_a_rename_keeps_both_paths_and_its_similarity(project: Repo) -> None:
    project.git("mv", "src/app.py", "src/main.py")
    file = only(load(project))
    assert (file.status, file.old_path, file.path, file.similarity) == (
        Status.RENAMED,
        "src/app.py",
        "src/main.py",
        100,
    )
    assert file.hunks == []


def test_a_rename_with_edits_has_hunks(project: Repo) -> None:
    project.git("mv", "src/app.py", "src/main.py")
    project.write("src/main.py", "".join(f"line {n}\n" for n in range(1, 20)) + "last\n")
    file = only(load(project))
    assert file.status is Status.RENAMED
    assert file.similarity is not None and 50 <= file.similarity < 100
    assert (file.added, file.removed) == (1, 1)


def test_a_copy_is_recognised(project: Repo) -> None:
    project.write("src/app.py", (project.root / "src/app.py").read_text() + "more\n")
    project.write("src/copy.py", (project.root / "src/app.py").read_text().replace("more\n", ""))
    project.git("add", "--all")
    files = {f.path: f for f in load(project, Scope(staged=True)).files}
    assert files["src/copy.py"].status is Status.COPIED
    assert files["src/copy.py"].old_path == "src/app.py"


def test_a_mode_change_alone_has_no_hunks(project: Repo) -> None:
    os.chmod(project.root / "src/util.py", 0o755)
    file = only(load(project))
    assert file.mode_changed
    assert (file.old_mode, file.new_mode) == ("100644", "100755")
    assert file.hunks == []


def test_a_binary_file_is_marked_and_has_no_counts(project: Repo) -> None:
    project.write("image.png", b"\x89PNG\r\n\x1a\n\0\0\0binary")
    project.commit("image")
    project.write("image.png", b"\x89PNG\r\n\x1a\n\0\0\0changed")
    file = only(load(project))
    assert file.binary
    assert (file.added, file.removed, file.hunks) == (0, 0, [])


def test_a_binary_file_renamed_without_a_change_is_binary_as_numstat_says(project: Repo) -> None:
    project.write("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0" + bytes(range(256)))
    project.commit("logo")
    (project.root / "assets").mkdir()
    project.git("mv", "logo.png", "assets/logo.png")
    project.git("mv", "src/util.py", "src/helpers.py")
    numstat = project.git("diff", "--numstat", "-M", "HEAD")
    assert "-\t-\tlogo.png => assets/logo.png" in numstat  # what git says: binary
    files = {f.path: f for f in load(project).files}
    logo, helpers = files["assets/logo.png"], files["src/helpers.py"]
    assert (logo.status, logo.similarity, logo.old_path) == (Status.RENAMED, 100, "logo.png")
    assert logo.binary and (logo.added, logo.removed) == (0, 0)
    assert logo.old_size == logo.new_size == 8 + 3 + 256
    assert not helpers.binary  # a text file renamed unchanged stays text


def test_a_submodule_change_is_marked(project: Repo) -> None:
    first = project.head()
    project.git("update-index", "--add", "--cacheinfo", f"160000,{first},vendor/lib")
    project.git("commit", "--quiet", "-m", "add submodule")
    project.git("commit", "--quiet", "--allow-empty", "-m", "another commit")
    second = project.head()
    project.git("update-index", "--cacheinfo", f"160000,{second},vendor/lib")
    project.git("commit", "--quiet", "-m", "bump submodule")
    file = only(load(project, Scope(range="HEAD~1..HEAD")))
    assert file.submodule
    assert [line.text for line in file.hunks[0].lines] == [f"Subproject commit {first}", f"Subproject commit {second}"]


def test_a_file_turned_into_a_symlink_is_one_type_change(project: Repo) -> None:
    (project.root / "src/util.py").unlink()
    os.symlink("app.py", project.root / "src/util.py")
    file = only(load(project))
    assert file.status is Status.TYPE_CHANGED
    assert file.symlink
    assert [(line.kind, line.text) for hunk in file.hunks for line in hunk.lines] == [
        ("-", "def helper():"),
        ("-", "    return 1"),
        ("+", "app.py"),
    ]


def test_no_newline_at_end_of_file_is_recorded_on_the_line(project: Repo) -> None:
    project.write("src/util.py", "def helper():\n    return 2")
    lines = only(load(project)).hunks[0].lines
    assert [(line.kind, line.text, line.no_newline) for line in lines] == [
        (" ", "def helper():", False),
        ("-", "    return 1", False),
        ("+", "    return 2", True),
    ]


def test_crlf_line_endings_are_stripped_and_remembered(project: Repo) -> None:
    project.write("dos.txt", b"one\r\ntwo\r\n")
    project.commit("dos file")
    project.write("dos.txt", b"one\r\nTWO\r\n")
    lines = only(load(project)).hunks[0].lines
    assert [(line.text, line.crlf) for line in lines] == [("one", True), ("two", True), ("TWO", True)]


def test_content_that_is_not_utf8_is_shown_with_escapes(project: Repo) -> None:
    project.write("latin1.txt", "caf\xe9\n".encode("latin-1"))
    file = only(load(project))
    assert file.hunks[0].lines[0].text == "caf\\xe9"
    assert not file.utf8


@pytest.mark.parametrize(
    "name",
    ["with space.py", 'quote"d.py', "tab\there.py", "non-ascii-é.py", "esc\x1b[31mred.py", "new\nline.py", "star*.py"],
)
def test_strange_file_names_keep_their_exact_path(project: Repo, name: str) -> None:
    project.write(name, "content\n")
    file = only(load(project))
    assert file.path == name
    assert file.status is Status.ADDED
    assert file.hunks[0].lines[0].text == "content"
    assert "\x1b" not in file.display_path and "\n" not in file.display_path


def test_a_file_name_that_is_not_utf8_survives(project: Repo) -> None:
    raw = b"caf\xe9.txt"
    (project.root / os.fsdecode(raw)).write_bytes(b"x\n")
    file = only(load(project))
    assert os.fsencode(file.path) == raw
    assert file.display_path == "caf\\xe9.txt"


def test_an_escape_sequence_in_content_is_kept_for_the_view_to_neutralise(project: Repo) -> None:
    project.write("evil.txt", "before \x1b]0;pwned\x07 after\n")
    line = only(load(project)).hunks[0].lines[0]
    assert line.text == "before \x1b]0;pwned\x07 after"
    assert visible(line.text) == "before ^[]0;pwned^G after"


def test_the_file_list_is_ready_before_any_hunk_is_parsed(project: Repo) -> None:
    for n in range(5):
        project.write(f"f{n}.py", f"{n}\n")
    diff = load(project)
    assert [f.added for f in diff.files] == [1] * 5
    assert not any(f.parsed for f in diff.files)
    _ = diff.files[2].hunks
    assert [f.parsed for f in diff.files] == [False, False, True, False, False]


def test_a_very_large_file_is_flagged(project: Repo) -> None:
    project.write("big.txt", "".join(f"{n}\n" for n in range(20_001)))
    assert only(load(project)).large


def test_a_change_beyond_what_the_viewer_shows_says_so(project: Repo) -> None:
    project.write("big.txt", "".join(f"{n}\n" for n in range(100_000)))
    shown = only(load(project))
    assert shown.large and not shown.too_large
    assert note_for(shown) == "Large change: 100,000 lines, 0.7 MB. Press enter to show it."
    project.write("big.txt", "".join(f"{n}\n" for n in range(100_001)))
    refused = only(load(project))
    assert refused.too_large
    assert note_for(refused) == "Too large to show here: 100,001 lines, 0.7 MB. git diff or an editor shows it."


def test_totals_add_up(project: Repo) -> None:
    project.write("a.txt", "1\n2\n")
    project.write("src/util.py", "changed\n")
    diff = load(project)
    assert (diff.added, diff.removed) == (3, 2)


def test_no_changes_give_an_empty_diff(project: Repo) -> None:
    assert load(project).files == []


def test_garbage_is_a_broken_diff_not_a_crash() -> None:
    with pytest.raises(BrokenDiff):
        parse(b":100644 100644 abc def M\0a.txt\0")


@pytest.mark.parametrize(
    "record",
    [
        b":100644 100644 " + b"1" * 40 + b" " + b"2" * 40 + b" Rxx\0a.txt\0b.txt\0",  # a similarity of letters
        b":100644 1006\x1b4 " + b"1" * 40 + b" " + b"2" * 40 + b" M\0a.txt\0",  # a mode the header would draw
        b":100644 100644 " + b"1" * 40 + b" zz M\0a.txt\0",  # no object id
    ],
)
def test_a_file_record_not_as_git_writes_it_is_a_broken_diff(record: bytes) -> None:
    patch = b"\0diff --git a/a.txt b/b.txt\n"
    with pytest.raises(BrokenDiff, match="malformed file record"):
        parse(record + patch)


def test_a_hunk_shorter_than_its_header_is_a_broken_diff() -> None:
    output = (
        b":100644 100644 " + b"1" * 40 + b" " + b"2" * 40 + b" M\0a.txt\0\0"
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,5 @@\n-x\n+y\n"
    )
    diff = parse(output)
    assert diff.files[0].path == "a.txt"
    assert (diff.files[0].added, diff.files[0].removed) == (1, 1)  # the lines there, not the header's
    with pytest.raises(BrokenDiff, match=r"a\.txt: broken diff"):
        _ = diff.files[0].hunks


def test_a_broken_hunk_is_told_in_one_short_inert_line() -> None:
    # unidiff quotes the line it stopped at, with its newline: here an escape and 10,000 x's
    output = (
        b":100644 100644 " + b"1" * 40 + b" " + b"2" * 40 + b" M\0a.txt\0\0"
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-x\n"
        b"?\x1b]0;title\x07" + b"x" * 10_000 + b"\n+y\n"
    )
    with pytest.raises(BrokenDiff) as raised:
        _ = parse(output).files[0].hunks
    message = str(raised.value)
    assert message.startswith("a.txt: broken diff: Hunk diff line expected: ?^[]0;title^Gxxx")
    assert visible(message) == message and len(message) < 150


def test_more_patches_than_files_is_a_broken_diff() -> None:
    output = b"diff --git a/a b/a\n"
    with pytest.raises(BrokenDiff):
        parse(b"\0" + output)


def test_a_binary_file_knows_its_sizes_on_both_sides(project: Repo) -> None:
    project.write("image.png", b"\0" * 10)
    project.commit("image")
    project.write("image.png", b"\0" * 2048)
    file = only(load(project))
    assert (file.old_size, file.new_size) == (10, 2048)


def test_a_new_binary_file_in_the_working_tree_knows_its_size(project: Repo) -> None:
    # with a file deleted, git looks for renames among the files added: it names the new
    # file's blob, which it has not stored
    project.write("notes.txt", "notes\n")
    project.commit("notes")
    (project.root / "notes.txt").unlink()
    project.write("logo.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 3000)
    logo = load(project).file("logo.png")
    assert logo is not None and set(logo.new_blob) != {"0"}
    assert logo.binary and (logo.old_size, logo.new_size) == (None, 3008)


def test_a_committed_binary_file_is_measured_from_its_blob(project: Repo) -> None:
    project.write("image.png", b"\0" * 7)
    project.commit("image")
    file = only(load(project, Scope(range="HEAD~1..HEAD")))
    assert (file.old_size, file.new_size) == (None, 7)


def test_line_counts_without_parsing_match_the_parsed_hunks(project: Repo) -> None:
    project.write("one.txt", "one\n")
    project.write("unended.txt", "\n".join(f"line {n}" for n in range(30)))
    project.commit("one line, and thirty with no newline at the end")
    project.write("src/util.py", "def helper():\n    return 2")  # no newline at the end
    # two hunks, the last one with neither side's last line ended
    project.write("unended.txt", "\n".join(f"line {n}{'!' * (n in (1, 29))}" for n in range(30)))
    project.write("src/app.py", "".join(f"line {n}\n" for n in range(1, 21) if n % 5))
    project.write("one.txt", "two\n")  # a hunk of one line a side: "@@ -1 +1 @@"
    project.write("new.txt", "a\n+b\n-c\n")  # lines that start with + and -
    (project.root / "README.md").unlink()
    files = load(project).files
    assert len(files) == 6
    assert len(next(file for file in files if file.path == "unended.txt").hunks) == 2
    for file in files:
        parsed = sum(1 + len(hunk.lines) for hunk in file.hunks)
        assert file.body_lines == parsed == len(file.line_kinds)
        kinds = [line.kind for hunk in file.hunks for line in hunk.lines]
        assert (file.added, file.removed) == (kinds.count("+"), kinds.count("-")), file.path
