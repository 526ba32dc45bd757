"""The real `review` command, run as a process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import Repo
from review import __version__


def review(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [shutil.which("review") or sys.executable, *([] if shutil.which("review") else ["-m", "review"])]
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


def test_version() -> None:
    done = review("--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"review {__version__}")


def test_help_lists_the_verbs() -> None:
    done = review("--help")
    assert done.returncode == 0
    assert "review demo" in done.stdout
    assert "--staged" in done.stdout


def test_demo_without_opening_prints_where_it_is(tmp_path: Path) -> None:
    done = review("demo", str(tmp_path / "demo"), "--no-open")
    assert done.returncode == 0, done.stderr
    assert f"Demo repository: {tmp_path / 'demo' / 'tally'}" in done.stdout
    assert (tmp_path / "demo" / "tally-currency" / "tally" / "currency.py").exists()


def test_a_path_outside_a_repository_is_one_line_and_status_1(tmp_path: Path) -> None:
    done = review(str(tmp_path))
    assert done.returncode == 1
    assert done.stderr == f"review: {tmp_path} is not inside a git repository\n"


def test_a_bad_revision_is_one_line_and_status_1(project: Repo) -> None:
    done = review("--base", "no-such-branch", cwd=project.root)
    assert done.returncode == 1
    assert done.stderr == "review: unknown revision 'no-such-branch'\n"


def test_a_usage_error_is_status_2(project: Repo) -> None:
    done = review("--staged", "--base", "main", cwd=project.root)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1


def test_a_demo_folder_that_is_taken_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    done = review("demo", str(tmp_path), "--no-open")
    assert done.returncode == 1
    assert done.stderr.startswith("review: ") and len(done.stderr.splitlines()) == 1


def test_install_links_the_skill_and_hooks_and_uninstall_takes_them_away(tmp_path: Path) -> None:
    home = Path.home()
    done = review("install", "all")
    assert done.returncode == 0, done.stderr
    assert (home / ".claude" / "skills" / "review" / "SKILL.md").exists()
    assert (home / ".agents" / "skills" / "review" / "SKILL.md").exists()
    assert (home / ".pi" / "agent" / "skills" / "review" / "SKILL.md").exists()
    settings = (home / ".claude" / "settings.json").read_text()
    assert "hook claude" in settings and "hook codex" in (home / ".codex" / "hooks.json").read_text()
    assert len(done.stdout.splitlines()) >= 5
    assert review("install", "all").stdout.splitlines()[0] == "nothing to change"
    undone = review("install", "all", "--uninstall")
    assert undone.returncode == 0, undone.stderr
    assert not (home / ".claude" / "skills" / "review").exists()
    # Nothing is left behind: the settings files and folders install made are gone again.
    assert list(home.glob(".[acp]*")) == []


def test_install_says_when_review_is_not_on_path_and_how_to_put_it_there(tmp_path: Path) -> None:
    installed = Path(sys.executable).parent / "review"
    system = [folder for folder in os.environ["PATH"].split(os.pathsep) if not (Path(folder) / "review").exists()]
    done = subprocess.run(
        [str(installed), "install", "pi"],
        env={**os.environ, "PATH": os.pathsep.join(system)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        f"review is not on PATH: agents are told to run {installed} instead (once fixed, open a new shell);"
        f" to fix it: mkdir -p ~/.local/bin && ln -sf {installed} ~/.local/bin/review"
        " && echo 'export PATH=\"$HOME/.local/bin:$PATH\"' >> ~/.profile"
    )


def test_install_names_a_skill_link_of_another_agent_left_dangling(tmp_path: Path) -> None:
    link = Path.home() / ".agents" / "skills" / "review"
    link.parent.mkdir(parents=True)
    link.symlink_to(tmp_path / "deleted-venv" / "skills" / "review")
    done = review("install", "claude")
    assert done.returncode == 0, done.stderr
    assert (
        f"the skill link {link} points to {tmp_path / 'deleted-venv' / 'skills' / 'review'}, which is gone;"
        in done.stdout
    )
    assert "install codex" in done.stdout


def test_a_project_install_writes_no_path_of_this_machine_into_the_repository(project: Repo) -> None:
    done = review("install", "all", "--project", cwd=project.root)
    assert done.returncode == 0, done.stderr
    written = [path for path in project.root.rglob("*") if ".git" not in path.parts and path.is_file()]
    assert {path.name for path in written} >= {"SKILL.md", "settings.json", "hooks.json"}
    for path in written:
        assert not any(part.is_symlink() for part in (path, *path.parents))
        assert "/tmp/" not in path.read_text() and sys.prefix not in path.read_text(), path
    assert "git -C" in done.stdout and "commit" in done.stdout


def test_every_verb_has_help() -> None:
    for verb in (
        "demo",
        "comment",
        "send",
        "pending",
        "reply",
        "resolve",
        "wait",
        "request",
        "hook",
        "watch",
        "install",
        "doctor",
    ):
        done = review(verb, "--help")
        assert done.returncode == 0 and f"review {verb}" in done.stdout, verb


def test_status_prints_a_table_of_every_worktree_with_the_reviewer_s_queue_first(tmp_path: Path) -> None:
    review("demo", str(tmp_path / "demo"), "--no-open")
    done = review("status", str(tmp_path / "demo" / "tally"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["WORKTREE", "BRANCH", "AGENT"]
    names = [line.split()[0] for line in lines[1:]]
    assert sorted(names) == ["tally", "tally-cleanup", "tally-csv-export", "tally-currency"]
    # the two idle agents' worktrees wait on the reviewer; the working one on its agent; main on nothing
    assert names[:2] == ["tally-currency", "tally-cleanup"]
    assert names[2:] == ["tally-csv-export", "tally"]
    currency = lines[1]
    assert "claude idle" in currency and "reviewer: ready for review" in currency
    assert "✗ tally-csv-export" in currency


def test_status_json_names_the_conflict_between_the_demo_s_two_agents(tmp_path: Path) -> None:
    import json

    review("demo", str(tmp_path / "demo"), "--no-open")
    done = review("status", "--json", cwd=tmp_path / "demo" / "tally-cleanup" / "docs")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["default_branch"] == "main"
    rows = {Path(row["path"]).name: row for row in data["worktrees"]}
    currency = rows["tally-currency"]
    assert (currency["agent"], currency["agent_state"], currency["waits_on"]) == ("claude", "idle", "reviewer")
    overlap = next(o for o in currency["overlaps"] if Path(o["worktree"]).name == "tally-csv-export")
    assert overlap["conflict"] is True and overlap["conflict_files"] == ["tally/ledger.py"]
    assert rows["tally-csv-export"]["waits_on"] == "agent"
    assert rows["tally"]["waits_on"] == "nothing"


def test_status_outside_a_repository_is_one_line(tmp_path: Path) -> None:
    done = review("status", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr == f"review: {tmp_path} is not inside a git repository\n"


def test_a_comment_on_a_file_on_neither_side_is_refused_one_on_a_deleted_file_taken(agent_worktree: Repo) -> None:
    # a mistyped name would have sent the agent a comment on a file that is nowhere
    agent_worktree.git("rm", "--quiet", "README.md")
    for target in ("src/ap.py", "src/ap.py:1", "src"):
        done = review("comment", target, "-m", "x", cwd=agent_worktree.root)
        assert done.returncode == 1 and done.stdout == ""
        assert (
            done.stderr == f"review: {target.split(':')[0]}: no such file, in the worktree or where the work started\n"
        )
    for target, old in (("README.md", False), ("README.md:1", True), ("src/app.py", False)):
        done = review("comment", target, *(["--old"] if old else []), "-m", "x", cwd=agent_worktree.root)
        assert done.returncode == 0, done.stderr


def test_a_timeout_that_is_not_a_time_to_wait_is_a_usage_error(agent_worktree: Repo) -> None:
    for value in ("-1", "abc", "nan", "inf"):
        for verb in (["wait"], ["request", "--wait"]):
            done = review(*verb, f"--timeout={value}", cwd=agent_worktree.root)
            assert done.returncode == 2 and done.stdout == "", (verb, value)
            assert len(done.stderr.splitlines()) == 1 and f"'{value}'" in done.stderr, done.stderr
