"""Worktrees on other machines, gathered over a real `sshd` started on a loopback port with a
throwaway host key and user key: `review.overview.hosts` and `review status --host`."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import Repo, app_with
from review import __version__
from review.config import load_config
from review.errors import BadConfig, ReviewError
from review.overview.hosts import Host, gather, parse_host, read_status, remote_command, row_from_json
from review.overview.status import Overview, row_json
from review.overview.table import short
from tmux import review_command

SSHD = shutil.which("sshd") or next((p for p in ("/usr/sbin/sshd",) if os.path.exists(p)), None)


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


@dataclass
class Sshd:
    """An sshd of the test's own, and an ssh config that names it `alpha`, `beta` and (a port
    where nothing listens) `down`."""

    ssh: tuple[str, ...]

    def host(self, name: str, repo: Path | str) -> Host:
        return Host(name, str(repo), review_command(), self.ssh)

    def config(self, hosts: list[tuple[str, Path | str]]) -> str:
        return "".join(
            f'[[hosts]]\nname = "{name}"\nrepo = "{repo}"\ncommand = "{review_command()}"\n'
            f'ssh = "{" ".join(self.ssh)}"\n'
            for name, repo in hosts
        )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    if SSHD is None:
        pytest.skip("sshd is not installed here (apt-get install openssh-server; .ci/run installs it)")
    folder = tmp_path_factory.mktemp("sshd")
    for key in ("host_key", "user_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / key)], check=True)
    shutil.copy(folder / "user_key.pub", folder / "authorized_keys")
    port = _free_port()
    (folder / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile {folder / 'sshd.pid'}\n"
        "UsePAM no\nStrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PermitRootLogin prohibit-password\nLogLevel ERROR\n"
    )
    (folder / "ssh_config").write_text(
        f"Host alpha beta\n  HostName 127.0.0.1\n  Port {port}\n"
        f"Host down\n  HostName 127.0.0.1\n  Port {_free_port()}\n"
        f"Host *\n  User {os.environ.get('USER') or subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()}\n"
        f"  IdentityFile {folder / 'user_key'}\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n"
        f"  UserKnownHostsFile {folder / 'known_hosts'}\n  LogLevel ERROR\n"
    )
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", exist_ok=True)  # its privilege separation folder
    server = subprocess.Popen([SSHD, "-D", "-f", str(folder / "sshd_config"), "-E", str(folder / "log")])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail(f"sshd did not start: {(folder / 'log').read_text()}")
        yield Sshd(("ssh", "-F", str(folder / "ssh_config")))
    finally:
        server.terminate()
        server.wait(timeout=10)


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
