"""The real `review` command, run as a process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import Repo
from review import __version__


def review(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [shutil.which("review") or sys.executable, *([] if shutil.which("review") else ["-m", "review"])]
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


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
    assert review("install", "all").stdout.strip() == "nothing to change"
    undone = review("install", "all", "--uninstall")
    assert undone.returncode == 0, undone.stderr
    assert not (home / ".claude" / "skills" / "review").exists()
    assert "hook claude" not in (home / ".claude" / "settings.json").read_text()


def test_every_verb_has_help() -> None:
    for verb in ("demo", "comment", "send", "pending", "reply", "resolve", "wait", "hook", "watch", "install"):
        done = review(verb, "--help")
        assert done.returncode == 0 and f"review {verb}" in done.stdout, verb
