"""`review export` as a process: a round made with the command line, printed in each format, and
posted through a stand-in for `gh` that records what it was asked."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Repo
from tmux import review_command

POST = ["api", "repos/{owner}/{repo}/pulls/7/reviews", "--method", "POST", "--input", "-"]
PR_VIEW = ["pr", "view", "--json", "number,headRefOid,url"]


def review(repo: Repo, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ) if path is None else {**os.environ, "PATH": path}
    return subprocess.run(
        [review_command(), *args], cwd=repo.root, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def ok(repo: Repo, *args: str) -> str:
    done = review(repo, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def sent(agent_worktree: Repo) -> Repo:
    """A worktree with a round sent: comments on each side, a range, a file, and a thread."""
    ok(agent_worktree, "comment", "src/app.py:5", "--severity", "must", "-m", "Why `double`? \x1b[31mred")
    ok(agent_worktree, "comment", "src/app.py:30", "--old", "--severity", "nit", "-m", "This was fine")
    ok(agent_worktree, "comment", "src/app.py:54-56", "-m", "One loop would do")
    ok(agent_worktree, "comment", "docs/guide.md", "--severity", "question", "-m", "Is this needed?")
    ok(agent_worktree, "comment", "src/util.py:2", "-m", "Name the number")
    ok(agent_worktree, "send", "-m", "Mostly fine", "--request-changes")
    ok(agent_worktree, "reply", "c1", "-m", "Done\x1b]0;pwned\x07")
    # The agent moves the code of c5 after the round was sent.
    agent_worktree.write("src/util.py", "import os\n\n\ndef helper():\n    return 42\n")
    return agent_worktree


def only_git(tmp_path: Path) -> Path:
    """A folder for PATH that holds git and nothing else (no gh)."""
    folder = tmp_path / "only-git"
    folder.mkdir(exist_ok=True)
    git = shutil.which("git")
    assert git is not None
    (folder / "git").symlink_to(git)
    return folder


def stand_in_gh(tmp_path: Path, pr: dict[str, object] | None, api_fails: bool = False) -> tuple[str, Path]:
    """A PATH whose `gh` records each call (its arguments, folder and stdin) in a file and answers
    as gh does: the pull request `pr` (none when None), and the posted review, or GitHub's 422."""
    folder = tmp_path / "stand-in"
    folder.mkdir()
    calls = tmp_path / "gh-calls.jsonl"
    script = f"""#!{sys.executable}
import json, os, sys
args = sys.argv[1:]
stdin = sys.stdin.read() if "--input" in args else None
with open({str(calls)!r}, "a") as calls:
    calls.write(json.dumps({{"args": args, "cwd": os.getcwd(), "stdin": stdin}}) + "\\n")
if args[:2] == ["pr", "view"]:
    pr = {json.dumps(pr)!r}
    if pr == "null":
        sys.exit('no pull requests found for branch "agent/work"')
    print(pr)
elif {api_fails!r}:
    print(json.dumps({{"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]}}))
    sys.exit("gh: Unprocessable Entity (HTTP 422)")
else:
    print(json.dumps({{"id": 80, "html_url": "https://github.com/o/r/pull/7#pullrequestreview-80"}}))
"""
    gh = folder / "gh"
    gh.write_text(script)
    gh.chmod(0o755)
    return f"{folder}{os.pathsep}{only_git(tmp_path)}", calls


def recorded(calls: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in calls.read_text().splitlines()]


def test_markdown_is_the_round_for_a_chat(sent: Repo) -> None:
    text = ok(sent, "export", "--format", "markdown")
    assert text.startswith("# Review of agent (agent/work): round r1, changes requested\n")
    assert "\n> Mostly fine\n" in text
    assert "### c1 · must · line 5 · open\n" in text
    assert "### c2 · nit · line 30 of the old version (removed code) · open\n" in text
    assert "### c3 · should · lines 54-56 · open\n" in text
    assert "### c4 · question · the whole file · open\n" in text
    assert "### c5 · should · line 5 (moved since the comment was written) · open\n" in text
    assert "Why `double`? ^[[31mred" in text and ":*\n> Done^[]0;pwned^G" in text
    assert "\x1b" not in text and "\x07" not in text


def test_json_is_the_round_with_the_fields_of_pending(sent: Repo) -> None:
    document = json.loads(ok(sent, "export", "--format", "json"))
    assert document["round"]["id"] == "r1"
    assert [(c["id"], c["line"], c["status"]) for c in document["comments"] if c["path"] == "src/util.py"] == [
        ("c5", 5, "open")
    ]


def test_github_prints_the_review_body_with_the_worktrees_commit(sent: Repo) -> None:
    review = json.loads(ok(sent, "export", "--format", "github"))
    assert set(review) == {"body", "event", "commit_id", "comments"}
    assert (review["event"], review["commit_id"]) == ("REQUEST_CHANGES", sent.head())
    assert review["body"] == "Mostly fine\n\nOn the whole of `docs/guide.md`: **question:** Is this needed?"
    assert [(c["path"], c.get("start_line"), c["line"], c["side"]) for c in review["comments"]] == [
        ("src/app.py", None, 5, "RIGHT"),
        ("src/app.py", 54, 56, "RIGHT"),
        ("src/app.py", None, 30, "LEFT"),
        ("src/util.py", None, 5, "RIGHT"),
    ]


def test_an_older_round_is_named_with_round(sent: Repo) -> None:
    ok(sent, "comment", "src/app.py:1", "-m", "Later")
    ok(sent, "send")
    assert json.loads(ok(sent, "export", "--format", "json"))["round"]["id"] == "r2"
    older = json.loads(ok(sent, "export", "--round", "r1", "--format", "json"))
    assert older["round"]["id"] == "r1" and len(older["comments"]) == 5


def test_an_unknown_round_is_one_line(sent: Repo) -> None:
    done = review(sent, "export", "--round", "r9", "--format", "markdown")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "review: no round 'r9' in this worktree's review (sent: r1)\n"


def test_no_round_sent_yet_is_one_line(project: Repo) -> None:
    done = review(project, "export", "--format", "github")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("review: no review has been sent") and len(done.stderr.splitlines()) == 1


def test_post_goes_only_with_the_github_format(sent: Repo) -> None:
    done = review(sent, "export", "--format", "markdown", "--post")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1


def test_post_without_gh_is_one_line(sent: Repo, tmp_path: Path) -> None:
    done = review(sent, "export", "--format", "github", "--post", path=str(only_git(tmp_path)))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("review: gh, GitHub's command line, is not installed")
    assert len(done.stderr.splitlines()) == 1


def test_post_without_a_pull_request_is_one_line(sent: Repo, tmp_path: Path) -> None:
    path, calls = stand_in_gh(tmp_path, None)
    done = review(sent, "export", "--format", "github", "--post", path=path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == 'review: no pull request to post to: no pull requests found for branch "agent/work"\n'
    assert [call["args"] for call in recorded(calls)] == [PR_VIEW]


def test_post_finds_the_pull_request_and_posts_the_review_to_it(sent: Repo, tmp_path: Path) -> None:
    url = "https://github.com/o/r/pull/7"
    path, calls = stand_in_gh(tmp_path, {"number": 7, "headRefOid": sent.head(), "url": url})
    printed = json.loads(ok(sent, "export", "--format", "github"))
    done = review(sent, "export", "--format", "github", "--post", path=path)
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == (
        "Posted round r1 as a review of pull request #7: https://github.com/o/r/pull/7#pullrequestreview-80\n",
        "",
    )
    view, post = recorded(calls)
    assert (view["args"], view["cwd"]) == (PR_VIEW, str(sent.root))
    assert (post["args"], post["cwd"]) == (POST, str(sent.root))
    assert isinstance(post["stdin"], str) and json.loads(post["stdin"]) == printed


def test_post_reviews_the_pull_requests_head_and_says_when_it_is_not_here(sent: Repo, tmp_path: Path) -> None:
    pushed = "0123456789abcdef0123456789abcdef01234567"
    path, calls = stand_in_gh(tmp_path, {"number": 7, "headRefOid": pushed, "url": "https://github.com/o/r/pull/7"})
    done = review(sent, "export", "--format", "github", "--post", path=path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("review: the pull request's head is 0123456789ab, not this worktree's ")
    [_, post] = recorded(calls)
    assert isinstance(post["stdin"], str) and json.loads(post["stdin"])["commit_id"] == pushed


def test_githubs_refusal_is_one_line_with_its_reasons(sent: Repo, tmp_path: Path) -> None:
    path, _ = stand_in_gh(tmp_path, {"number": 7, "headRefOid": sent.head(), "url": "u"}, api_fails=True)
    done = review(sent, "export", "--format", "github", "--post", path=path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "review: GitHub refused the review: Unprocessable Entity (HTTP 422); Line could not be resolved\n"
    )
