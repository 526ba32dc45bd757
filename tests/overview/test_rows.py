"""One worktree's row (`review.overview.rows`, read through `Overview`): its diff against its base,
its place against the default branch, its agent, its review, and whom it waits on."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Repo
from review.agents import activity
from review.overview.rows import Row
from review.overview.status import Overview
from review.repo import scope
from review.repo.git import find_worktree
from review.repo.lines import FileReader
from review.state import comments, news, rounds
from review.state.comments import Where
from review.state.model import Review, Verdict
from review.state.store import Store


@pytest.fixture
def agent(project: Repo) -> Repo:
    """A worktree with one committed change to src/app.py."""
    made = project.worktree("agent", "agent/work")
    made.write("src/app.py", "".join(f"line {n}\n" for n in range(1, 21)).replace("line 5\n", "five\n"))
    made.commit("five")
    return made


def row_of(overview: Overview, tree: Repo) -> Row:
    found = {row.path: row for row in overview.read_all()}
    return found[tree.root]


def make_old(tree: Repo, *paths: str) -> None:
    """Files last changed an hour ago, so nobody counts as at work on them."""
    then = time.time() - 3600
    for path in paths:
        os.utime(tree.root / path, (then, then))


# What the diff counts


def numstat_of_the_viewers_scope(tree: Repo) -> tuple[int, int, int]:
    """Files, lines added and lines removed, by `git diff --numstat` between the sides the viewer
    shows by default, untracked files included (marked intent-to-add in a copy of the index)."""
    worktree = find_worktree(tree.root)
    sides = scope.resolve(worktree, scope.Scope())
    index = Path(tree.git("rev-parse", "--path-format=absolute", "--git-path", "index").strip())
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "index"
        shutil.copy2(index, copy)
        env = {**os.environ, "GIT_INDEX_FILE": str(copy)}
        subprocess.run(["git", "add", "--intent-to-add", "--all"], cwd=tree.root, env=env, check=True)
        out = subprocess.run(
            ["git", "diff", "--numstat", "--find-renames", "--find-copies", sides.old],
            cwd=tree.root,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    lines = [line.split("\t") for line in out.splitlines()]
    added = sum(int(plus) for plus, _, _ in lines if plus != "-")
    removed = sum(int(minus) for _, minus, _ in lines if minus != "-")
    return len(lines), added, removed


def test_the_counts_are_those_of_the_viewers_default_scope(project: Repo, overview: Callable[[Path], Overview]) -> None:
    project.write("docs/old.md", "old\ndocs\n")
    project.commit("docs")
    tree = project.worktree("agent", "agent/work")
    tree.git("mv", "src/util.py", "src/helpers.py")
    tree.write("src/app.py", "".join(f"line {n}\n" for n in range(1, 21)).replace("line 3\n", "three\n"))
    tree.commit("committed: a rename and an edit")
    tree.write("README.md", "# project\n\nstaged\n")
    tree.git("add", "README.md")
    tree.write("src/app.py", "".join(f"line {n}\n" for n in range(1, 21)).replace("line 10\n", "ten\n"))
    (tree.root / "docs/old.md").unlink()
    tree.write("notes/new.md", "untracked\nnotes\n")
    tree.write("image.bin", b"\x00\x01binary")
    project.write("CHANGES.md", "main moved on\n")
    project.commit("main moves on")

    row = row_of(overview(project.root), tree)
    assert (row.files, row.added, row.removed) == numstat_of_the_viewers_scope(tree)
    diff = scope.load(find_worktree(tree.root))[1]
    assert (row.files, row.added, row.removed) == (len(diff.files), diff.added, diff.removed)


def test_a_copied_file_counts_as_the_viewer_shows_it(project: Repo, overview: Callable[[Path], Overview]) -> None:
    tree = project.worktree("agent", "agent/work")
    tree.write("src/copy.py", (project.root / "src/app.py").read_text())
    tree.write("src/app.py", "".join(f"line {n}\n" for n in range(1, 21)).replace("line 3\n", "three\n"))
    row = row_of(overview(project.root), tree)
    assert (row.files, row.added, row.removed) == numstat_of_the_viewers_scope(tree)


def test_after_merging_the_default_branch_in_only_the_worktrees_own_work_counts(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    tree = project.worktree("agent", "agent/work")
    tree.write("a.txt", "a\n")
    tree.commit("own work")
    project.write("c.txt", "c\nc\n")
    project.commit("main moves on")
    tree.git("merge", "--quiet", "--no-edit", "main")
    row = row_of(overview(project.root), tree)
    assert (row.files, row.added, row.ahead, row.behind) == (1, 1, 2, 0)
    assert (row.files, row.added, row.removed) == numstat_of_the_viewers_scope(tree)


def test_each_row_counts_its_own_work_when_many_are_read_together(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    trees = {name: project.worktree(name, f"agent/{name}") for name in ("a", "b", "c", "d", "e")}
    trees["a"].write("notes.md", "same\n")
    trees["c"].write("notes.md", "same\n")  # the same work as a: the same snapshot
    trees["d"].write("src/app.py", "changed\n")
    trees["e"].write("src/util.py", "def helper():\n    return 2\n")
    trees["e"].commit("two")
    found = {row.name: row for row in overview(project.root).read_all()}
    for name, tree in trees.items():
        assert (found[name].files, found[name].added, found[name].removed) == numstat_of_the_viewers_scope(tree), name
    assert (found["b"].files, found["d"].removed) == (0, 20)


def test_the_main_worktree_counts_its_uncommitted_work_against_its_head(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    project.write("README.md", "# project\nmore\n")
    row = row_of(overview(project.root), project)
    assert (row.files, row.added, row.removed, row.ahead, row.behind) == (1, 1, 0, 0, 0)


def test_commits_ahead_of_and_behind_the_default_branch(project: Repo, overview: Callable[[Path], Overview]) -> None:
    tree = project.worktree("agent", "agent/work")
    tree.write("a.txt", "a\n")
    tree.commit("one")
    tree.write("b.txt", "b\n")
    tree.commit("two")
    project.write("c.txt", "c\n")
    project.commit("main moves on")
    row = row_of(overview(project.root), tree)
    assert (row.ahead, row.behind) == (2, 1)
    assert (row.files, row.added) == (2, 2)  # against where it left main, not main now


# The agent


def test_the_agent_and_its_state_are_what_its_hooks_recorded(
    agent: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    activity.record(agent.root, "working", "claude", "UserPromptSubmit")
    row = row_of(overview(project.root), agent)
    assert (row.agent, row.agent_state) == ("claude", "working")


def test_without_hooks_an_agent_that_just_edited_is_active(
    agent: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    agent.write("notes.md", "just now\n")
    row = row_of(overview(project.root), agent)
    assert (row.agent, row.agent_state) == (None, "active")


def test_without_hooks_an_agent_that_has_not_edited_for_a_while_is_unknown(
    agent: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    make_old(agent, "src/app.py")
    row = row_of(overview(project.root), agent)
    assert row.agent_state == "unknown"


def test_the_last_change_is_the_newest_edit_of_a_changed_file(
    agent: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    agent.write("notes.md", "new\n")
    moment = time.time() - 120
    os.utime(agent.root / "notes.md", (moment, moment))
    make_old(agent, "src/app.py")
    row = row_of(overview(project.root), agent)
    assert row.last_change == pytest.approx(moment)


# The review and whom the worktree waits on


def review_of(tree: Repo) -> tuple[Store, FileReader]:
    worktree = find_worktree(tree.root)
    return Store(worktree.root), FileReader(worktree, scope.resolve(worktree, scope.Scope()).old)


def draft(tree: Repo, line: int = 5) -> str:
    store, read = review_of(tree)
    return comments.add(store, Where("src/app.py", line=line), "why this?", "should", read("src/app.py", "new")).id


def send(tree: Repo, verdict: Verdict = "request_changes") -> None:
    store, read = review_of(tree)
    rounds.send(store, find_worktree(tree.root), verdict, "", read)


@pytest.fixture
def idle(agent: Repo) -> Repo:
    """The agent's worktree, its agent idle (as its hooks said)."""
    activity.record(agent.root, "idle", "claude", "Stop")
    return agent


def test_work_nobody_has_reviewed_waits_on_the_reviewer(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.reason) == ("none", "reviewer", "ready for review")


def test_drafts_not_sent_wait_on_the_reviewer(idle: Repo, project: Repo, overview: Callable[[Path], Overview]) -> None:
    draft(idle)
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on) == ("drafts", "reviewer")


def test_sent_comments_wait_on_the_agent(idle: Repo, project: Repo, overview: Callable[[Path], Overview]) -> None:
    draft(idle)
    send(idle)
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.open_comments) == ("sent", "agent", 1)


def test_a_review_pointed_to_but_not_read_says_so_and_after_three_pointers_waits_on_the_reviewer(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    draft(idle)
    send(idle)
    store = Store(idle.root)
    assert news.notify(store, "stop-hook")
    row = row_of(overview(project.root), idle)
    assert (row.waits_on, row.reason) == ("agent", "comments to address, pointed to 1×, not read yet")
    assert news.notify(store, "tmux") and news.notify(store, "stop-hook")
    assert not news.notify(store, "stop-hook")  # three pointers: the channels leave it be
    row = row_of(overview(project.root), idle)
    assert (row.waits_on, row.reason) == ("reviewer", "not read: the agent was pointed to it 3 times")
    assert (row.delivery.heard, row.delivery.channels) == ("not read", ("stop-hook", "tmux"))
    news.mark_read(store, news.find(store.read()), "pending")
    row = row_of(overview(project.root), idle)
    assert (row.waits_on, row.reason, row.delivery.heard) == ("agent", "comments to address", "read")


def test_an_open_comment_the_agent_replied_to_is_answered_and_waits_on_the_reviewer(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    first, second = draft(idle, 3), draft(idle, 5)
    send(idle)
    comments.reply(Store(idle.root), first, "agent", "because the spec says so")
    row = row_of(overview(project.root), idle)
    assert (row.open_comments, row.answered_comments) == (1, 1)
    assert row.review_state == "sent"  # one comment is still the agent's to deal with
    comments.reply(Store(idle.root), second, "agent", "same reason")
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.open_comments, row.answered_comments) == (
        "answered",
        "reviewer",
        0,
        2,
    )


def test_the_reviewers_answer_to_a_reply_gives_the_comment_back_to_the_agent(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    id = draft(idle)
    send(idle)
    comments.reply(Store(idle.root), id, "agent", "because")
    comments.reply(Store(idle.root), id, "reviewer", "not a reason")
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.open_comments, row.answered_comments) == ("sent", "agent", 1, 0)


def test_comments_the_agent_addressed_wait_on_the_reviewer(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    id = draft(idle)
    send(idle)
    comments.resolve(Store(idle.root), id, "renamed it")
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.addressed_comments, row.open_comments) == (
        "addressed",
        "reviewer",
        1,
        0,
    )


def test_approved_work_waits_on_nothing(idle: Repo, project: Repo, overview: Callable[[Path], Overview]) -> None:
    send(idle, "approve")
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.reason) == ("approved", "nothing", "approved: ready to merge")


def test_approved_work_that_changed_since_waits_on_the_reviewer_again(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    send(idle, "approve")
    idle.write("src/app.py", "changed after the approval\n")
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.reason) == ("approved", "reviewer", "changed since it was approved")


def test_a_comment_reopened_after_the_agent_resolved_it_is_the_agents_again(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    id = draft(idle)
    send(idle)
    comments.resolve(Store(idle.root), id, "renamed it")
    comments.set_status(Store(idle.root), id, "open")

    def a_second_later(review: Review) -> None:  # the reviewer reopens it after the agent's note
        review.comment(id).updated_at = "2099-01-01T00:00:00Z"

    Store(idle.root).update(a_second_later)
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.open_comments, row.answered_comments) == ("sent", "agent", 1, 0)


def test_a_round_of_a_summary_alone_is_the_agents_until_its_work_changes(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    store, read = review_of(idle)
    make_old(idle, "src/app.py")
    rounds.send(store, find_worktree(idle.root), "request_changes", "split this into two commits", read)
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on, row.reason) == ("sent", "agent", "a review to act on")
    idle.write("src/app.py", "one of two\n")
    row = row_of(overview(project.root), idle)
    assert (row.review_state, row.waits_on) == ("addressed", "reviewer")


def test_an_agent_at_work_on_unreviewed_changes_is_waited_on(
    agent: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    activity.record(agent.root, "working", "codex", "UserPromptSubmit")
    row = row_of(overview(project.root), agent)
    assert (row.waits_on, row.reason) == ("agent", "the agent is at work")


def test_an_agent_asking_for_permission_waits_on_the_reviewer(
    agent: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    draft(agent)
    send(agent)
    activity.record(agent.root, "waiting", "claude", "Notification")
    row = row_of(overview(project.root), agent)
    assert (row.waits_on, row.reason) == ("reviewer", "the agent asks for permission")


def test_a_worktree_without_changes_waits_on_nothing(project: Repo, overview: Callable[[Path], Overview]) -> None:
    tree = project.worktree("agent", "agent/work")
    row = row_of(overview(project.root), tree)
    assert (row.files, row.waits_on, row.reason) == (0, "nothing", "no changes")


def test_the_reviewers_wait_starts_when_the_agent_last_acted(
    idle: Repo, project: Repo, overview: Callable[[Path], Overview]
) -> None:
    make_old(idle, "src/app.py")
    id = draft(idle)
    send(idle)
    before = time.time()
    comments.reply(Store(idle.root), id, "agent", "because")
    row = row_of(overview(project.root), idle)
    assert row.waiting_since is not None and row.waiting_since >= int(before)


# Reading again


def test_a_refresh_reads_again_only_the_worktree_asked_for(project: Repo, overview: Callable[[Path], Overview]) -> None:
    project.worktree("one", "agent/one")
    two = project.worktree("two", "agent/two")
    project.worktree("three", "agent/three")
    opened = overview(project.root)
    before = {row.name: row for row in opened.read_all()}
    two.write("notes.md", "new\n")
    after = {row.name: row for row in opened.refresh([two.root])}
    assert [name for name in after if after[name] is not before[name]] == ["two"]
    assert after["two"].files == 1


def test_a_refresh_finds_a_new_worktree_and_forgets_a_removed_one(
    project: Repo, overview: Callable[[Path], Overview]
) -> None:
    one = project.worktree("one", "agent/one")
    opened = overview(project.root)
    opened.read_all()
    project.git("worktree", "remove", str(one.root))
    two = project.worktree("two", "agent/two")
    two.write("notes.md", "new\n")
    after = opened.refresh()
    assert [row.name for row in after] == ["repo", "two"]
    assert after[1].files == 1


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")
def test_without_hooks_the_agent_is_named_from_the_tmux_pane_it_runs_in(project: Repo, tmp_path: Path) -> None:
    from review.agents.tmux import Tmux
    from tmux import Terminal

    quiet = project.worktree("quiet", "agent/quiet")
    hooked = project.worktree("hooked", "agent/hooked")
    activity.record(hooked.root, "idle", "claude", "Stop")
    programs = tmp_path / "bin"
    programs.mkdir()
    stand_in = programs / "codex"  # a stand-in agent: a program of that name, at work
    stand_in.write_text("#!/bin/sh\nwhile true; do sleep 1; done\n")
    stand_in.chmod(0o755)
    terminal = Terminal(tmp_path)
    try:
        for tree in (quiet, hooked):
            terminal.tmux("new-window", "-d", "-c", str(tree.root), "--", str(stand_in))
        with Overview(project.root, tmux=Tmux(terminal.socket)) as seen:
            rows = {row.path: row for row in seen.read_all()}
    finally:
        terminal.close()
    assert rows[quiet.root].agent == "codex"
    assert rows[hooked.root].agent == "claude"  # what its hooks said comes first
    assert rows[project.root].agent is None  # no agent in a pane there
