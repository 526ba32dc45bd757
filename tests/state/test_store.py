"""The review file: where it lives, what it holds, and that no writer ever loses or breaks it."""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Repo
from review.errors import ReviewLocked, UnknownComment, UnreadableReview
from review.state import codec, store
from review.state.codec import MIGRATIONS
from review.state.model import Anchor, Comment, Reply, Review, Round, now
from review.state.store import Store


def add_comment(body: str = "rename this", path: str = "src/app.py") -> Any:
    """A change that adds a draft comment and returns its id."""

    def change(review: Review) -> str:
        comment = Comment(id=review.new_comment_id(), path=path, line=3, end_line=3, body=body)
        review.comments.append(comment)
        return comment.id

    return change


def write_file(root: Path, content: str | bytes) -> Path:
    folder = root / ".review"
    folder.mkdir(exist_ok=True)
    path = folder / "review.json"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def broken_copies(root: Path) -> list[Path]:
    return sorted((root / ".review").glob("review.json.broken-*"))


def valid_document() -> dict[str, Any]:
    return {
        "schema": "review/1",
        "rounds": [{"id": "r1", "verdict": "comment", "summary": "", "sent_at": "2026-11-29T17:41:29Z"}],
        "comments": [
            {
                "id": "c1",
                "path": "src/app.py",
                "body": "why?",
                "anchor": {"lines": ["line 3"]},
                "thread": [{"author": "agent", "body": "because", "at": "2026-11-29T17:41:29Z"}],
            }
        ],
    }


# Where the state lives


def test_a_worktree_without_a_review_reads_as_empty_and_nothing_is_created(tmp_path: Path) -> None:
    assert Store(tmp_path).read() == Review()
    assert list(tmp_path.iterdir()) == []


def test_the_first_write_creates_the_folder_with_a_gitignore_of_everything(tmp_path: Path) -> None:
    Store(tmp_path).update(add_comment())
    assert (tmp_path / ".review" / ".gitignore").read_text() == "*\n"
    assert (tmp_path / ".review" / "review.json").is_file()


def test_the_review_never_shows_in_git_status(project: Repo) -> None:
    Store(project.root).update(add_comment())
    assert project.git("status", "--porcelain", "--untracked-files=all") == ""


def test_a_write_leaves_only_the_state_the_lock_and_the_gitignore(tmp_path: Path) -> None:
    review_store = Store(tmp_path)
    for _ in range(3):
        review_store.update(add_comment())
    assert sorted(path.name for path in review_store.folder.iterdir()) == [".gitignore", "lock", "review.json"]


# What it holds


def test_every_field_survives_a_round_trip(tmp_path: Path) -> None:
    wanted = Review(
        rounds=[
            Round(
                id="r1",
                verdict="request_changes",
                summary="Two things.",
                sent_at="2026-11-29T17:41:29Z",
                snapshot="4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                comment_ids=["c1"],
                delivered_at="2026-11-29T17:42:00Z",
            )
        ],
        comments=[
            Comment(
                id="c1",
                path="src/new.py",
                old_path="src/old.py",
                side="old",
                line=3,
                end_line=5,
                body="Use a **set** here.\n\n```suggestion\nseen = set()\n```",
                severity="must",
                status="addressed",
                anchor=Anchor(
                    lines=["seen = []", "for x in xs:", "    seen.append(x)"],
                    before=["def f(xs):"],
                    after=["return seen"],
                    source="e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
                    line=3,
                    end_line=5,
                ),
                anchor_state="moved",
                thread=[
                    Reply(author="reviewer", body="Still?", at="2026-11-29T17:41:30Z"),
                    Reply(author="agent", body="Done in 1a2b3c.", at="2026-11-29T17:45:00Z"),
                ],
                round="r1",
                created_at="2026-11-29T17:40:00Z",
                updated_at="2026-11-29T17:45:00Z",
            ),
            Comment(id="c2", path="README.md", body="A file-level question.", severity="question"),
        ],
        viewed={"README.md": "fingerprint-1"},
        next_comment=3,
        next_round=2,
    )

    def replace(review: Review) -> None:
        review.rounds, review.comments, review.viewed = wanted.rounds, wanted.comments, wanted.viewed
        review.next_comment, review.next_round = wanted.next_comment, wanted.next_round

    Store(tmp_path).update(replace)
    assert Store(tmp_path).read() == wanted


def test_the_file_is_indented_json_in_the_models_field_order(tmp_path: Path) -> None:
    review_store = Store(tmp_path)
    review_store.update(add_comment())
    text = review_store.path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "schema": "review/1",\n  "rounds": [],\n  "comments": [\n')
    assert text.endswith("}\n")
    assert list(json.loads(text)["comments"][0]) == [
        "id", "path", "old_path", "side", "line", "end_line", "body", "severity", "status",
        "anchor", "anchor_state", "thread", "round", "created_at", "updated_at", "author",
    ]  # fmt: skip


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(extra=st.dictionaries(st.text(max_size=8).filter(lambda key: key not in _REVIEW_FIELDS), _JSON, max_size=4))
def test_the_file_is_written_exactly_as_json_dumps_indents_it(extra: dict[str, Any]) -> None:
    # The codec writes the file itself (json.dumps with an indent is pure Python, and every
    # write waits for it); what it writes must be what json.dumps would.
    review = Review(extra=extra)
    review.comments.append(Comment(id="c1", path="a.py", body="é\u2028\x00", line=3, anchor=Anchor(lines=["x"])))
    review.comments[0].thread.append(Reply(author="agent", body="ok", extra={"n": 1.5}))
    written = codec.dump(review)
    assert written == (json.dumps(json.loads(written), indent=2, ensure_ascii=False) + "\n").encode()
    assert codec.parse(written).extra == extra


_REVIEW_FIELDS = {
    "schema",
    "rounds",
    "comments",
    "viewed",
    "request",
    "next_comment",
    "next_round",
    "next_note",
    "extra",
}


def test_text_stays_readable_and_non_utf8_paths_survive(tmp_path: Path) -> None:
    review_store = Store(tmp_path)
    path = os.fsdecode(b"caf\xe9.py")  # a Latin-1 file name, as git reports it
    review_store.update(add_comment(body="déjà vu", path=path))
    assert "déjà vu" in review_store.path.read_text(encoding="utf-8")
    assert review_store.read().comments[0].path == path


def test_new_comments_start_as_drafts_of_severity_should(tmp_path: Path) -> None:
    review_store = Store(tmp_path)
    review_store.update(add_comment())
    comment = review_store.read().comment("c1")
    assert (comment.status, comment.severity, comment.side, comment.anchor_state) == ("draft", "should", "new", "exact")


def test_keys_this_version_does_not_know_are_kept_when_rewriting(tmp_path: Path) -> None:
    document = valid_document()
    document["labels"] = ["ui"]
    document["rounds"][0]["reviewer"] = "ada"
    document["comments"][0]["confidence"] = 0.9
    document["comments"][0]["anchor"]["hash"] = "abc"
    document["comments"][0]["thread"][0]["model"] = {"name": "agent-7"}
    path = write_file(tmp_path, json.dumps(document))

    Store(tmp_path).update(lambda review: review.comment("c1").thread.append(Reply(author="reviewer", body="ok")))

    written = json.loads(path.read_text())
    assert written["labels"] == ["ui"]
    assert written["rounds"][0]["reviewer"] == "ada"
    assert written["comments"][0]["confidence"] == 0.9
    assert written["comments"][0]["anchor"]["hash"] == "abc"
    assert written["comments"][0]["thread"][0]["model"] == {"name": "agent-7"}
    assert len(written["comments"][0]["thread"]) == 2


def test_missing_keys_that_have_defaults_take_them(tmp_path: Path) -> None:
    write_file(tmp_path, '{"schema": "review/1", "comments": [{"id": "c1", "path": "a.py", "body": "x"}]}')
    comment = Store(tmp_path).read().comment("c1")
    assert (comment.line, comment.status, comment.thread) == (None, "draft", [])


# Ids and lookups


def test_comment_ids_are_never_reused_after_a_deletion(tmp_path: Path) -> None:
    review_store = Store(tmp_path)
    assert review_store.update(add_comment()) == "c1"
    assert review_store.update(add_comment()) == "c2"
    review_store.update(lambda review: review.comments.clear())
    assert review_store.update(add_comment()) == "c3"


def test_round_ids_are_never_reused_after_a_deletion() -> None:
    review = Review()
    assert [review.new_round_id(), review.new_round_id()] == ["r1", "r2"]
    review.rounds.clear()
    assert review.new_round_id() == "r3"


def test_a_new_id_skips_one_already_taken() -> None:
    # A hand-edited file may hold ids the counter has not reached.
    review = Review(comments=[Comment(id="c1", path="a.py", body="x")])
    assert review.new_comment_id() == "c2"


def test_an_unknown_comment_id_is_a_clear_error() -> None:
    with pytest.raises(UnknownComment, match=r"^no comment 'c9' in this worktree's review$"):
        Review().comment("c9")


def test_the_latest_round_is_the_last_sent() -> None:
    review = Review()
    assert review.latest_round() is None
    review.rounds += [Round(id="r1", verdict="comment"), Round(id="r2", verdict="approve")]
    latest = review.latest_round()
    assert latest is not None and latest.id == "r2"


# Viewed files


def test_a_viewed_file_stays_viewed_until_its_diff_changes() -> None:
    review = Review()
    review.mark_viewed("src/app.py", "aaa")
    assert review.is_viewed("src/app.py", "aaa")
    assert not review.is_viewed("src/app.py", "bbb")
    assert not review.is_viewed("src/util.py", "aaa")


def test_an_unmarked_file_is_no_longer_viewed() -> None:
    review = Review()
    review.mark_viewed("src/app.py", "aaa")
    review.unmark_viewed("src/app.py")
    review.unmark_viewed("never/viewed.py")
    assert not review.is_viewed("src/app.py", "aaa")


def test_viewed_marks_are_kept_in_the_file(tmp_path: Path) -> None:
    Store(tmp_path).update(lambda review: review.mark_viewed("src/app.py", "aaa"))
    assert Store(tmp_path).read().is_viewed("src/app.py", "aaa")


# Writing


def test_update_returns_what_the_change_returns(tmp_path: Path) -> None:
    assert Store(tmp_path).update(lambda review: len(review.comments)) == 0


def test_a_change_that_raises_writes_nothing(tmp_path: Path) -> None:
    review_store = Store(tmp_path)
    review_store.update(add_comment())
    before = review_store.path.read_bytes()

    def fail_halfway(review: Review) -> None:
        add_comment()(review)
        raise RuntimeError("changed my mind")

    with pytest.raises(RuntimeError):
        review_store.update(fail_halfway)
    assert review_store.path.read_bytes() == before
    assert review_store.update(add_comment()) == "c2"  # the lock was released


def test_an_update_that_changes_nothing_does_not_rewrite_the_file(tmp_path: Path) -> None:
    review_store = Store(tmp_path)
    review_store.update(add_comment())
    inode = review_store.path.stat().st_ino
    review_store.update(lambda review: None)
    assert review_store.path.stat().st_ino == inode


def test_now_is_utc_to_the_second() -> None:
    stamp = now()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp)
    then = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert abs((datetime.now(UTC) - then).total_seconds()) < 5


# Files that cannot be read


def test_invalid_json_is_refused_naming_the_file_the_reason_and_the_copy(tmp_path: Path) -> None:
    broken = b'{\n  "schema": "review/1"\n  "rounds": []\n}\n'
    path = write_file(tmp_path, broken)
    with pytest.raises(UnreadableReview) as raised:
        Store(tmp_path).read()
    (copy,) = broken_copies(tmp_path)
    message = str(raised.value)
    assert message == (
        f"{path} cannot be read (line 3, column 3: Expecting ',' delimiter); a copy is kept at {copy};"
        " fix it or remove it to start again"
    )
    assert copy.read_bytes() == broken
    assert path.read_bytes() == broken


def test_a_broken_file_is_never_overwritten_and_copied_once(tmp_path: Path) -> None:
    broken = b"{ not json"
    path = write_file(tmp_path, broken)
    review_store = Store(tmp_path)
    for _ in range(3):
        with pytest.raises(UnreadableReview):
            review_store.read()
        with pytest.raises(UnreadableReview):
            review_store.update(add_comment())
    assert path.read_bytes() == broken
    assert len(broken_copies(tmp_path)) == 1


def test_a_new_breakage_gets_its_own_copy(tmp_path: Path) -> None:
    write_file(tmp_path, b"{ first")
    with pytest.raises(UnreadableReview):
        Store(tmp_path).read()
    write_file(tmp_path, b"{ second")
    with pytest.raises(UnreadableReview):
        Store(tmp_path).read()
    assert sorted(copy.read_bytes() for copy in broken_copies(tmp_path)) == [b"{ first", b"{ second"]


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    write_file(tmp_path, b'{"schema": "review/1", "summary": "\xff"}')
    with pytest.raises(UnreadableReview, match="not UTF-8"):
        Store(tmp_path).read()


def reshaped(change: Any) -> dict[str, Any]:
    document = valid_document()
    change(document)
    return document


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (["review/1"], 'the top level is ["review/1"], not an object'),
        ({"rounds": []}, "schema is null"),
        (reshaped(lambda d: d.update(comments={})), "comments is {}, not a list"),
        (reshaped(lambda d: d["comments"][0].pop("id")), "comments[0].id is missing"),
        (reshaped(lambda d: d["comments"][0].update(line="3")), 'comments[0].line is "3", not a whole number'),
        (reshaped(lambda d: d.update(next_comment=True)), "next_comment is true, not a whole number"),
        (reshaped(lambda d: d.update(viewed={"a.py": 1})), "viewed.a.py is 1, not a string"),
        (reshaped(lambda d: d["comments"][0].update(anchor=["x"])), 'comments[0].anchor is ["x"], not an object'),
        (reshaped(lambda d: d["comments"][0]["anchor"].update(lines="x")), 'comments[0].anchor.lines is "x"'),
    ],
    ids=["list", "no-schema", "comments", "id", "line", "bool", "viewed", "anchor", "anchor-lines"],
)
def test_a_wrongly_shaped_file_is_refused_and_copied(tmp_path: Path, document: Any, reason: str) -> None:
    text = json.dumps(document)
    path = write_file(tmp_path, text)
    with pytest.raises(UnreadableReview) as raised:
        Store(tmp_path).update(add_comment())
    assert f"{path} cannot be read ({reason}" in str(raised.value)
    assert path.read_text() == text
    assert [copy.read_text() for copy in broken_copies(tmp_path)] == [text]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda d: d["comments"][0].update(severity="urgent"),
            'comments[0].severity is "urgent", not one of must, should, question, nit',
        ),
        (lambda d: d["comments"][0].update(status="done"), 'comments[0].status is "done"'),
        (lambda d: d["comments"][0].update(side="left"), 'comments[0].side is "left"'),
        (lambda d: d["comments"][0].update(anchor_state="gone"), 'comments[0].anchor_state is "gone"'),
        (lambda d: d["comments"][0]["thread"][0].update(author="bot"), 'comments[0].thread[0].author is "bot"'),
        (lambda d: d["rounds"][0].update(verdict="lgtm"), 'rounds[0].verdict is "lgtm"'),
    ],
    ids=["severity", "status", "side", "anchor_state", "author", "verdict"],
)
def test_a_value_outside_its_choices_is_refused(tmp_path: Path, change: Any, reason: str) -> None:
    write_file(tmp_path, json.dumps(reshaped(change)))
    with pytest.raises(UnreadableReview) as raised:
        Store(tmp_path).read()
    assert reason in str(raised.value)
    assert len(broken_copies(tmp_path)) == 1


def test_a_file_from_a_newer_review_is_refused_and_left_alone(tmp_path: Path) -> None:
    text = '{"schema": "review/2", "comments": "a new shape"}'
    path = write_file(tmp_path, text)
    with pytest.raises(UnreadableReview, match="written by a newer version of review") as raised:
        Store(tmp_path).update(add_comment())
    assert str(path) in str(raised.value)
    assert path.read_text() == text
    assert broken_copies(tmp_path) == []


def test_an_older_schema_is_upgraded_by_its_migration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def from_review_0(document: dict[str, Any]) -> dict[str, Any]:
        notes = document.pop("notes")
        return {**document, "schema": "review/1", "comments": notes}

    monkeypatch.setitem(MIGRATIONS, "review/0", from_review_0)
    text = '{"schema": "review/0", "notes": [{"id": "c1", "path": "a.py", "body": "old"}]}'
    path = write_file(tmp_path, text)

    assert Store(tmp_path).read().comment("c1").body == "old"
    assert path.read_text() == text  # reading alone does not rewrite
    Store(tmp_path).update(lambda review: None)
    assert json.loads(path.read_text())["schema"] == "review/1"


def test_an_older_schema_without_a_migration_is_refused(tmp_path: Path) -> None:
    write_file(tmp_path, '{"schema": "review/0"}')
    with pytest.raises(UnreadableReview, match="unknown schema 'review/0'"):
        Store(tmp_path).read()


# Several writers


WRITER = """
import sys, time
from pathlib import Path
from review.state.model import Comment
from review.state.store import Store

root, name, start = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
while not start.exists():
    time.sleep(0.001)
review_store = Store(root)
for n in range(50):
    def add(review, n=n):
        review.comments.append(Comment(id=review.new_comment_id(), path="a.py", body=f"{name} {n}"))
    review_store.update(add)
"""


def test_four_processes_writing_at_once_all_keep_their_changes(tmp_path: Path) -> None:
    start = tmp_path / "start"
    names = [f"writer{k}" for k in range(4)]
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name, str(start)], stderr=subprocess.PIPE)
        for name in names
    ]
    start.touch()  # all start together, so their writes overlap
    review_store = Store(tmp_path)
    while any(writer.poll() is None for writer in writers):
        review_store.read()  # a reader never sees a half-written file
    for writer in writers:
        assert writer.wait() == 0, writer.stderr.read().decode() if writer.stderr else ""

    review = review_store.read()
    assert sorted(comment.body for comment in review.comments) == sorted(
        f"{name} {n}" for name in names for n in range(50)
    )
    assert {comment.id for comment in review.comments} == {f"c{n}" for n in range(1, 201)}
    assert review.next_comment == 201


def test_a_writer_gives_up_with_a_clear_error_while_another_holds_the_lock(tmp_path: Path) -> None:
    review_store = Store(tmp_path, lock_timeout=0.3)
    review_store.update(add_comment())
    before = review_store.path.read_bytes()
    holder = os.open(review_store.lock_path, os.O_RDWR)  # its own open file description
    fcntl.flock(holder, fcntl.LOCK_EX)
    started = time.monotonic()
    try:
        with pytest.raises(ReviewLocked) as raised:
            review_store.update(add_comment())
    finally:
        os.close(holder)
    assert time.monotonic() - started >= 0.3
    assert str(raised.value) == (
        f"another process has held {review_store.lock_path} for 0.3 s; try again when it has finished"
    )
    assert review_store.path.read_bytes() == before
    assert review_store.update(add_comment()) == "c2"


def test_writers_wait_ten_seconds_by_default(tmp_path: Path) -> None:
    assert Store(tmp_path).lock_timeout == store.LOCK_TIMEOUT == 10
