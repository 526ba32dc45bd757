"""Worktrees on other machines, gathered over a real `sshd` started on a loopback port with a
throwaway host key and user key: `review.overview.hosts` and `review status --host`."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from bench_tui import Program
from conftest import Repo, app_with
from drawn import Drawn
from review import __version__
from review.agents import activity
from review.config import load_config
from review.errors import BadConfig, ReviewError
from review.overview.hosts import Host, gather, parse_host, read_status, remote_command, row_from_json
from review.overview.status import Overview, row_json
from review.overview.table import short
from review.tui.app import make_overview_app
from review.tui.screens.overview_screen import OverviewScreen
from sshd import Sshd
from tmux import Terminal, review_command

# --- without a network -------------------------------------------------------------------------


def test_a_host_is_written_as_scp_writes_one() -> None:
    assert parse_host("box:src/project") == Host("box", "src/project")
    assert parse_host("me@box") == Host("me@box", ".")
    assert parse_host("box:/a:b") == Host("box", "/a:b")


def test_a_configured_host_lends_its_command_ssh_and_repository() -> None:
    known = Host("box", "~/project", "~/.local/bin/review", ("ssh", "-F", "/cfg"))
    assert parse_host("box", [known]) == known
    assert parse_host("box:other", [known]) == Host("box", "other", "~/.local/bin/review", ("ssh", "-F", "/cfg"))


@pytest.mark.parametrize("text", ["", ":repo", "-oProxyCommand=touch /tmp/x:repo", "a b:repo"])
def test_a_host_that_ssh_would_take_as_an_option_or_nothing_is_refused(text: str) -> None:
    with pytest.raises(ReviewError, match="is not a host"):
        parse_host(text)


def test_the_remote_command_is_quoted_and_never_prompts() -> None:
    argv = remote_command(Host("box", "my project", "~/bin/review"), "status", "--json", "my project")
    assert argv[:6] == ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5", "--"]
    assert argv[6:] == ["box", "~/bin/review status --json 'my project'"]


def test_rows_read_back_from_json_are_the_rows_written(project: Repo) -> None:
    one = project.worktree("one", "agent/one")
    two = project.worktree("two", "agent/two")
    one.write("src/app.py", app_with(l5="five by one"))
    two.write("src/app.py", app_with(l5="five by two"))
    with Overview(project.root) as overview:
        overview.read_all()
        written = json.loads(json.dumps(overview.as_json()))
    gathered = read_status(Host("box"), written)
    assert gathered.problem == "" and gathered.version == __version__
    assert [row_json(row) for row in gathered.rows] == written["worktrees"]


def test_a_newer_or_older_review_there_is_one_line_naming_both_versions() -> None:
    newer = read_status(Host("box"), {"schema": "review-status/2", "version": "0.9.0", "worktrees": []})
    assert newer.problem == (
        f"box runs review 0.9.0 (review-status/2), newer than this review {__version__} (review-status/1):"
        " upgrade review here"
    )
    older = read_status(Host("box"), {"schema": "review-status/0", "worktrees": []})
    assert older.problem == (
        f"box runs a review of another version (review-status/0), older than this review {__version__}"
        " (review-status/1): upgrade review on box"
    )


def test_fields_a_newer_review_added_are_ignored_and_unknown_states_shown_as_unknown() -> None:
    row = row_from_json(
        {"path": "/w", "name": "w", "files": 1, "added": 2, "removed": 0, "agent_state": "dreaming", "new": 1}
    )
    assert (row.agent_state, row.files, row.added) == ("unknown", 1, 2)


def test_the_short_summary_counts_who_waits_on_you_and_the_oldest(project: Repo) -> None:
    for name, minutes in (("one", 5), ("two", 130)):
        tree = project.worktree(name, f"agent/{name}")
        path = tree.write("notes.md", f"{name}\n")
        moment = time.time() - minutes * 60
        os.utime(path, (moment, moment))
    with Overview(project.root) as overview:
        rows = overview.read_all()
    assert short(rows) == "2 wait on you (oldest 2h)\n"
    assert short(rows[:1]) == "nothing waits on you\n"
    assert short(rows, ["box"]) == "2 wait on you (oldest 2h) · 1 host unreachable (box)\n"


def test_hosts_in_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[[hosts]]\nname = "work"\nrepo = "~/p"\ncommand = "~/.local/bin/review"\nssh = "ssh -F ~/.ssh/work"\n'
        '[[hosts]]\nname = "lab"\n[overview]\npoll = 10\n'
    )
    loaded = load_config(config)
    home = os.path.expanduser("~")
    assert loaded.hosts == (
        Host("work", "~/p", "~/.local/bin/review", ("ssh", "-F", f"{home}/.ssh/work")),
        Host("lab"),
    )
    assert loaded.poll == 10.0
    config.write_text('[[hosts]]\nrepo = "x"\n')
    with pytest.raises(BadConfig, match="hosts entry 1 needs a name"):
        load_config(config)


# --- over a real sshd on a loopback port -------------------------------------------------------


@pytest.fixture
def two_hosts(tmp_path: Path, project: Repo) -> tuple[Repo, Repo]:
    """Two repositories, each with an agent's worktree that waits on the reviewer."""
    other = Repo(tmp_path / "other repo")
    other.root.mkdir()
    other.git("init", "--quiet")
    other.write("main.py", "print('hello')\n")
    other.commit("initial")
    for repo, name in ((project, "alpha-agent"), (other, "beta-agent")):
        agent = repo.worktree(name, f"agent/{name}")
        path = agent.write("new.txt", f"work of {name}\n")
        moment = time.time() - 600  # edited ten minutes ago: the agent is done, it waits on you
        os.utime(path, (moment, moment))
    return project, other


def review(*args: str, cwd: Path, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"XDG_CONFIG_HOME": str(config)} if config else {})}
    return subprocess.run([review_command(), *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def test_gathering_two_hosts_and_one_that_cannot_be_reached(sshd: Sshd, two_hosts: tuple[Repo, Repo]) -> None:
    alpha, beta = two_hosts
    gathered = gather([sshd.host("alpha", alpha.root), sshd.host("down", "/anywhere"), sshd.host("beta", beta.root)])

    assert [each.host.name for each in gathered] == ["alpha", "down", "beta"]
    first, down, second = gathered
    assert [row.name for row in first.rows] == ["repo", "alpha-agent"]
    assert [row.name for row in second.rows] == ["other repo", "beta-agent"]
    assert first.rows[1].waits_on == "reviewer" and first.rows[1].files == 1
    assert first.version == __version__ and first.seen_at is not None and first.repo == str(alpha.root)
    assert down.rows == [] and down.problem.startswith("cannot reach down: ")
    assert "\n" not in down.problem


def test_a_missing_repository_or_command_there_is_one_line(sshd: Sshd, tmp_path: Path) -> None:
    missing, lost = gather(
        [sshd.host("alpha", tmp_path / "nothing here"), Host("beta", str(tmp_path), "no-such-review-command", sshd.ssh)]
    )
    assert missing.problem.startswith("alpha: ") and "not" in missing.problem and "\n" not in missing.problem
    assert lost.problem == (
        "'no-such-review-command' is not found on beta (a non-interactive shell's PATH):"
        " set its command in the config file's [[hosts]]"
    )


def test_status_over_ssh_as_json_short_and_table(sshd: Sshd, two_hosts: tuple[Repo, Repo], tmp_path: Path) -> None:
    alpha, beta = two_hosts
    config = tmp_path / "config"
    (config / "review").mkdir(parents=True)
    (config / "review" / "config.toml").write_text(
        sshd.config([("alpha", alpha.root), ("beta", beta.root), ("down", "/anywhere")])
    )
    elsewhere = tmp_path / "not a repository"
    elsewhere.mkdir()

    # --json asks only the hosts named: it is what a machine runs on another, which has its own
    done = review("status", "--json", cwd=elsewhere, config=config)
    assert done.returncode == 1 and "not inside a git repository" in done.stderr, done.stderr
    hosts = [f"--host={name}" for name in ("alpha", "beta", "down")]
    done = review("status", "--json", *hosts, cwd=elsewhere, config=config)
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["worktrees"] == [] and status["repo"] is None  # no repository here: only the hosts
    assert [(host["host"], len(host["worktrees"]), host["problem"] is None) for host in status["hosts"]] == [
        ("alpha", 2, True),
        ("beta", 2, True),
        ("down", 0, False),
    ]

    done = review("status", "--short", cwd=elsewhere, config=config)
    assert done.stdout == "2 wait on you (oldest 10m) · 1 host unreachable (down)\n"

    done = review("status", cwd=elsewhere, config=config)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"alpha:{alpha.root} (seen ")
    assert any(line.startswith("alpha-agent") for line in lines)
    assert any(line.startswith("down:/anywhere: cannot reach down: ") for line in lines)

    # --host picks hosts (lending the config's settings), and here's repository comes first
    done = review("status", "--json", "--host", f"beta:{beta.root}", cwd=alpha.root, config=config)
    status = json.loads(done.stdout)
    assert [row["name"] for row in status["worktrees"]] == ["repo", "alpha-agent"]
    assert [host["host"] for host in status["hosts"]] == ["beta"]


# --- in the overview ---------------------------------------------------------------------------


async def test_the_overview_shows_each_host_in_a_group_and_a_host_it_cannot_reach(
    sshd: Sshd, two_hosts: tuple[Repo, Repo]
) -> None:
    here, there = two_hosts
    hosts = [sshd.host("beta", there.root), sshd.host("down", "/anywhere")]
    with Overview(here.root) as overview:
        app = make_overview_app(overview, watch=False, hosts=hosts)
        async with app.run_test(size=(140, 40)) as pilot:
            screen = app.screen_stack[0]
            assert isinstance(screen, OverviewScreen)
            beta_heading, down_heading = f" beta:{there.root} (seen ", " down:/anywhere: not reached (1)"
            # until both hosts have answered and are drawn (ssh and review there take a while
            # on a loaded machine)
            for _ in range(600):
                await pilot.pause(0.05)
                drawn = Drawn.of(app.export_screenshot()).rows
                if len(screen.rows) == 5 and all(
                    any(line.startswith(h) for line in drawn) for h in (beta_heading, down_heading)
                ):
                    break
            text = "\n".join(drawn)
            # this machine's rows first, grouped by whom they wait on, then each host's
            beta = next((n for n, line in enumerate(drawn) if line.startswith(beta_heading)), None)
            down = next((n for n, line in enumerate(drawn) if line.startswith(down_heading)), None)
            assert beta is not None and down is not None, text
            assert "beta-agent" in drawn[beta + 1] and "other repo" in drawn[beta + 2]
            assert "alpha-agent" in "\n".join(drawn[:beta]) and beta < down
            assert "problem: cannot reach down: " in drawn[down + 1]
            # both agents wait on the reviewer: the queue counts them across machines
            assert "2 wait on you" in text
            assert sorted(row.name for row in screen.table.queue) == ["alpha-agent", "beta-agent"]
            # the detail of another machine's worktree has no hunks to read here, and says so
            screen.select(Path(f"beta:{there.root.parent / 'beta-agent'}"))
            await pilot.pause()
            assert screen.table.row is not None and screen.table.row.host == "beta"
            assert not [toast for toast in app._notifications if toast.severity == "error"]


def _overview_in_a_terminal(sshd: Sshd, two_hosts: tuple[Repo, Repo], tmp_path: Path) -> Terminal:
    """`review all` of the first repository in tmux, with the second one's host in the config."""
    here, there = two_hosts
    config = tmp_path / "config"
    (config / "review").mkdir(parents=True)
    (config / "review" / "config.toml").write_text(sshd.config([("beta", there.root)]))
    return Terminal(here.root, width=140, height=40, env={"XDG_CONFIG_HOME": str(config)})


def test_a_worktree_on_another_machine_opens_in_this_terminal_and_comes_back(
    sshd: Sshd, two_hosts: tuple[Repo, Repo], tmp_path: Path
) -> None:
    terminal = _overview_in_a_terminal(sshd, two_hosts, tmp_path)
    try:
        # outside tmux, the review there takes this terminal until it ends
        terminal.run(f"env -u TMUX {review_command()} all")
        terminal.wait_for("beta-agent")
        terminal.keys("G", "k")  # the last row is beta's main worktree; above it, its agent's
        terminal.keys("Enter")
        screen = terminal.wait_for("work of beta-agent")
        assert screen.splitlines()[0].lstrip().startswith("beta-agent")  # the review's header, there
        terminal.keys("q")
        screen = terminal.wait_for("(seen ")
        assert "alpha-agent" in screen and "Traceback" not in screen
        terminal.keys("q")
    finally:
        terminal.close()


def test_inside_tmux_a_worktree_on_another_machine_opens_in_a_window_of_its_own(
    sshd: Sshd, two_hosts: tuple[Repo, Repo], tmp_path: Path
) -> None:
    terminal = _overview_in_a_terminal(sshd, two_hosts, tmp_path)
    try:
        terminal.run(f"{review_command()} all")
        terminal.wait_for("beta-agent")
        terminal.keys("G", "k", "Enter")
        for _ in range(100):
            windows = terminal.tmux("list-windows", "-t", "main", "-F", "#{window_index} #{window_name}").split("\n")
            if len([window for window in windows if window]) == 2:
                break
            time.sleep(0.1)
        assert "beta-agent" in windows[1], windows
        index = windows[1].split()[0]
        for _ in range(100):
            if "work of beta-agent" in terminal.tmux("capture-pane", "-p", "-t", f"main:{index}"):
                break
            time.sleep(0.1)
        else:
            raise AssertionError(terminal.tmux("capture-pane", "-p", "-t", f"main:{index}"))
        # the overview stays where it was, in its own window
        assert "(seen " in terminal.tmux("capture-pane", "-p", "-t", "main:0")
    finally:
        terminal.close()


async def test_without_a_repository_here_the_overview_shows_the_hosts_alone(
    sshd: Sshd, two_hosts: tuple[Repo, Repo]
) -> None:
    _, there = two_hosts
    app = make_overview_app(None, watch=False, hosts=[sshd.host("beta", there.root)])
    async with app.run_test(size=(140, 40)) as pilot:
        screen = app.screen_stack[0]
        assert isinstance(screen, OverviewScreen)
        for _ in range(200):
            await pilot.pause(0.05)
            if screen.rows:
                break
        text = "\n".join(Drawn.of(app.export_screenshot()).rows)
        assert text.splitlines()[0].strip().startswith("1/1 hosts  2 worktrees · 1 waits on you")
        assert f"beta:{there.root} (seen " in text and "beta-agent" in text
        await pilot.press("question_mark")  # the help of an overview without a repository
        await pilot.pause()
        assert not [toast for toast in app._notifications if toast.severity == "error"]


def test_the_overview_run_over_ssh_tells_the_terminal_at_this_end(sshd: Sshd, two_hosts: tuple[Repo, Repo]) -> None:
    # The reviewer on a laptop (a kitty terminal: ssh forwards TERM) runs the overview on the
    # workstation with `ssh -t`; an agent there finishes; the notification crosses the connection.
    here, _ = two_hosts
    agent = here.root.parent / "alpha-agent"
    activity.record(agent, "working", "claude", "PreToolUse")
    remote = f"{review_command()} all {shlex.quote(str(here.root))}"
    program = Program(["env", "TERM=xterm-kitty", *sshd.ssh, "-tt", "alpha", remote], (120, 30))
    try:
        program.wait_for(b"alpha-agent", timeout=30)
        program.settle(1.0)
        start = len(program.output)
        deadline = time.monotonic() + 30
        while b"\x1b]9;review: alpha-agent" not in program.output[start:]:
            assert time.monotonic() < deadline, bytes(program.output[start:])[-2000:]
            activity.record(agent, "idle", "claude", "Stop")  # again each second, until it is followed
            until = time.monotonic() + 1
            while time.monotonic() < until:
                program.read(0.1)
    finally:
        program.stop()
