"""`review install`: the skill linked and the hooks merged for each agent, idempotently, with the
user's own settings, hooks and folders kept; `--uninstall` takes back exactly what was added."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import Repo
from review.agents import codex_trust
from review.agents.install import (
    COPY_MARK,
    NOTHING,
    Change,
    install,
    review_command,
    review_hooks,
    skill_folder,
    skill_state,
    uninstall,
)
from review.errors import MissingSkill, ReviewError, UnreadableSettings

COMMAND = "/opt/review/bin/review"

CLAUDE_EVENTS = ["Stop", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "SessionStart"]
CODEX_EVENTS = [
    "Stop",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "SessionStart",
    "Interrupt",
]


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    """A skill folder as review ships it: `skills/review/SKILL.md`."""
    folder = tmp_path / "package" / "skills" / "review"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: review\ndescription: test\n---\nRun review pending.\n")
    return folder


def home() -> Path:
    return Path.home()


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def write_json(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=4))


def ours(agent: str, event: str, command: str = COMMAND) -> dict[str, Any]:
    entry: dict[str, Any] = {"matcher": "*"} if event in ("PreToolUse", "PermissionRequest", "PostToolUse") else {}
    entry["hooks"] = [{"type": "command", "command": f"{command} hook {agent}"}]
    return entry


def lines(changes: list[Change]) -> list[str]:
    return [change.what for change in changes]


def tree(folder: Path) -> dict[str, bytes | str | None]:
    """Every path under `folder`: a file's bytes, a link's target, None for a folder."""
    return {
        str(path.relative_to(folder)): (
            f"-> {os.readlink(path)}" if path.is_symlink() else path.read_bytes() if path.is_file() else None
        )
        for path in folder.rglob("*")
    }


@pytest.mark.parametrize(
    ("agent", "link"),
    [("claude", ".claude/skills/review"), ("codex", ".agents/skills/review"), ("pi", ".pi/agent/skills/review")],
)
def test_installing_for_an_agent_links_the_skill_in_its_user_skill_folder(agent: str, link: str, skill: Path) -> None:
    changes = install([agent], root=None, skill=skill, command=COMMAND)
    linked = home() / link
    assert linked.is_symlink()
    assert linked.resolve() == skill.resolve()
    assert f"linked {linked} -> {skill.resolve()}" in lines(changes)


def test_installing_for_claude_adds_a_hook_on_each_of_its_events(skill: Path) -> None:
    changes = install(["claude"], root=None, skill=skill, command=COMMAND)
    settings = home() / ".claude" / "settings.json"
    assert read_json(settings) == {"hooks": {event: [ours("claude", event)] for event in CLAUDE_EVENTS}}
    for event in CLAUDE_EVENTS:
        assert f"added the {event} hook to {settings}" in lines(changes)


def test_installing_for_codex_adds_its_hooks_to_codex_hooks_json_without_notification(skill: Path) -> None:
    install(["codex"], root=None, skill=skill, command=COMMAND)
    assert read_json(home() / ".codex" / "hooks.json") == {
        "hooks": {event: [ours("codex", event)] for event in CODEX_EVENTS}
    }


def test_installing_for_pi_links_the_skill_and_writes_the_extension_with_the_command(skill: Path) -> None:
    changes = install(["pi"], root=None, skill=skill, command="'/opt/my review/bin/review'")
    extension = home() / ".pi/agent/extensions/review.js"
    assert lines(changes) == [
        f"linked {home() / '.pi/agent/skills/review'} -> {skill.resolve()}",
        f"wrote Pi's extension {extension}",
    ]
    assert sorted(path.name for path in (home() / ".pi").rglob("*")) == [
        "agent",
        "extensions",
        "review",
        "review.js",
        "skills",
    ]
    # Run without a shell: the command's words, unquoted.
    assert 'const REVIEW = ["/opt/my review/bin/review"];' in extension.read_text()


def test_the_pi_extension_is_rewritten_when_review_moves_and_left_alone_when_not_ours(skill: Path) -> None:
    install(["pi"], root=None, skill=skill, command=COMMAND)
    extension = home() / ".pi/agent/extensions/review.js"
    assert lines(install(["pi"], root=None, skill=skill, command="/elsewhere/review")) == [
        f"updated Pi's extension {extension}"
    ]
    assert '["/elsewhere/review"]' in extension.read_text()
    extension.write_text("export default function (pi) {}\n")
    again = install(["pi"], root=None, skill=skill, command=COMMAND)
    assert again[0].skipped and "not review's Pi extension" in again[0].what
    assert any("not review's Pi extension" in line for line in lines(uninstall(["pi"], root=None)))
    assert extension.read_text() == "export default function (pi) {}\n"


def test_uninstalling_pi_removes_the_extension_and_the_folders_install_made(skill: Path) -> None:
    install(["pi"], root=None, skill=skill, command=COMMAND)
    changes = lines(uninstall(["pi"], root=None))
    assert f"removed Pi's extension {home() / '.pi/agent/extensions/review.js'}" in changes
    assert not (home() / ".pi").exists()


def test_json_files_are_written_with_two_spaces_and_a_final_newline(skill: Path) -> None:
    install(["claude"], root=None, skill=skill, command=COMMAND)
    text = (home() / ".claude" / "settings.json").read_text()
    assert text.startswith('{\n  "hooks": {\n')
    assert text.endswith("}\n")


def test_all_means_claude_codex_and_pi(skill: Path) -> None:
    install(["all"], root=None, skill=skill, command=COMMAND)
    for link in (".claude/skills/review", ".agents/skills/review", ".pi/agent/skills/review"):
        assert (home() / link).resolve() == skill.resolve()
    assert (home() / ".claude" / "settings.json").exists()
    assert (home() / ".codex" / "hooks.json").exists()


def test_installing_twice_changes_nothing_the_second_time(skill: Path) -> None:
    install(["all"], root=None, skill=skill, command=COMMAND)
    written = {path: path.read_bytes() for path in (home() / ".claude/settings.json", home() / ".codex/hooks.json")}
    assert install(["all"], root=None, skill=skill, command=COMMAND) == [Change(NOTHING)]
    assert {path: path.read_bytes() for path in written} == written


def test_the_hooks_run_the_command_given_quoted_as_given(skill: Path) -> None:
    command = shlex.quote("/home/u/my tools/bin/review")
    install(["claude"], root=None, skill=skill, command=command)
    stop = read_json(home() / ".claude" / "settings.json")["hooks"]["Stop"]
    assert stop == [{"hooks": [{"type": "command", "command": "'/home/u/my tools/bin/review' hook claude"}]}]


def test_install_keeps_the_users_other_settings_and_own_hooks(skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    own_stop = {"hooks": [{"type": "command", "command": "say done"}]}
    own_bash = {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit-bash"}]}
    write_json(
        settings,
        {
            "model": "opus",
            "permissions": {"allow": ["Bash(git status)"], "deny": []},
            "hooks": {"Stop": [own_stop], "PreToolUse": [own_bash], "SubagentStop": [own_stop]},
        },
    )
    install(["claude"], root=None, skill=skill, command=COMMAND)
    after = read_json(settings)
    assert after["model"] == "opus"
    assert after["permissions"] == {"allow": ["Bash(git status)"], "deny": []}
    assert after["hooks"]["Stop"] == [own_stop, ours("claude", "Stop")]
    assert after["hooks"]["PreToolUse"] == [own_bash, ours("claude", "PreToolUse")]
    assert after["hooks"]["SubagentStop"] == [own_stop]


def test_a_hook_with_our_exact_command_is_not_added_again(skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    # The user put our hook into their own entry, next to one of theirs.
    mine = {
        "hooks": [{"type": "command", "command": "say done"}, {"type": "command", "command": f"{COMMAND} hook claude"}]
    }
    write_json(settings, {"hooks": {"Stop": [mine]}})
    changes = install(["claude"], root=None, skill=skill, command=COMMAND)
    assert read_json(settings)["hooks"]["Stop"] == [mine]
    assert f"added the Stop hook to {settings}" not in lines(changes)


def test_a_hook_left_by_an_install_from_another_path_is_updated_not_doubled(skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    write_json(settings, {"hooks": {"Stop": [ours("claude", "Stop", "/old/venv/bin/review")]}})
    changes = install(["claude"], root=None, skill=skill, command=COMMAND)
    assert read_json(settings)["hooks"]["Stop"] == [ours("claude", "Stop")]
    assert f"updated the Stop hook in {settings} to run {COMMAND} hook claude: /old/venv/bin/review is gone" in lines(
        changes
    )


def test_a_project_install_goes_under_the_repository_root(tmp_path: Path, skill: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    install(["all"], root=root, skill=skill, command=COMMAND)
    for copy in (".claude/skills/review", ".agents/skills/review", ".pi/skills/review"):
        assert skill_state(root / copy) == "copied"
    assert read_json(root / ".claude" / "settings.json")["hooks"]["Stop"] == [ours("claude", "Stop", "review")]
    assert read_json(root / ".codex" / "hooks.json")["hooks"]["Stop"] == [ours("codex", "Stop", "review")]
    assert list(home().glob(".claude")) == list(home().glob(".agents")) == list(home().glob(".pi")) == []


def test_a_project_install_names_no_path_of_this_machine(tmp_path: Path, skill: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    install(["all"], root=root, skill=skill, command=COMMAND)
    written = [path for path in root.rglob("*") if path.is_file() or path.is_symlink()]
    assert sorted(str(path.relative_to(root)) for path in written) == [
        ".agents/skills/review/SKILL.md",
        ".claude/settings.json",
        ".claude/skills/review/SKILL.md",
        ".codex/hooks.json",
        ".pi/extensions/review.js",
        ".pi/skills/review/SKILL.md",
    ]
    assert 'const REVIEW = ["review"];' in (root / ".pi/extensions/review.js").read_text()
    for path in written:
        assert not path.is_symlink()
        text = path.read_text()
        assert "/" + tmp_path.parts[1] not in text, path
        assert COMMAND not in text, path
    # The copy is the skill an agent reads, with one last line saying where it came from.
    copied = (root / ".claude/skills/review/SKILL.md").read_text()
    assert copied.startswith((skill / "SKILL.md").read_text())
    assert copied.splitlines()[-1].startswith(COPY_MARK)


def test_a_project_install_says_how_to_commit_what_it_wrote(tmp_path: Path, skill: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    changes = install(["claude"], root=root, skill=skill, command=COMMAND)
    assert changes[-1].what.startswith("commit these so every worktree and clone has them")
    assert f"git -C {root} add .claude/skills/review .claude/settings.json &&" in changes[-1].what
    assert install(["claude"], root=root, skill=skill, command=COMMAND) == [Change(NOTHING)]


def test_a_project_copy_of_an_older_skill_is_updated(tmp_path: Path, skill: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    install(["pi"], root=root, skill=skill, command=COMMAND)
    (skill / "SKILL.md").write_text("---\nname: review\ndescription: newer\n---\nRun review pending --json.\n")
    changes = install(["pi"], root=root, skill=skill, command=COMMAND)
    assert lines(changes)[0] == f"updated the copy of the skill in {root / '.pi/skills/review'}"
    assert "--json" in (root / ".pi/skills/review/SKILL.md").read_text()


def test_a_project_link_left_by_an_earlier_review_becomes_a_copy(tmp_path: Path, skill: Path) -> None:
    root = tmp_path / "repo"
    place = root / ".claude" / "skills" / "review"
    place.parent.mkdir(parents=True)
    place.symlink_to(skill)
    changes = install(["claude"], root=root, skill=skill, command=COMMAND)
    assert not place.is_symlink()
    assert skill_state(place) == "copied"
    assert lines(changes)[0] == f"replaced the link {place} with a copy of the skill, which works on every machine"


def test_a_users_own_review_skill_in_the_project_is_left_alone(tmp_path: Path, skill: Path) -> None:
    root = tmp_path / "repo"
    mine = root / ".agents" / "skills" / "review"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: review\n---\nmy own review checklist\n")
    changes = install(["codex"], root=root, skill=skill, command=COMMAND)
    assert changes[0].skipped
    uninstall(["codex"], root=root)
    assert (mine / "SKILL.md").read_text() == "---\nname: review\n---\nmy own review checklist\n"


def test_a_project_round_trip_leaves_the_repository_as_it_was(project: Repo, skill: Path) -> None:
    # The team already commits Claude settings of its own.
    project.write(".claude/settings.json", '{\n    "permissions": {"allow": ["Bash(make test)"]}\n}\n')
    project.commit("team settings")
    install(["all"], root=project.root, skill=skill, command=COMMAND)
    assert project.git("status", "--porcelain") != ""

    uninstall(["all"], root=project.root)

    assert project.git("status", "--porcelain", "--ignored") == ""
    assert sorted(path.name for path in project.root.iterdir()) == [".claude", ".git", "README.md", "src"]


def test_uninstall_removes_exactly_what_install_added(skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    own_stop = {"hooks": [{"type": "command", "command": "say done"}]}
    before = {"model": "opus", "hooks": {"Stop": [own_stop]}}
    write_json(settings, before)
    install(["all"], root=None, skill=skill, command=COMMAND)

    changes = uninstall(["all"], root=None)

    assert read_json(settings) == before
    assert not (home() / ".codex").exists()
    for link in (".claude/skills/review", ".agents/skills/review", ".pi/agent/skills/review"):
        assert not (home() / link).is_symlink()
        assert f"removed the link {home() / link}" in lines(changes)
    assert f"removed the Stop hook from {settings}" in lines(changes)
    assert f"removed {home() / '.codex' / 'hooks.json'}: install made it" in lines(changes)
    assert skill.joinpath("SKILL.md").is_file()


def test_an_install_and_uninstall_give_back_the_home_folder_byte_for_byte(skill: Path) -> None:
    # The user's own settings, in their own layout: four spaces, no final newline, non-ASCII.
    write_json(home() / ".claude" / "settings.json", {"model": "opus", "statusLine": "‹ café ›"})
    (home() / ".claude" / "skills" / "tidy").mkdir(parents=True)
    (home() / ".claude" / "skills" / "tidy" / "SKILL.md").write_text("tidy up\n")
    (home() / ".codex").mkdir()
    (home() / ".codex" / "config.toml").write_text('model = "o3"\n')
    before = tree(home())

    install(["all"], root=None, skill=skill, command=COMMAND)
    assert tree(home()) != before
    uninstall(["all"], root=None)

    assert tree(home()) == before


def test_an_install_into_an_empty_home_leaves_nothing_once_uninstalled(skill: Path) -> None:
    before = tree(home())
    install(["all"], root=None, skill=skill, command=COMMAND)
    uninstall(["all"], root=None)
    assert tree(home()) == before


def test_uninstalling_one_agent_keeps_the_record_of_the_others(skill: Path) -> None:
    before = tree(home())
    install(["all"], root=None, skill=skill, command=COMMAND)
    uninstall(["claude"], root=None)
    assert not (home() / ".claude").exists()
    assert (home() / ".codex" / "hooks.json").exists()
    uninstall(["codex", "pi"], root=None)
    assert tree(home()) == before


def test_uninstall_keeps_what_the_user_added_to_the_settings_since(skill: Path) -> None:
    install(["claude"], root=None, skill=skill, command=COMMAND)
    settings = home() / ".claude" / "settings.json"
    changed = read_json(settings)
    changed["model"] = "opus"
    write_json(settings, changed)
    uninstall(["claude"], root=None)
    assert read_json(settings) == {"model": "opus"}


def test_uninstall_keeps_a_folder_install_made_once_the_user_keeps_something_in_it(skill: Path) -> None:
    install(["claude"], root=None, skill=skill, command=COMMAND)
    (home() / ".claude" / "skills" / "tidy").mkdir()
    uninstall(["claude"], root=None)
    assert (home() / ".claude" / "skills" / "tidy").is_dir()
    assert not (home() / ".claude" / "settings.json").exists()


def test_without_the_record_uninstall_still_removes_a_settings_file_left_empty(skill: Path) -> None:
    install(["codex"], root=None, skill=skill, command=COMMAND)
    shutil.rmtree(home() / ".local")
    changes = uninstall(["codex"], root=None)
    assert not (home() / ".codex" / "hooks.json").exists()
    assert f"removed {home() / '.codex' / 'hooks.json'}: nothing is left in it" in lines(changes)


def test_the_record_of_the_users_settings_is_readable_by_the_user_alone(skill: Path) -> None:
    write_json(home() / ".claude" / "settings.json", {"env": {"TOKEN": "secret"}})
    install(["claude"], root=None, skill=skill, command=COMMAND)
    folder = home() / ".local" / "state" / "review"
    assert folder.stat().st_mode & 0o777 == 0o700
    assert "secret" in (folder / "install.json").read_text()


def test_uninstall_keeps_a_users_hook_sharing_an_entry_with_ours(skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    shared = {
        "hooks": [{"type": "command", "command": "say done"}, {"type": "command", "command": f"{COMMAND} hook claude"}]
    }
    write_json(settings, {"hooks": {"Stop": [shared]}})
    uninstall(["claude"], root=None)
    assert read_json(settings) == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}


def test_uninstall_finds_our_hook_whatever_the_path_to_review(skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    write_json(
        settings,
        {
            "hooks": {
                "Stop": [ours("claude", "Stop", "'/home/u/my tools/review'")],
                "SessionStart": [ours("claude", "SessionStart", "review")],
                # Another program, and review's hook for another agent, are not ours here.
                "Notification": [ours("claude", "Notification", "/usr/bin/not-review")],
                "PreToolUse": [ours("codex", "PreToolUse")],
            }
        },
    )
    uninstall(["claude"], root=None)
    assert read_json(settings) == {
        "hooks": {
            "Notification": [ours("claude", "Notification", "/usr/bin/not-review")],
            "PreToolUse": [ours("codex", "PreToolUse")],
        }
    }


def test_uninstalling_twice_is_harmless(skill: Path) -> None:
    install(["all"], root=None, skill=skill, command=COMMAND)
    uninstall(["all"], root=None)
    assert uninstall(["all"], root=None) == [Change(NOTHING)]


def test_uninstalling_what_was_never_installed_creates_nothing() -> None:
    assert uninstall(["all"], root=None) == [Change(NOTHING)]
    assert list(home().glob(".c*")) == []


def test_a_project_uninstall_leaves_the_user_wide_install(tmp_path: Path, skill: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    install(["claude"], root=None, skill=skill, command=COMMAND)
    install(["claude"], root=root, skill=skill, command=COMMAND)
    uninstall(["claude"], root=root)
    assert not (root / ".claude" / "skills" / "review").is_symlink()
    assert (home() / ".claude" / "skills" / "review").is_symlink()
    assert "Stop" in read_json(home() / ".claude" / "settings.json")["hooks"]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"model": "opus",}', "is not valid JSON (line 1, column 18"),
        ('["hooks"]', "holds list, not a JSON object"),
        ('{"hooks": ["Stop"]}', '"hooks" in'),
        ('{"hooks": {"Stop": {"command": "x"}}}', '"hooks.Stop" in'),
    ],
)
def test_settings_that_cannot_be_understood_are_refused_untouched(content: str, reason: str, skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(content)
    with pytest.raises(UnreadableSettings) as refused:
        install(["all"], root=None, skill=skill, command=COMMAND)
    assert reason in str(refused.value)
    assert str(settings) in str(refused.value)
    assert settings.read_text() == content
    # Refused before anything changed: not even the other agents' links were made.
    assert sorted(path.name for path in home().rglob("*") if path.name != ".gitconfig") == [".claude", "settings.json"]
    with pytest.raises(UnreadableSettings):
        uninstall(["claude"], root=None)
    assert settings.read_text() == content


def test_an_empty_settings_file_is_taken_as_no_settings(skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.touch()
    install(["claude"], root=None, skill=skill, command=COMMAND)
    assert read_json(settings)["hooks"]["Stop"] == [ours("claude", "Stop")]


def test_a_settings_file_linked_from_elsewhere_is_written_through_the_link(tmp_path: Path, skill: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    write_json(dotfiles, {"model": "opus"})
    os.chmod(dotfiles, 0o600)
    settings = home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.symlink_to(dotfiles)
    install(["claude"], root=None, skill=skill, command=COMMAND)
    assert settings.is_symlink()
    assert read_json(dotfiles)["model"] == "opus"
    assert "Stop" in read_json(dotfiles)["hooks"]
    assert dotfiles.stat().st_mode & 0o777 == 0o600


def test_a_real_folder_where_the_link_goes_is_left_alone_and_said_so(skill: Path) -> None:
    folder = home() / ".claude" / "skills" / "review"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("the user's own review skill\n")

    changes = install(["claude"], root=None, skill=skill, command=COMMAND)

    assert (folder / "SKILL.md").read_text() == "the user's own review skill\n"
    assert not folder.is_symlink()
    assert changes[0] == Change(
        f"left {folder} alone: it is a folder, not review's skill; move it away and run review install again",
        skipped=True,
    )
    # The rest of the install still happens.
    assert "Stop" in read_json(home() / ".claude" / "settings.json")["hooks"]
    assert install(["claude"], root=None, skill=skill, command=COMMAND) == [changes[0]]


def test_a_link_to_another_skill_is_left_alone(tmp_path: Path, skill: Path) -> None:
    other = tmp_path / "my-skills" / "review"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("mine\n")
    link = home() / ".claude" / "skills" / "review"
    link.parent.mkdir(parents=True)
    link.symlink_to(other)

    changes = install(["claude"], root=None, skill=skill, command=COMMAND)

    assert link.resolve() == other
    assert changes[0].skipped
    assert changes[0].what.startswith(f"left {link} alone: it links to {other}")
    uninstall(["claude"], root=None)
    assert link.resolve() == other


def test_a_link_to_another_copy_of_reviews_skill_is_pointed_at_this_one(tmp_path: Path, skill: Path) -> None:
    older = tmp_path / "old-venv" / "review" / "skills" / "review"
    older.mkdir(parents=True)
    (older / "SKILL.md").write_text("older\n")
    link = home() / ".claude" / "skills" / "review"
    link.parent.mkdir(parents=True)
    link.symlink_to(older)

    changes = install(["claude"], root=None, skill=skill, command=COMMAND)

    assert link.resolve() == skill.resolve()
    assert f"relinked {link} -> {skill.resolve()} (it pointed to {older})" in lines(changes)


def test_a_link_into_a_removed_install_is_replaced_and_uninstalled(tmp_path: Path, skill: Path) -> None:
    link = home() / ".agents" / "skills" / "review"
    link.parent.mkdir(parents=True)
    gone = tmp_path / "gone" / "skills" / "review"
    link.symlink_to(gone)
    assert skill_state(link) == "dangling"
    changes = install(["codex"], root=None, skill=skill, command=COMMAND)
    assert link.resolve() == skill.resolve()
    assert f"relinked {link} -> {skill.resolve()} (it pointed to {gone}, which is gone)" in lines(changes)
    link.unlink()
    link.symlink_to(gone)
    uninstall(["codex"], root=None)
    assert not link.is_symlink()


@pytest.mark.parametrize(
    ("make", "state"),
    [
        (lambda place, skill: None, "missing"),
        (lambda place, skill: place.symlink_to(skill), "linked"),
        (lambda place, skill: place.symlink_to(skill.parent.parent / "removed-venv" / "skills" / "review"), "dangling"),
        (lambda place, skill: place.symlink_to(skill.parent), "other"),
        (lambda place, skill: place.mkdir(), "other"),
    ],
)
def test_skill_state_tells_what_is_at_a_skill_place(make: Any, state: str, skill: Path) -> None:
    place = home() / ".claude" / "skills" / "review"
    place.parent.mkdir(parents=True)
    make(place, skill)
    assert skill_state(place) == state


def test_review_hooks_are_the_commands_of_reviews_stop_hooks(skill: Path) -> None:
    settings = home() / ".claude" / "settings.json"
    assert review_hooks(settings, "claude") == []
    install(["claude"], root=None, skill=skill, command=COMMAND)
    assert review_hooks(settings, "claude") == [f"{COMMAND} hook claude"]
    assert review_hooks(settings, "codex") == []
    settings.write_text("{ not json")
    assert review_hooks(settings, "claude") == []


def test_installing_codex_hooks_says_that_codex_must_trust_them(skill: Path) -> None:
    changes = install(["codex"], root=None, skill=skill, command=COMMAND)
    assert any("/hooks in codex" in line for line in lines(changes))
    assert install(["codex"], root=None, skill=skill, command=COMMAND) == [Change(NOTHING)]


def test_uninstall_leaves_a_real_folder_alone_and_says_so() -> None:
    folder = home() / ".pi" / "agent" / "skills" / "review"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("mine\n")
    assert uninstall(["pi"], root=None) == [Change(f"left {folder} alone: it is a folder, not review's skill")]
    assert (folder / "SKILL.md").read_text() == "mine\n"


def test_a_skill_folder_without_skill_md_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MissingSkill):
        install(["pi"], root=None, skill=tmp_path, command=COMMAND)
    assert not (home() / ".pi").exists()


def test_an_unknown_agent_is_refused(skill: Path) -> None:
    with pytest.raises(ReviewError, match="unknown agent 'cursor'"):
        install(["cursor"], root=None, skill=skill, command=COMMAND)


def test_home_can_be_given(tmp_path: Path, skill: Path) -> None:
    elsewhere = tmp_path / "other-home"
    install(["pi"], root=None, skill=skill, command=COMMAND, home=elsewhere)
    assert (elsewhere / ".pi" / "agent" / "skills" / "review").is_symlink()
    assert not (home() / ".pi").exists()


CHECKOUT_SKILL = Path(__file__).resolve().parents[2] / "skills" / "review"


@pytest.mark.skipif(not (CHECKOUT_SKILL / "SKILL.md").is_file(), reason="skills/review/SKILL.md is not written yet")
def test_skill_folder_finds_the_skill_installed_or_in_the_checkout() -> None:
    # a wheel carries it as review/skills/review; an editable install finds the checkout's
    found = skill_folder()
    assert found.name == "review" and found.parent.name == "skills"
    assert (found / "SKILL.md").read_text() == (CHECKOUT_SKILL / "SKILL.md").read_text()


def test_review_command_is_the_running_review_script_as_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "my tools" / "review"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "argv", ["my tools/review", "install", "claude"])
    assert review_command() == shlex.quote(str(script))
    assert shlex.split(review_command()) == [str(script)]


def test_review_command_prefers_the_review_on_path_which_outlives_a_checkouts_virtualenv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pipx and uv keep ~/.local/bin/review across upgrades: a hook naming it keeps working, and
    keeps Codex's trust, where one naming a checkout's virtualenv would not."""
    local_bin = tmp_path / ".local" / "bin"
    local_bin.mkdir(parents=True)
    (local_bin / "review").write_text("#!/bin/sh\n")
    (local_bin / "review").chmod(0o755)
    checkout = tmp_path / "checkout" / ".venv" / "bin" / "review"
    checkout.parent.mkdir(parents=True)
    checkout.write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", str(local_bin))
    monkeypatch.setattr(sys, "argv", [str(checkout), "install", "codex"])
    assert review_command() == str(local_bin / "review")


def working_review(folder: Path) -> str:
    """A `review` program that exists, as an earlier install from another checkout left it."""
    folder.mkdir(parents=True)
    (folder / "review").write_text("#!/bin/sh\n")
    (folder / "review").chmod(0o755)
    return str(folder / "review")


def theirs(command: str) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": command}]}


def test_a_working_codex_hook_from_another_checkout_is_kept_byte_for_byte(tmp_path: Path, skill: Path) -> None:
    """Codex trusts a hook by its command: rewriting a working one would have the user trust it
    again after every install from another place."""
    older = working_review(tmp_path / "pipx" / "bin")
    hooks_json = home() / ".codex" / "hooks.json"
    events = ["Stop", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SessionStart"]
    write_json(hooks_json, {"hooks": {event: [theirs("say hi"), ours("codex", event, older)] for event in events}})
    before = read_json(hooks_json)["hooks"]
    changes = lines(install(["codex"], root=None, skill=skill, command=COMMAND))
    after = read_json(hooks_json)["hooks"]
    for event in events:
        assert json.dumps(after[event]) == json.dumps(before[event])
    # The events it lacked run the same review, so that one program answers them all.
    assert after["PermissionRequest"] == [ours("codex", "PermissionRequest", older)]
    assert after["Interrupt"] == [ours("codex", "Interrupt", older)]
    assert not any(line.startswith("updated") for line in changes)
    assert f"added the PermissionRequest hook to {hooks_json}" in changes


def test_a_codex_hook_whose_review_is_gone_is_updated_and_codex_will_ask_to_trust_it(skill: Path) -> None:
    hooks_json = home() / ".codex" / "hooks.json"
    write_json(hooks_json, {"hooks": {"Stop": [theirs("say hi"), ours("codex", "Stop", "/gone/venv/bin/review")]}})
    changes = lines(install(["codex"], root=None, skill=skill, command=COMMAND))
    assert read_json(hooks_json)["hooks"]["Stop"] == [theirs("say hi"), ours("codex", "Stop")]
    assert (
        f"updated the Stop hook in {hooks_json} to run {COMMAND} hook codex: /gone/venv/bin/review is gone" in changes
    )
    assert any(line.startswith("Codex runs a new or changed hook only once you trust it") for line in changes)


def test_new_hooks_come_after_the_users_own_which_keep_their_places(skill: Path) -> None:
    hooks_json = home() / ".codex" / "hooks.json"
    mine = {"Stop": [theirs("first"), {"hooks": [theirs("second")["hooks"][0], theirs("third")["hooks"][0]]}]}
    write_json(hooks_json, {"hooks": mine})
    install(["codex"], root=None, skill=skill, command=COMMAND)
    assert read_json(hooks_json)["hooks"]["Stop"] == [*mine["Stop"], ours("codex", "Stop")]


def codex_settings(hooks_json: Path, hooks: dict[str, Any]) -> str:
    """The user's Codex settings after trusting every hook of `hooks`, as Codex writes them."""
    text = 'model = "gpt-5"\n\n[hooks.state]\n'
    for event, entries in hooks.items():
        for group, entry in enumerate(entries):
            for index, hook in enumerate(entry["hooks"]):
                place = codex_trust.key(hooks_json, event, group, index)
                text += f'\n[hooks.state."{place}"]\ntrusted_hash = "{codex_trust.trust_hash(event, entry, hook)}"\n'
    return text


def codex_says(hooks_json: Path) -> dict[str, str]:
    """What Codex would say of each hook in `hooks_json`: its command -> its trust."""
    hashes = codex_trust.trusted_hashes(codex_trust.config_file(home()))
    return {
        hook["command"]: codex_trust.trust(
            hashes, codex_trust.key(hooks_json, event, group, index), codex_trust.trust_hash(event, entry, hook)
        )
        for event, entries in read_json(hooks_json)["hooks"].items()
        for group, entry in enumerate(entries)
        for index, hook in enumerate(entry["hooks"])
    }


def test_uninstall_carries_codex_trust_along_with_the_users_hooks_that_moved_up(skill: Path) -> None:
    hooks_json = home() / ".codex" / "hooks.json"
    shared = {"hooks": [ours("codex", "Stop")["hooks"][0], theirs("after ours, same entry")["hooks"][0]]}
    hooks = {"Stop": [theirs("before"), ours("codex", "Stop"), theirs("after"), shared]}
    write_json(hooks_json, {"hooks": hooks})
    config = codex_trust.config_file(home())
    config.write_text(codex_settings(hooks_json, hooks))
    changes = lines(uninstall(["codex"], root=None))
    assert read_json(hooks_json)["hooks"]["Stop"] == [
        theirs("before"),
        theirs("after"),
        theirs("after ours, same entry"),
    ]
    assert codex_says(hooks_json) == {"before": "trusted", "after": "trusted", "after ours, same entry": "trusted"}
    assert any(line.startswith("moved Codex's trust in your hooks that moved up") for line in changes)
    assert config.read_text().startswith('model = "gpt-5"\n')
    assert config.read_text().count("[hooks.state.") == 3


def test_uninstall_says_which_hooks_codex_will_ask_about_when_their_trust_cannot_be_moved(skill: Path) -> None:
    hooks_json = home() / ".codex" / "hooks.json"
    write_json(hooks_json, {"hooks": {"Stop": [ours("codex", "Stop"), theirs("mine")]}})
    config = codex_trust.config_file(home())
    inline = f'hooks.state."{hooks_json}:stop:1:0" = {{ trusted_hash = "sha256:x" }}\n'
    config.write_text(inline)
    changes = lines(uninstall(["codex"], root=None))
    assert read_json(hooks_json)["hooks"]["Stop"] == [theirs("mine")]
    assert config.read_text() == inline
    warning = [line for line in changes if "Codex keys its trust by place" in line]
    assert len(warning) == 1 and "Stop 'mine'" in warning[0] and "/hooks" in warning[0]


def test_uninstall_leaves_codex_settings_alone_when_no_hook_of_the_user_moved(skill: Path) -> None:
    hooks_json = home() / ".codex" / "hooks.json"
    hooks = {"Stop": [theirs("mine"), ours("codex", "Stop")], "PreToolUse": [ours("codex", "PreToolUse")]}
    write_json(hooks_json, {"hooks": hooks})
    config = codex_trust.config_file(home())
    config.write_text(codex_settings(hooks_json, hooks))
    before = config.read_bytes()
    changes = lines(uninstall(["codex"], root=None))
    assert config.read_bytes() == before
    assert codex_says(hooks_json) == {"mine": "trusted"}
    assert not any("trust" in line for line in changes)


@pytest.mark.parametrize("value", ["state", "./state"])
def test_a_relative_xdg_state_home_is_ignored(
    skill: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    # the XDG spec: a relative path is invalid; taken, the record would land wherever install ran
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", value)
    install(["claude"], root=None, skill=skill, command=COMMAND)
    assert (home() / ".local" / "state" / "review" / "install.json").is_file()
    assert not (tmp_path / "state").exists()
