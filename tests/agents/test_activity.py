"""What the agent is doing, as its hooks last recorded it: `review.agents.activity`."""

from __future__ import annotations

import json
from pathlib import Path

from review.agents import activity
from review.agents.activity import AgentState
from review.state.store import FOLDER


def test_a_recorded_state_is_read_back(tmp_path: Path) -> None:
    activity.record(tmp_path, "waiting", "claude", "Notification")
    state = activity.read(tmp_path)
    assert state is not None
    assert (state.state, state.agent, state.event) == ("waiting", "claude", "Notification")


def test_the_last_record_wins(tmp_path: Path) -> None:
    activity.record(tmp_path, "working", "codex", "UserPromptSubmit")
    activity.record(tmp_path, "idle", "codex", "Stop")
    state = activity.read(tmp_path)
    assert state is not None and state.state == "idle"


def test_recording_makes_the_review_folder_that_git_ignores(tmp_path: Path) -> None:
    activity.record(tmp_path, "idle", "claude", "Stop")
    assert (tmp_path / FOLDER / ".gitignore").read_text() == "*\n"


def test_nothing_recorded_reads_as_none(tmp_path: Path) -> None:
    assert activity.read(tmp_path) is None


def test_an_unreadable_record_reads_as_none(tmp_path: Path) -> None:
    activity.record(tmp_path, "idle", "claude", "Stop")
    (tmp_path / FOLDER / activity.FILE).write_text("{not json")
    assert activity.read(tmp_path) is None


def test_an_unknown_state_reads_as_none(tmp_path: Path) -> None:
    activity.record(tmp_path, "idle", "claude", "Stop")
    (tmp_path / FOLDER / activity.FILE).write_text(json.dumps({"state": "sleeping", "at": "2026-01-01T00:00:00Z"}))
    assert activity.read(tmp_path) is None


def test_a_record_without_agent_or_event_still_reads(tmp_path: Path) -> None:
    activity.record(tmp_path, "idle", "claude", "Stop")
    (tmp_path / FOLDER / activity.FILE).write_text(json.dumps({"state": "working", "at": "2026-01-01T00:00:00Z"}))
    assert activity.read(tmp_path) == AgentState(state="working", at="2026-01-01T00:00:00Z", agent="", event="")


def test_age_of_a_fresh_record_is_near_zero(tmp_path: Path) -> None:
    activity.record(tmp_path, "idle", "claude", "Stop")
    state = activity.read(tmp_path)
    assert state is not None and 0 <= state.age() < 5


def test_age_counts_from_when_it_was_recorded(tmp_path: Path) -> None:
    old = AgentState(state="idle", at="2000-01-01T00:00:00Z", agent="claude", event="Stop")
    assert old.age() > 20 * 365 * 24 * 3600


def test_age_of_an_unreadable_time_is_infinite() -> None:
    state = AgentState(state="idle", at="yesterday", agent="claude", event="Stop")
    assert state.age() == float("inf")
