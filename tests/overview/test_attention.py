"""What calls for the reviewer between two readings of the rows, and what the terminal is sent
to tell of it (`review.overview.attention`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from review.overview.attention import Call, calls, resolve_notify, signal
from review.overview.rows import Row


def row(name: str = "a", **fields: Any) -> Row:
    return Row(path=Path("/work") / name, name=name, branch=f"agent/{name}", head="0" * 40, **fields)


def after(before: Row, **fields: Any) -> Row:
    return dataclasses.replace(before, **fields)


def news(was: Row, now: Row) -> list[str]:
    return [call.says for call in calls({was.path: was}, [now])]


SENT = row(review_state="sent", waits_on="agent", reason="comments to address", open_comments=2)
ASKING = row(agent_state="waiting", waits_on="reviewer", reason="the agent asks for permission", files=1)


def test_an_answered_review_calls() -> None:
    now = after(SENT, review_state="answered", waits_on="reviewer", reason="the agent answered")
    assert calls({SENT.path: SENT}, [now]) == [Call(SENT.path, "a", "the agent answered the review")]


def test_a_review_whose_comments_are_all_addressed_calls() -> None:
    now = after(SENT, review_state="addressed", waits_on="reviewer", reason="the agent addressed every comment")
    assert news(SENT, now) == ["the agent addressed every comment"]


def test_an_agent_that_asks_for_permission_calls() -> None:
    working = row(agent_state="working", waits_on="agent", files=3)
    now = after(working, agent_state="waiting", waits_on="reviewer", reason="the agent asks for permission")
    assert news(working, now) == ["the agent asks for permission"]


def test_an_agent_that_went_idle_calls_even_when_the_review_still_waits_on_it() -> None:
    working = after(SENT, agent_state="working")
    assert news(working, after(working, agent_state="idle")) == ["the agent is idle"]


def test_a_worktree_that_became_ready_for_review_calls() -> None:
    active = row(agent_state="active", waits_on="agent", reason="the agent is at work", files=2)
    now = after(active, agent_state="unknown", waits_on="reviewer", reason="ready for review")
    assert news(active, now) == ["ready for review"]


def test_one_call_per_worktree_the_most_telling() -> None:
    working = after(SENT, agent_state="working")
    now = after(working, agent_state="idle", review_state="answered", waits_on="reviewer", reason="the agent answered")
    assert news(working, now) == ["the agent answered the review"]


@pytest.mark.parametrize(
    ("was", "now"),
    [
        (row(files=1), row(files=2)),  # more work, nothing new to do
        (row(waits_on="reviewer", reason="ready for review"), row(waits_on="reviewer", reason="ready for review")),
        (row(waits_on="reviewer"), row(review_state="drafts", waits_on="reviewer", reason="drafts not sent")),
        (row(files=1), row(review_state="drafts", waits_on="reviewer", reason="drafts not sent")),
        (row(waits_on="reviewer"), SENT),  # the reviewer sent a review
        (ASKING, after(ASKING, files=4)),  # still asking
        (row(agent_state="idle"), row(agent_state="idle", files=4)),
    ],
)
def test_what_the_reviewer_did_or_what_goes_on_calls_for_nothing(was: Row, now: Row) -> None:
    assert news(was, now) == []


def test_a_worktree_seen_for_the_first_time_calls_for_nothing() -> None:
    now = row("new", agent_state="waiting", waits_on="reviewer", reason="the agent asks for permission")
    assert calls({}, [now]) == []


def test_a_row_that_could_not_be_read_calls_for_nothing_on_either_side() -> None:
    broken = row(problem="review file: not JSON")
    answered = after(SENT, review_state="answered", waits_on="reviewer", reason="the agent answered")
    assert news(broken, answered) == []
    assert news(SENT, after(answered, problem="git: index is locked")) == []


def test_calls_come_in_the_order_of_the_rows() -> None:
    names = ["c", "a", "b"]
    was = {row(name).path: row(name, agent_state="working") for name in names}
    now = [row(name, agent_state="waiting") for name in names]
    assert [call.name for call in calls(was, now)] == names


# -- which way the terminal is told ---------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"TERM_PROGRAM": "iTerm.app", "TERM": "xterm-256color"}, "osc9"),
        ({"TERM_PROGRAM": "ghostty", "TERM": "xterm-ghostty"}, "osc9"),
        ({"TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"}, "osc9"),
        ({"TERM_PROGRAM": "WezTerm", "TERM": "xterm-256color", "WEZTERM_PANE": "0"}, "osc777"),
        ({"TERM": "foot"}, "osc777"),
        ({"TERM": "foot-extra"}, "osc777"),
        # Where a notification is not shown as the terminal comes, the bell.
        ({"TERM": "xterm-256color", "WT_SESSION": "5d4f"}, "bell"),
        ({"TERM": "xterm-256color", "VTE_VERSION": "7600"}, "bell"),
        ({"TERM": "rxvt-unicode-256color"}, "bell"),
        ({"TERM_PROGRAM": "Apple_Terminal", "TERM": "xterm-256color"}, "bell"),
        ({"TERM": "xterm-256color"}, "bell"),
        ({}, "bell"),
        # Inside tmux TERM names tmux; what the outer terminal left in the environment tells.
        ({"TERM_PROGRAM": "tmux", "TERM": "tmux-256color", "TMUX": "/tmp/t,1,0", "LC_TERMINAL": "iTerm2"}, "osc9"),
        ({"TERM_PROGRAM": "tmux", "TERM": "screen-256color", "TMUX": "/t,1,0", "KITTY_WINDOW_ID": "3"}, "osc9"),
        ({"TERM_PROGRAM": "tmux", "TERM": "tmux-256color", "TMUX": "/t,1,0", "WEZTERM_PANE": "2"}, "osc777"),
        ({"TERM_PROGRAM": "tmux", "TERM": "tmux-256color", "TMUX": "/t,1,0"}, "bell"),
        # The terminal that names itself wins over what a terminal it was started from left.
        ({"TERM_PROGRAM": "vscode", "TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"}, "bell"),
    ],
)
def test_auto_picks_what_the_terminal_shows(env: dict[str, str], expected: str) -> None:
    assert resolve_notify("auto", env) == expected


@pytest.mark.parametrize("setting", ["bell", "osc9", "osc777", "off"])
def test_a_setting_other_than_auto_is_taken_as_it_is(setting: Any) -> None:
    assert resolve_notify(setting, {"TERM_PROGRAM": "iTerm.app"}) == setting


# -- what is written ------------------------------------------------------------------------

ANSWERED = Call(Path("/work/a"), "a", "the agent answered the review")


def test_the_bell_is_one_byte() -> None:
    assert signal([ANSWERED], "bell", {}) == "\a"


def test_osc9_tells_the_worktree_and_why() -> None:
    assert signal([ANSWERED], "osc9", {}) == "\x1b]9;review: a: the agent answered the review\x07"


def test_osc777_has_a_title_and_a_body() -> None:
    assert signal([ANSWERED], "osc777", {}) == "\x1b]777;notify;review;a: the agent answered the review\x07"


def test_nothing_is_written_for_no_calls_or_when_off() -> None:
    assert signal([], "osc9", {}) == ""
    assert signal([ANSWERED], "off", {}) == ""


def test_several_calls_make_one_notification() -> None:
    three = [Call(Path(f"/work/{name}"), name, "ready for review") for name in ("a", "b", "c")]
    assert signal(three, "osc777", {}) == "\x1b]777;notify;review;3 worktrees need you: a, b, c\x07"


def test_inside_tmux_the_notification_passes_through_and_rings_the_bell() -> None:
    written = signal([ANSWERED], "osc9", {"TMUX": "/tmp/tmux-0/default,1,0"})
    inner = "\x1b]9;review: a: the agent answered the review\x07"
    assert written == "\x1bPtmux;" + inner.replace("\x1b", "\x1b\x1b") + "\x1b\\\a"


def test_inside_tmux_the_bell_is_just_the_bell() -> None:
    assert signal([ANSWERED], "bell", {"TMUX": "/tmp/tmux-0/default,1,0"}) == "\a"


@pytest.mark.parametrize("how", ["osc9", "osc777"])
def test_control_characters_and_semicolons_in_names_never_reach_the_terminal(how: Any) -> None:
    hostile = "x\x1b]0;pwned\x07;y\x9b2J\x7f\x00z"
    written = signal([Call(Path("/work/x"), hostile, "ready for review")], how, {})
    body = written.removeprefix("\x1b]9;" if how == "osc9" else "\x1b]777;notify;review;").removesuffix("\x07")
    assert body.endswith("x]0 pwned y2Jz: ready for review")
    assert not any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in body)
    assert body.count(";") == 0


def test_a_long_name_is_cut_and_the_text_bounded() -> None:
    many = [Call(Path(f"/work/{n}"), "n" * 300 + str(n), "ready for review") for n in range(20)]
    written = signal(many, "osc9", {})
    assert len(written) <= 220
    assert written.startswith("\x1b]9;review: 20 worktrees need you: " + "n" * 40 + ", ")
    assert written.endswith("…\x07")
