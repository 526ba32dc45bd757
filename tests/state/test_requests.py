"""The agent's request for a review (`review.state.requests`): recorded in the review file,
replaced by a newer one, answered by the next round sent."""

from __future__ import annotations

import json

from conftest import Repo
from review.repo import scope
from review.repo.git import find_worktree
from review.repo.lines import FileReader
from review.state import comments, requests, rounds
from review.state.comments import Where
from review.state.store import Store


def send(tree: Repo, summary: str = "", *, comment: bool = False) -> None:
    worktree = find_worktree(tree.root)
    store = Store(worktree.root)
    read = FileReader(worktree, scope.resolve(worktree, scope.Scope()).old)
    if comment:
        comments.add(store, Where("src/app.py", line=5), "why?", "should", read("src/app.py", "new"))
    rounds.send(store, worktree, "comment", summary, read)


def test_a_request_is_kept_in_the_review_file_with_its_message_and_time(agent_worktree: Repo) -> None:
    store = Store(agent_worktree.root)
    made = requests.ask(store, "  The parser is done; look at the error paths.\n")

    written = json.loads(store.path.read_text())["request"]
    assert written == {"message": "The parser is done; look at the error paths.", "at": made.at}
    assert store.read().request == made


def test_asking_again_replaces_the_request(agent_worktree: Repo) -> None:
    store = Store(agent_worktree.root)
    requests.ask(store, "first")
    requests.ask(store, "")

    standing = store.read().request
    assert standing is not None and standing.message == ""


def test_sending_a_round_answers_the_request(agent_worktree: Repo) -> None:
    store = Store(agent_worktree.root)
    requests.ask(store, "done")
    send(agent_worktree, comment=True)

    assert store.read().request is None
    assert json.loads(store.path.read_text())["request"] is None


def test_a_summary_alone_answers_it_too(agent_worktree: Repo) -> None:
    store = Store(agent_worktree.root)
    requests.ask(store, "done")
    send(agent_worktree, "Looks fine so far")
    assert store.read().request is None


def test_a_request_made_after_the_round_stands(agent_worktree: Repo) -> None:
    store = Store(agent_worktree.root)
    send(agent_worktree, comment=True)
    requests.ask(store, "fixed c1")
    standing = store.read().request
    assert standing is not None and standing.message == "fixed c1"


def test_keys_of_a_newer_version_in_a_request_are_kept(agent_worktree: Repo) -> None:
    store = Store(agent_worktree.root)
    requests.ask(store, "done")
    data = json.loads(store.path.read_text())
    data["request"]["urgency"] = "high"
    store.path.write_text(json.dumps(data))

    comments.add(store, Where("src/util.py"), "a file-level comment", "nit", None)  # any other write

    assert json.loads(store.path.read_text())["request"]["urgency"] == "high"
