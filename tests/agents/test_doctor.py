"""`review doctor`: each link of the review loop checked, each problem in one line with the command
that fixes it, exit 0 only when all is well; and what the TUI asks after sending (which agents have
hooks, whether `review watch` runs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Repo
from review.agents import codex_trust, install
from review.agents.doctor import hooks_installed, watch_running

VENV_REVIEW = Path(sys.executable).parent / "review"

pytestmark = pytest.mark.skipif(not VENV_REVIEW.is_file(), reason="needs the installed review script")


def home() -> Path:
    return Path.home()


def put_review_on_path() -> Path:
    """Link review into ~/.local/bin, on PATH here and in a login shell, as the README's install does."""
    local_bin = home() / ".local" / "bin"
    local_bin.mkdir(parents=True, exist_ok=True)
    (local_bin / "review").symlink_to(VENV_REVIEW)
    (home() / ".profile").write_text('PATH="$HOME/.local/bin:$PATH"\n')
    return local_bin / "review"


def run(
    *args: str, cwd: Path, program: Path = VENV_REVIEW, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`review ARGS` as a user runs it, with PATH as given (by default: without review on it)."""
    env = dict(os.environ)
    system = os.pathsep.join(
        folder for folder in env["PATH"].split(os.pathsep) if not (Path(folder) / "review").exists()
    )
    env["PATH"] = path if path is not None else system
    return subprocess.run(
        [str(program), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def on_path(*folders: Path) -> str:
    """PATH with `folders` first, and the system's folders without any review."""
    system = [folder for folder in os.environ["PATH"].split(os.pathsep) if not (Path(folder) / "review").exists()]
    return os.pathsep.join([*map(str, folders), *system])


def trust_codex_hooks() -> None:
    """Trust review's user-wide Codex hooks as Codex writes it when the user does in /hooks."""
    hooks_json = home() / ".codex" / "hooks.json"
    text = "[hooks.state]\n"
    for event, group, index, entry, hook in install.review_hook_places(hooks_json, "codex"):
        place = codex_trust.key(hooks_json, event, group, index)
        text += f'\n[hooks.state."{place}"]\ntrusted_hash = "{codex_trust.trust_hash(event, entry, hook)}"\n'
    codex_trust.config_file(home()).write_text(text)


def problems(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith("problem")]


def start_watch(command: list[str], cwd: Path) -> subprocess.Popen[str]:
    watch = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert watch.stdout is not None
    # Its first line says it is watching: from then on it is a process with its command line.
    assert watch.stdout.readline().startswith("watching")
    return watch


def stop(watch: subprocess.Popen[str]) -> None:
    # SIGTERM, not SIGINT: a test run started in the background (`pytest &` in a script) passes
    # on an ignored SIGINT to every process it starts, as shells do for background jobs
    watch.terminate()
    watch.communicate(timeout=30)


@pytest.fixture
def watching(project: Repo) -> Iterator[subprocess.Popen[str]]:
    """A real `review watch` for the project, running until the test ends."""
    watch = start_watch([str(VENV_REVIEW), "watch", str(project.root)], project.root)
    yield watch
    if watch.poll() is None:
        stop(watch)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_with_everything_in_place_doctor_says_all_is_well_and_exits_0(
    project: Repo, watching: subprocess.Popen[str]
) -> None:
    review = put_review_on_path()
    path = on_path(review.parent)
    assert run("install", "all", cwd=project.root, program=review, path=path).returncode == 0
    trust_codex_hooks()

    done = run("doctor", cwd=project.root, program=review, path=path)

    assert (done.returncode, problems(done)) == (0, [])
    assert f"ok       review is on PATH: {review}" in done.stdout
    assert "ok       the skill is installed for claude (user-wide), codex (user-wide), pi (user-wide)" in done.stdout
    assert "review's hooks are installed for claude (user-wide), codex (user-wide)" in done.stdout
    assert "ok       review watch is running for this repository" in done.stdout
    assert "ok       git version " in done.stdout
    assert done.stdout.endswith("all is well\n")


def test_review_missing_from_path_is_named_with_the_commands_that_put_it_there(project: Repo) -> None:
    done = run("doctor", cwd=project.root)
    assert done.returncode == 1
    assert problems(done)[0] == (
        f"problem  review is not on PATH: agents are told to run {VENV_REVIEW} instead (once fixed, open a new"
        f" shell); to fix it: mkdir -p ~/.local/bin && ln -sf {VENV_REVIEW} ~/.local/bin/review"
        " && echo 'export PATH=\"$HOME/.local/bin:$PATH\"' >> ~/.profile"
    )


def test_review_that_a_login_shell_does_not_find_is_named(project: Repo) -> None:
    # On PATH here, but a login shell's profile (Debian's /etc/profile) sets PATH anew.
    review = put_review_on_path()
    (home() / ".profile").unlink()
    done = run("doctor", cwd=project.root, program=review, path=on_path(review.parent))
    assert "a login shell (bash -lc, as Codex runs commands) does not find it" in problems(done)[0]
    assert problems(done)[0].endswith("to fix it: echo 'export PATH=\"$HOME/.local/bin:$PATH\"' >> ~/.profile")


def test_following_the_path_fix_makes_the_problem_go(project: Repo) -> None:
    fix = run("doctor", cwd=project.root).stdout.splitlines()[0].partition("to fix it: ")[2]
    subprocess.run(["bash", "-c", fix], check=True)
    review = home() / ".local" / "bin" / "review"
    done = run("doctor", cwd=project.root, program=review, path=on_path(review.parent))
    assert done.stdout.splitlines()[0] == f"ok       review is on PATH: {review}"


def test_a_skill_link_into_a_removed_install_is_named(project: Repo, tmp_path: Path) -> None:
    link = home() / ".claude" / "skills" / "review"
    link.parent.mkdir(parents=True)
    gone = tmp_path / "old-venv" / "skills" / "review"
    link.symlink_to(gone)
    done = run("doctor", cwd=project.root)
    assert (
        f"problem  the skill link {link} points to {gone}, which is gone; to fix it: {VENV_REVIEW} install claude"
        in (problems(done))
    )


def test_no_skill_and_no_hooks_are_named_with_the_install_that_fixes_them(project: Repo) -> None:
    done = run("doctor", cwd=project.root)
    assert f"problem  the review skill is installed for no agent; to fix it: {VENV_REVIEW} install all" in problems(
        done
    )
    assert any(line.startswith("problem  no agent has review's hooks") for line in problems(done))


def test_hooks_that_run_a_removed_review_are_named(project: Repo) -> None:
    run("install", "codex", cwd=project.root)
    hooks = home() / ".codex" / "hooks.json"
    hooks.write_text(hooks.read_text().replace(str(VENV_REVIEW), "/gone/venv/bin/review"))
    done = run("doctor", cwd=project.root)
    assert f"problem  the codex hooks in {hooks} run /gone/venv/bin/review, which is gone; to fix it:" in done.stdout


def test_a_project_install_counts_for_the_skill_and_the_hooks(project: Repo) -> None:
    run("install", "claude", "--project", cwd=project.root)
    done = run("doctor", cwd=project.root)
    assert "ok       the skill is installed for claude (this project)" in done.stdout
    assert "ok       review's hooks are installed for claude (this project)" in done.stdout


def test_missing_tmux_is_named(project: Repo, tmp_path: Path) -> None:
    # A PATH with git and bash but no tmux.
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("git", "bash"):
        found = shutil.which(tool)
        assert found is not None
        (tools / tool).symlink_to(found)
    done = run("doctor", cwd=project.root, path=str(tools))
    assert any(line.startswith("problem  tmux is not installed") for line in problems(done))


def test_review_watch_not_running_is_named_with_the_command_that_starts_it(project: Repo) -> None:
    done = run("doctor", cwd=project.root)
    assert (
        f"problem  review watch is not running for this repository, so agents in tmux panes are not told of a review;"
        f" to fix it: tmux new-window -d '{VENV_REVIEW} watch {project.root}'"
    ) in done.stdout


def test_an_unreadable_review_file_is_named(project: Repo) -> None:
    (project.root / ".review").mkdir()
    (project.root / ".review" / "review.json").write_text("{ not json")
    done = run("doctor", cwd=project.root)
    line = next(line for line in problems(done) if "review.json" in line)
    assert line.startswith(f"problem  {project.root / '.review' / 'review.json'} cannot be read")
    assert line.endswith(f"to fix it: rm {project.root / '.review' / 'review.json'}")


def test_outside_a_repository_only_the_user_wide_links_are_checked(tmp_path: Path) -> None:
    done = run("doctor", cwd=tmp_path)
    assert "review watch is" not in done.stdout
    assert f"ok       {tmp_path} is not in a git repository" in done.stdout


def test_doctor_json_gives_each_check(project: Repo) -> None:
    done = run("doctor", "--json", cwd=project.root)
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["ok"] is False
    assert [check["name"] for check in report["checks"]] == [
        "review on PATH",
        "skill",
        "hooks",
        "tmux",
        "git",
        "review watch",
        "review file",
    ]
    assert all(set(check) == {"name", "ok", "says", "fix"} for check in report["checks"])
    assert report["checks"][6] == {
        "name": "review file",
        "ok": True,
        "says": f"no review in {project.root} yet",
        "fix": None,
    }


def test_hooks_installed_names_the_agents_with_reviews_hooks_user_wide_or_in_the_project(project: Repo) -> None:
    assert hooks_installed(project.root) == []
    run("install", "codex", "--project", cwd=project.root)
    assert hooks_installed(project.root) == ["codex"]
    run("install", "claude", cwd=project.root)
    assert hooks_installed(project.root) == ["claude", "codex"]


def test_hooks_in_claudes_local_settings_count(project: Repo) -> None:
    settings = project.root / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "review hook claude"}]}]}})
    )
    assert hooks_installed(project.root) == ["claude"]


def test_watch_running_sees_a_watch_of_the_same_repository_from_any_of_its_worktrees(
    project: Repo, watching: subprocess.Popen[str]
) -> None:
    agent = project.worktree("agent", "agent/work")
    assert watch_running(project.root)
    assert watch_running(agent.root / "src")


def test_watch_running_is_false_for_another_repository_or_a_stopped_watch(
    project: Repo, tmp_path: Path, watching: subprocess.Popen[str]
) -> None:
    other = Repo(tmp_path / "other")
    other.root.mkdir()
    other.git("init", "--quiet")
    assert not watch_running(other.root)
    stop(watching)
    assert not watch_running(project.root)


@pytest.mark.parametrize(
    "command",
    [
        # pipx's script runs `python -E`; `python -m review` has no script; no REPO watches here.
        [sys.executable, "-E", str(VENV_REVIEW), "watch", "."],
        [sys.executable, "-m", "review", "watch"],
    ],
)
def test_watch_running_knows_each_way_a_watch_is_started(project: Repo, command: list[str]) -> None:
    watch = start_watch(command, project.root / "src")
    try:
        assert watch_running(project.root)
    finally:
        stop(watch)


def test_codex_hooks_that_codex_has_not_trusted_are_named_with_how_to_trust_them(project: Repo) -> None:
    assert run("install", "codex", cwd=project.root).returncode == 0
    waiting = [line for line in problems(run("doctor", cwd=project.root)) if "Codex has not trusted" in line]
    assert len(waiting) == 1
    assert "Stop, UserPromptSubmit, PreToolUse, PermissionRequest" in waiting[0] and "Hooks need review" in waiting[0]
    trust_codex_hooks()
    done = run("doctor", cwd=project.root)
    assert "ok       Codex trusts review's hooks" in done.stdout
    assert not any("Codex has not trusted" in line for line in problems(done))
    # A hook whose command changed since is one Codex asks about again.
    hooks_json = home() / ".codex" / "hooks.json"
    hooks_json.write_text(hooks_json.read_text().replace(" hook codex", " hook  codex", 1))
    changed = [line for line in problems(run("doctor", cwd=project.root)) if "Codex has not trusted" in line]
    assert len(changed) == 1 and "(Stop in" in changed[0]


def test_codex_settings_that_cannot_be_read_leave_the_trust_untold(project: Repo) -> None:
    assert run("install", "codex", cwd=project.root).returncode == 0
    codex_trust.config_file(home()).write_text("model = \n")
    done = run("doctor", cwd=project.root)
    assert "cannot tell whether Codex trusts review's hooks" in done.stdout and "/hooks in codex" in done.stdout
