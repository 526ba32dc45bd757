"""`review install`: the review skill and hooks, put where each coding agent looks for them.

Every agent gets the skill as a symlink named `review` in its skill folder, so upgrading review
upgrades the skill. Claude Code and Codex also get hooks that run `review hook claude|codex`
on their events; Pi has no hooks. Installing is idempotent and merges into the user's settings:
every other key and every other hook stays as it was. Nothing that is not review's own is ever
replaced or removed; a settings file that cannot be understood is refused, untouched.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import secrets
import shlex
import shutil
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review.errors import ReviewError
from review.store import replace_atomically

AGENTS = ("claude", "codex", "pi")
"""The agents review can be installed for; `all` on the command line means every one."""

HOOK_EVENTS: dict[str, tuple[str, ...]] = {
    "claude": ("Stop", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "SessionStart"),
    # Codex has no Notification event.
    "codex": ("Stop", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SessionStart"),
}
"""Agent -> the events its hooks run `review hook AGENT` on; an agent not named has no hooks."""

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
"""Events whose entries say which tools they match; ours match every tool."""

NOTHING = "nothing to change"
"""The one line install and uninstall give when everything was already as asked."""


class MissingSkill(ReviewError):
    """The skill folder to link is not there."""


class UnreadableSettings(ReviewError):
    """An agent's settings file cannot be understood, so it is left untouched."""


@dataclass(frozen=True)
class Change:
    """One thing install or uninstall did (or, when `skipped`, would not do), as one line."""

    what: str
    skipped: bool = False
    """Something that is not review's was in the way and was left alone; the install is incomplete."""


def install(
    agents: Sequence[str], *, root: Path | None, skill: Path, command: str, home: Path | None = None
) -> list[Change]:
    """Link the skill and add the hooks for `agents`, changing only what is missing.

    Every settings file is read before anything changes, so a broken one stops the install
    with nothing done.

    Args:
        agents: names from `AGENTS`, or "all".
        root: the repository root to install into (`--project`); None installs user-wide.
        skill: the folder holding the skill's SKILL.md (see `skill_folder`).
        command: how a shell runs review, already quoted (see `review_command`); the hooks run
            "COMMAND hook claude" or "COMMAND hook codex".
        home: the user's home folder; default: `Path.home()`.

    Returns:
        One change a line, or a single "nothing to change" when all was already in place.

    Raises:
        MissingSkill: `skill` holds no SKILL.md.
        UnreadableSettings: a settings file is not a JSON object with a "hooks" object.
        ReviewError: an agent name is unknown.
    """
    chosen = _chosen(agents)
    if not (skill / "SKILL.md").is_file():
        raise MissingSkill(f"{skill} holds no SKILL.md, so there is no skill to link")
    skill = skill.resolve()
    places = [_Place.of(agent, root, home or Path.home()) for agent in chosen]
    settings = {
        place.agent: _HookFile.read(place.hooks, place.agent) for place in places if place.hooks is not None
    }
    changes: list[Change] = []
    for place in places:
        changes += _link(place.link, skill)
        hook_file = settings.get(place.agent)
        if hook_file is not None:
            added = hook_file.add(place.agent, command)
            if added:
                hook_file.save()
            changes += added
    return changes or [Change(NOTHING)]


def uninstall(agents: Sequence[str], *, root: Path | None, home: Path | None = None) -> list[Change]:
    """Remove review's links and hooks for `agents`, and nothing else.

    A link is review's when it points at a folder `skills/review` holding SKILL.md (or at such
    a path that is gone); a hook is review's when its command is `PATH/review hook AGENT`,
    whatever the path. The user's own things at the same places are named and left alone.

    Args:
        agents: names from `AGENTS`, or "all".
        root: the repository root to uninstall from (`--project`); None uninstalls user-wide.
        home: the user's home folder; default: `Path.home()`.

    Returns:
        One change a line, or a single "nothing to change" when nothing of review's was there.

    Raises:
        UnreadableSettings: a settings file is not a JSON object with a "hooks" object.
        ReviewError: an agent name is unknown.
    """
    chosen = _chosen(agents)
    places = [_Place.of(agent, root, home or Path.home()) for agent in chosen]
    settings = {
        place.agent: _HookFile.read(place.hooks, place.agent) for place in places if place.hooks is not None
    }
    changes: list[Change] = []
    for place in places:
        changes += _unlink(place.link)
        hook_file = settings.get(place.agent)
        if hook_file is not None:
            removed = hook_file.remove(place.agent)
            if removed:
                hook_file.save()
            changes += removed
    return changes or [Change(NOTHING)]


def skill_folder() -> Path:
    """The folder of the review skill that came with this copy of review.

    Raises:
        MissingSkill: neither the installed package nor the checkout holds it.
    """
    packaged = importlib.resources.files("review") / "skills" / "review"
    # Agents follow a symlink to the skill, so it must be a real folder, not inside a zip.
    if isinstance(packaged, Path) and (packaged / "SKILL.md").is_file():
        return packaged
    # An editable install runs from the checkout, where the skill is at the top, not packaged.
    checkout = Path(__file__).resolve().parents[2] / "skills" / "review"
    if (checkout / "SKILL.md").is_file():
        return checkout
    raise MissingSkill(
        f"the review skill did not come with this copy of review (looked in {packaged} and {checkout});"
        " reinstall review"
    )


def review_command() -> str:
    """How a shell runs the `review` that is running now: an absolute path, quoted if it must be.

    Hooks run with the agent's PATH, which may lack the virtualenv review is installed in, so
    the settings name the program itself; plain "review" only when it cannot be found.
    """
    running = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if running is not None and running.name == "review" and running.is_file():
        # Absolute, but through any symlink: pipx and uv keep a link in ~/.local/bin that
        # survives upgrades, while the folder it points into does not.
        return shlex.quote(os.path.abspath(running))
    found = shutil.which("review")
    return shlex.quote(os.path.abspath(found)) if found else "review"


def _chosen(agents: Sequence[str]) -> list[str]:
    """The agents named, with "all" standing for every one, each once, in the order named."""
    chosen: list[str] = []
    for name in agents:
        if name == "all":
            chosen += AGENTS
        elif name in AGENTS:
            chosen.append(name)
        else:
            raise ReviewError(f"unknown agent '{name}': choose {', '.join(AGENTS)} or all")
    return list(dict.fromkeys(chosen))


@dataclass(frozen=True)
class _Place:
    """Where one agent looks for its skills and hooks."""

    agent: str
    link: Path
    """The symlink to the skill folder."""
    hooks: Path | None
    """The JSON file holding its hooks; None for an agent without hooks."""

    @classmethod
    def of(cls, agent: str, root: Path | None, home: Path) -> _Place:
        if agent == "claude":
            base = (root or home) / ".claude"
            return cls(agent, base / "skills" / "review", base / "settings.json")
        if agent == "codex":
            # Codex reads skills from .agents/ but its own settings from .codex/.
            base = root or home
            return cls(agent, base / ".agents" / "skills" / "review", base / ".codex" / "hooks.json")
        skills = root / ".pi" / "skills" if root is not None else home / ".pi" / "agent" / "skills"
        return cls(agent, skills / "review", None)


def _link(link: Path, skill: Path) -> list[Change]:
    if link.is_symlink():
        if os.path.realpath(link) == str(skill):
            return []
        if not _is_review_link(link):
            return [_left_alone(link, installing=True)]
        # Another copy of review's skill (an older install, a moved checkout): point at this one.
        old = os.readlink(link)
        temporary = link.with_name(f".{link.name}.{secrets.token_hex(4)}.tmp")
        os.symlink(skill, temporary, target_is_directory=True)
        os.replace(temporary, link)
        return [Change(f"relinked {link} -> {skill} (it pointed to {old})")]
    if link.exists():
        return [_left_alone(link, installing=True)]
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(skill, target_is_directory=True)
    return [Change(f"linked {link} -> {skill}")]


def _unlink(link: Path) -> list[Change]:
    if _is_review_link(link):
        link.unlink()
        return [Change(f"removed the link {link}")]
    if link.is_symlink() or link.exists():
        return [_left_alone(link, installing=False)]
    return []


def _is_review_link(link: Path) -> bool:
    """Whether `link` is a symlink that review made: to a `skills/review` folder with SKILL.md."""
    if not link.is_symlink():
        return False
    target = Path(os.path.realpath(link))
    if target.name != "review" or target.parent.name != "skills":
        return False
    # A link into a folder that is gone (a removed virtualenv) is nobody's skill any more.
    return not target.exists() or (target / "SKILL.md").is_file()


def _left_alone(link: Path, *, installing: bool) -> Change:
    if link.is_symlink():
        what = f"it links to {os.readlink(link)}"
    elif link.is_dir():
        what = "it is a folder"
    else:
        what = "it is a file"
    if installing:
        return Change(
            f"left {link} alone: {what}, not review's skill; move it away and run review install again",
            skipped=True,
        )
    return Change(f"left {link} alone: {what}, not review's skill")


class _HookFile:
    """An agent's JSON settings, `{"hooks": {EVENT: [{"matcher"?, "hooks": [HOOK, ...]}]}}`."""

    def __init__(self, path: Path, document: dict[str, Any], before: bytes | None) -> None:
        self.path = path
        self.document = document
        self.before = before
        """The file as it was read; None when there was none."""

    @classmethod
    def read(cls, path: Path, agent: str) -> _HookFile:
        """The settings in `path`, where `agent`'s hooks go; empty when it does not exist.

        Raises:
            UnreadableSettings: the file is not a JSON object whose "hooks" is an object that
                holds a list for each of the agent's events.
        """
        try:
            before = path.read_bytes()
        except FileNotFoundError:
            return cls(path, {}, None)
        except OSError as error:
            raise UnreadableSettings(f"cannot read {path}: {error.strerror}") from None
        untouched = "it was left untouched; fix it, then run review install again"
        try:
            text = before.decode("utf-8")
            # An empty file (made with `touch`) holds no settings to lose.
            document = json.loads(text) if text.strip() else {}
        except UnicodeDecodeError as error:
            raise UnreadableSettings(f"{path} is not UTF-8 text (byte {error.start}); {untouched}") from None
        except json.JSONDecodeError as error:
            raise UnreadableSettings(
                f"{path} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); {untouched}"
            ) from None
        if not isinstance(document, dict):
            raise UnreadableSettings(f"{path} holds {type(document).__name__}, not a JSON object; {untouched}")
        hooks = document.get("hooks", {})
        if not isinstance(hooks, dict):
            raise UnreadableSettings(f'"hooks" in {path} is not an object; {untouched}')
        for event in HOOK_EVENTS[agent]:
            if not isinstance(hooks.get(event, []), list):
                raise UnreadableSettings(f'"hooks.{event}" in {path} is not a list; {untouched}')
        return cls(path, document, before)

    def add(self, agent: str, command: str) -> list[Change]:
        """Add a hook running `command hook AGENT` on each of the agent's events that lacks one."""
        ours = f"{command} hook {agent}"
        hooks: dict[str, Any] = self.document.setdefault("hooks", {})
        changes: list[Change] = []
        for event in HOOK_EVENTS[agent]:
            entries: list[Any] = hooks.setdefault(event, [])
            present = _hooks_in(entries)
            if any(hook.get("command") == ours for hook in present):
                continue
            older = [hook for hook in present if _runs_review_hook(hook.get("command"), agent)]
            if older:
                # A hook from an earlier install with another path: updating it, rather than
                # adding ours beside it, keeps the hook from running twice.
                for hook in older:
                    hook["command"] = ours
                changes.append(Change(f"updated the {event} hook in {self.path} to run {ours}"))
                continue
            entry: dict[str, Any] = {"matcher": "*"} if event in _TOOL_EVENTS else {}
            entry["hooks"] = [{"type": "command", "command": ours}]
            entries.append(entry)
            changes.append(Change(f"added the {event} hook to {self.path}"))
        return changes

    def remove(self, agent: str) -> list[Change]:
        """Remove every hook running review's `hook AGENT`, and what that leaves empty."""
        hooks = self.document.get("hooks")
        if not isinstance(hooks, dict):
            return []
        changes: list[Change] = []
        for event in HOOK_EVENTS[agent]:
            entries = hooks.get(event)
            if not isinstance(entries, list):
                continue
            removed = False
            for entry in list(entries):
                if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
                    continue
                kept = [
                    hook
                    for hook in entry["hooks"]
                    if not (isinstance(hook, dict) and _runs_review_hook(hook.get("command"), agent))
                ]
                if len(kept) == len(entry["hooks"]):
                    continue
                removed = True
                # Only what removing ours emptied goes; the user's own empty entries stay.
                if kept:
                    entry["hooks"] = kept
                else:
                    entries.remove(entry)
            if removed:
                changes.append(Change(f"removed the {event} hook from {self.path}"))
                if not entries:
                    del hooks[event]
        if changes and not hooks:
            del self.document["hooks"]
        return changes

    def save(self) -> None:
        """Write the settings back, atomically.

        Called only after a change: a file review has nothing to change in is never rewritten,
        so the user's own formatting stays as it was.
        """
        after = (json.dumps(self.document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        # Write through a symlink (settings kept in a dotfiles repository) instead of replacing it.
        target = Path(os.path.realpath(self.path))
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(target.stat().st_mode) if self.before is not None else None
        replace_atomically(target, after)
        if mode is not None:
            # Settings may hold secrets (tokens in "env"): keep the permissions they had.
            os.chmod(target, mode)
        self.before = after


def _hooks_in(entries: list[Any]) -> list[dict[str, Any]]:
    """Every hook of an event's entries; entries of a shape we do not know are passed over."""
    return [
        hook
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("hooks"), list)
        for hook in entry["hooks"]
        if isinstance(hook, dict)
    ]


def _runs_review_hook(command: object, agent: str) -> bool:
    """Whether `command` is `review hook AGENT`, with any path to review, quoted or not."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return len(words) == 3 and Path(words[0]).name == "review" and words[1:] == ["hook", agent]
