"""The overview of a worktree whose agent asked for a review: its row says "requested" and why,
among those that wait on the reviewer, and the detail pane gives what the agent said and when."""

from __future__ import annotations

from datetime import UTC, datetime

from test_overview import WIDE, drawn, line_of, loaded, overview_of

from conftest import Repo
from review.overview.status import Overview
from review.state import requests
from review.state.model import Review
from review.state.store import Store
from review.tui.app import make_overview_app
from review.tui.widgets.radar_detail import RadarDetail

ASKED = datetime(2026, 3, 2, 12, 0, tzinfo=UTC).timestamp()
MESSAGE = "The parser is done.\nLook at the error paths \x1b[31mfirst\x1b[0m.\n" + "".join(
    f"point {n}\n" for n in range(1, 9)
)


def ask(tree: Repo) -> None:
    store = Store(tree.root)
    requests.ask(store, MESSAGE)

    def at_a_fixed_time(review: Review) -> None:
        assert review.request is not None
        review.request.at = "2026-03-02T12:00:00Z"

    store.update(at_a_fixed_time)


async def test_the_row_and_the_detail_give_the_request(project: Repo) -> None:
    agent = project.worktree("agent", "agent/work")
    agent.write("src/app.py", "changed\n")
    ask(agent)
    with Overview(project.root) as overview:
        app = make_overview_app(overview, watch=False, now=lambda: ASKED + 300)
        async with app.run_test(size=WIDE, notifications=True) as pilot:
            await loaded(pilot)
            table = overview_of(pilot).table
            assert table.row is not None and table.row.name == "agent"  # first in the queue

            line = line_of(drawn(pilot), "agent")
            assert "requested" in line and "the agent asks for a review: The parser is done." in line
            assert line.split()[0] == "1"  # numbered: it waits on the reviewer

            detail = overview_of(pilot).query_one(RadarDetail).text
            assert "Waits on you: the agent asks for a review: The parser is done." in detail
            assert "The agent asked for a review 5m ago:\n  The parser is done.\n" in detail
            assert "  Look at the error paths ^[[31mfirst^[[0m.\n" in detail  # inert
            assert "  point 4\n  … 4 more lines\n" in detail and "point 5" not in detail
            assert "review requested" in detail
