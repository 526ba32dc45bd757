"""`review install`: the review skill and hooks, put where each coding agent looks for them.

A user-wide install links the skill into each agent's skill folder, so upgrading review upgrades
the skill, and its hooks run review by its absolute path, since an agent's PATH may lack it. A
project install (`--project`) writes files meant to be committed with the repository, so every
worktree and every clone gets them: a copy of the skill, and hooks that run plain `review`;
nothing in them names a path of this machine.

Claude Code and Codex get hooks that run `review hook claude|codex` on their events; Pi has no
hooks, and gets review's extension instead (`agents/pi/review.js`), written with the command that
runs review, which calls `review hook pi` and hands Pi the pointer to a review. Installing is idempotent and merges into the user's settings: every other key and every
other hook stays as it was. Nothing that is not review's own is ever replaced or removed; a
settings file that cannot be understood is refused, untouched.

Codex runs a hook only once the user trusted it, and keys that trust by the hook's place and
command (see `codex_trust`). So a user-wide hook that still runs a review is never rewritten,
new hooks go after the user's own, and when removing review's moves the user's hooks up, their
trust moves along in Codex's settings (or the user is told which hooks Codex will ask about).

Uninstalling puts back exactly what was there before: install keeps, in review's state folder,
each settings file as it was before review first changed it and the folders it made, so a file
that did not exist is removed again, an untouched one gets its very bytes back, and folders
install made go once they are empty.
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
from typing import Any, Literal

from review.agents import codex_trust
from review.errors import CannotWrite, MissingSkill, ReviewError, UnreadableSettings
from review.state.files import replace_atomically, xdg_folder
from review.state.model import AGENTS

HOOK_EVENTS: dict[str, tuple[str, ...]] = {
    "claude": ("Stop", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "SessionStart"),
    # Codex has no Notification event: PermissionRequest says it waits for the user, and a turn
    # the user interrupts ends with Interrupt instead of Stop.
    "codex": (
        "Stop",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "SessionStart",
        "Interrupt",
    ),
}
"""Agent -> the events its hooks run `review hook AGENT` on; an agent not named has no hooks."""

_TOOL_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse"})
"""Events whose entries say which tools they match; ours match every tool."""

NOTHING = "nothing to change"
"""The one line install and uninstall give when everything was already as asked."""

PROJECT_COMMAND = "review"
"""What a project install's hooks run: a name each machine's PATH finds, never a path of this one."""

COPY_MARK = "<!-- Copied here by `review install --project`"
"""How a copy of the skill that a project install made begins its last line; it tells review's
copy from a skill of the user's that happens to be called review."""

SkillState = Literal["linked", "copied", "dangling", "other", "missing"]
"""What is at an agent's skill place: review's link to a skill that is there, review's copy,
review's link into a folder that is gone (a deleted virtualenv), something of the user's, nothing."""


@dataclass(frozen=True)
class Change:
    """One thing install or uninstall did (or, when `skipped`, would not do), as one line."""

    what: str
    skipped: bool = False
    """Something that is not review's was in the way and was left alone; the install is incomplete."""


@dataclass(frozen=True)
class Place:
    """Where one agent looks for review's skill and hooks: user-wide, or in one repository."""

    agent: str
    skill: Path
    """The skill: a link to review's skill folder (user-wide) or a copy of it (in a project)."""
    hooks: Path | None
    """The JSON file holding its hooks; None for an agent without hooks."""
    project: bool
    """In a repository: files meant to be committed, which must work on every machine."""

    @classmethod
    def of(cls, agent: str, root: Path | None, home: Path | None = None) -> Place:
        """Where `agent` looks in the repository at `root`, or user-wide when `root` is None."""
        base = root or home or Path.home()
        project = root is not None
        if agent == "claude":
            return cls(agent, base / ".claude" / "skills" / "review", base / ".claude" / "settings.json", project)
        if agent == "codex":
            # Codex reads skills from .agents/ but its own settings from .codex/.
            return cls(agent, base / ".agents" / "skills" / "review", base / ".codex" / "hooks.json", project)
        skills = base / ".pi" / "skills" if project else base / ".pi" / "agent" / "skills"
        return cls(agent, skills / "review", None, project)


def install(
    agents: Sequence[str], *, root: Path | None, skill: Path, command: str, home: Path | None = None
) -> list[Change]:
    """Put the skill and the hooks in place for `agents`, changing only what is missing.

    Every settings file is read before anything changes, so a broken one stops the install
    with nothing done.

    Args:
        agents: names from `AGENTS`, or "all".
        root: the repository root to install into (`--project`); None installs user-wide.
        skill: the folder holding the skill's SKILL.md (see `skill_folder`).
        command: how a shell runs review, already quoted (see `review_command`); user-wide hooks
            run "COMMAND hook claude" or "COMMAND hook codex". A project's hooks run
            `PROJECT_COMMAND` instead, which works wherever review is on PATH.
        home: the user's home folder; default: `Path.home()`.

    Returns:
        One change a line, or a single "nothing to change" when all was already in place.

    Raises:
        MissingSkill: `skill` holds no SKILL.md.
        UnreadableSettings: a settings file is not a JSON object with a "hooks" object.
        CannotWrite: a file or folder cannot be written.
        ReviewError: an agent name is unknown.
    """
    chosen = chosen_agents(agents)
    if not (skill / "SKILL.md").is_file():
        raise MissingSkill(f"{skill} holds no SKILL.md, so there is no skill to link")
    skill = skill.resolve()
    home = home or Path.home()
    places = [Place.of(agent, root, home) for agent in chosen]
    settings = {place.agent: _HookFile.read(place.hooks, place.agent) for place in places if place.hooks is not None}
    if root is not None:
        command = PROJECT_COMMAND
    record = Record.load(home)
    changes: list[Change] = []
    written: list[Path] = []
    try:
        for place in places:
            made = _copy(place.skill, skill, record) if place.project else _link(place.skill, skill, record)
            changes += made
            if made and not made[-1].skipped:
                written.append(place.skill)
            hook_file = settings.get(place.agent)
            if hook_file is not None:
                added = hook_file.add(place.agent, command, keep_working=not place.project)
                if added:
                    record.remember(hook_file.path, hook_file.before)
                    hook_file.save(record)
                    written.append(hook_file.path)
                    if place.agent == "codex":
                        added.append(Change(_CODEX_TRUST))
                changes += added
            if place.agent == "pi":
                extension = pi_extension(root, home)
                put = _put_pi_extension(extension, command, record)
                changes += put
                if put and not put[-1].skipped:
                    written.append(extension)
    finally:
        record.save()
    if root is not None and written:
        changes.append(Change(_commit_advice(root, written)))
    return changes or [Change(NOTHING)]


_CODEX_TRUST = f"Codex runs a new or changed hook only once you trust it: {codex_trust.HOW_TO_TRUST}"
"""Codex skips an untrusted hook without a word, so install says so each time it writes one."""


def _keep_codex_trust(
    hooks_file: Path,
    before: dict[int, tuple[str, int, int, dict[str, Any]]],
    after: dict[int, tuple[str, int, int, dict[str, Any]]],
    home: Path,
) -> list[Change]:
    """Keep Codex's trust in the user's hooks that removing review's moved up in `hooks_file`.

    Codex keys its trust by a hook's place, so a hook that moved would need trusting again; its
    trust is moved along with it in the user's Codex settings. When those cannot be rewritten,
    the user is told which hooks Codex will ask about.
    """

    def place(where: tuple[str, int, int, dict[str, Any]]) -> str:
        return codex_trust.key(hooks_file, *where[:3])

    moved = {hook: where for hook, where in after.items() if place(where) != place(before[hook])}
    config = codex_trust.config_file(home)
    hashes = codex_trust.trusted_hashes(config)
    trusted = {hook: where for hook, where in moved.items() if hashes is None or place(before[hook]) in hashes}
    if not trusted:
        return []
    names = ", ".join(f"{where[0]} {where[3].get('command')!r}" for where in trusted.values())
    moves = {place(before[hook]): place(where) for hook, where in moved.items()}
    gone = {place(where) for hook, where in before.items() if hook not in after}
    if hashes is not None and codex_trust.move_trust(config, moves, gone):
        return [
            Change(
                f"moved Codex's trust in your hooks that moved up in {hooks_file} along with them ({config}): {names}"
            )
        ]
    return [
        Change(
            f"your hooks in {hooks_file} moved up, and Codex keys its trust by place, so it will ask you to trust"
            f" them again ({codex_trust.HOW_TO_TRUST}): {names}"
        )
    ]


def _commit_advice(root: Path, written: list[Path]) -> str:
    paths = " ".join(shlex.quote(str(path.relative_to(root))) for path in dict.fromkeys(written))
    where = shlex.quote(str(root))
    return (
        f"commit these so every worktree and clone has them (until then they show in review's diff):"
        f" git -C {where} add {paths} && git -C {where} commit -m 'Add the review skill and hooks'"
    )


def uninstall(agents: Sequence[str], *, root: Path | None, home: Path | None = None) -> list[Change]:
    """Take back review's skill and hooks for `agents`, and put back what was there before.

    A link is review's when it points at a folder `skills/review` holding SKILL.md (or at such
    a path that is gone); a copy is review's when its SKILL.md ends with `COPY_MARK`; a hook is
    review's when its command is `PATH/review hook AGENT`, whatever the path. The user's own
    things at the same places are named and left alone. A settings file gets back the bytes it
    had before install when nothing else changed in it since, and goes when install made it or
    nothing is left in it; the folders install made go when they are empty.

    Args:
        agents: names from `AGENTS`, or "all".
        root: the repository root to uninstall from (`--project`); None uninstalls user-wide.
        home: the user's home folder; default: `Path.home()`.

    Returns:
        One change a line, or a single "nothing to change" when nothing of review's was there.

    Raises:
        UnreadableSettings: a settings file is not a JSON object with a "hooks" object.
        CannotWrite: a file cannot be written.
        ReviewError: an agent name is unknown.
    """
    chosen = chosen_agents(agents)
    home = home or Path.home()
    places = [Place.of(agent, root, home) for agent in chosen]
    settings = {place.agent: _HookFile.read(place.hooks, place.agent) for place in places if place.hooks is not None}
    record = Record.load(home)
    changes: list[Change] = []
    try:
        for place in places:
            changes += _remove_skill(place.skill)
            hook_file = settings.get(place.agent)
            if hook_file is not None:
                before = hook_file.places(place.agent)
                removed = hook_file.remove(place.agent)
                if removed:
                    removed += hook_file.put_back(record)
                    if place.agent == "codex":
                        removed += _keep_codex_trust(hook_file.path, before, hook_file.places(place.agent), home)
                changes += removed
            starts = [place.skill, *([place.hooks.parent] if place.hooks is not None else [])]
            if place.agent == "pi":
                changes += _remove_pi_extension(pi_extension(root, home))
                starts.append(pi_extension(root, home).parent)
            gone = [folder for start in starts for folder in record.remove_made_folders(start)]
            if gone:
                changes.append(Change(f"removed the folders install made: {', '.join(map(str, gone))}"))
    finally:
        record.save()
    return changes or [Change(NOTHING)]


def skill_state(place: Path) -> SkillState:
    """What is at an agent's skill place (`Place.skill`); see `SkillState`."""
    if place.is_symlink():
        if not _is_review_link(place):
            return "other"
        return "linked" if place.exists() else "dangling"
    if _is_review_copy(place):
        return "copied"
    return "other" if place.exists() else "missing"


def review_hooks(settings: Path, agent: str) -> list[str]:
    """The commands of review's Stop hooks for `agent` in the settings file `settings`.

    The Stop hook is the one that tells the agent of a review. A file that is missing or cannot
    be understood holds none.
    """
    try:
        entries = _HookFile.read(settings, agent).document.get("hooks", {}).get("Stop", [])
    except UnreadableSettings:
        return []
    return [hook["command"] for hook in _hooks_in(entries) if _runs_review_hook(hook.get("command"), agent)]


def review_hook_places(settings: Path, agent: str) -> list[tuple[str, int, int, dict[str, Any], dict[str, Any]]]:
    """Each of review's hooks for `agent` in the settings file `settings`, as Codex keys its trust:
    the event, the index of its entry, its index in the entry, the entry and the hook. A file
    that is missing or cannot be understood holds none."""
    try:
        document = _HookFile.read(settings, agent).document
    except UnreadableSettings:
        return []
    hooks = document.get("hooks", {})
    return [
        (event, group, index, entry, hook)
        for event in HOOK_EVENTS[agent]
        for group, entry in enumerate(hooks.get(event, []))
        if isinstance(entry, dict) and isinstance(entry.get("hooks"), list)
        for index, hook in enumerate(entry["hooks"])
        if isinstance(hook, dict) and _runs_review_hook(hook.get("command"), agent)
    ]


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
    checkout = Path(__file__).resolve().parents[3] / "skills" / "review"
    if (checkout / "SKILL.md").is_file():
        return checkout
    raise MissingSkill(
        f"the review skill did not come with this copy of review (looked in {packaged} and {checkout});"
        " reinstall review"
    )


def review_command() -> str:
    """How a hook runs review: an absolute path, quoted if it must be.

    Hooks run with the agent's PATH, which may lack the virtualenv review is installed in, so
    the settings name the program itself. The review on PATH comes first, through any symlink:
    pipx and uv keep a link in ~/.local/bin that survives upgrades, while a checkout's
    virtualenv, or the folder the link points into, may go. Then the review running now; plain
    "review" only when neither can be found.
    """
    found = shutil.which("review")
    if found:
        return shlex.quote(os.path.abspath(found))
    running = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if running is not None and running.name == "review" and running.is_file():
        return shlex.quote(os.path.abspath(running))
    return "review"


def chosen_agents(agents: Sequence[str], among: Sequence[str] = AGENTS) -> list[str]:
    """The agents named, with "all" standing for every one of `among`, each once, in the order named.

    Raises:
        ReviewError: a name is not one of `among`.
    """
    chosen: list[str] = []
    for name in agents:
        if name == "all":
            chosen += among
        elif name in among:
            chosen.append(name)
        else:
            raise ReviewError(f"unknown agent '{name}': choose {', '.join(among)} or all")
    return list(dict.fromkeys(chosen))


def _link(link: Path, skill: Path, record: Record) -> list[Change]:
    if link.is_symlink():
        if os.path.realpath(link) == str(skill):
            return []
        if not _is_review_link(link):
            return [_left_alone(link, installing=True)]
        # Another copy of review's skill (an older install, a moved checkout): point at this one.
        old = os.readlink(link)
        gone = "" if link.exists() else ", which is gone"
        temporary = link.with_name(f".{link.name}.{secrets.token_hex(4)}.tmp")
        os.symlink(skill, temporary, target_is_directory=True)
        os.replace(temporary, link)
        return [Change(f"relinked {link} -> {skill} (it pointed to {old}{gone})")]
    if link.exists():
        return [_left_alone(link, installing=True)]
    record.make_folders(link.parent)
    link.symlink_to(skill, target_is_directory=True)
    return [Change(f"linked {link} -> {skill}")]


def _copy(folder: Path, skill: Path, record: Record) -> list[Change]:
    """Put a copy of the skill at `folder`: a link would name a path of this machine."""
    # The skill is its SKILL.md alone.
    text = (skill / "SKILL.md").read_text(encoding="utf-8").rstrip("\n")
    copied = f"{text}\n\n{COPY_MARK}; run it again to update this copy, with --uninstall to remove it. -->\n"
    target = folder / "SKILL.md"
    if folder.is_symlink():
        if not _is_review_link(folder):
            return [_left_alone(folder, installing=True)]
        # An earlier review linked the skill into the project, by a path of its own machine.
        folder.unlink()
        record.make_folders(folder)
        replace_atomically(target, copied.encode("utf-8"))
        return [Change(f"replaced the link {folder} with a copy of the skill, which works on every machine")]
    if folder.exists():
        if not _is_review_copy(folder):
            return [_left_alone(folder, installing=True)]
        if target.read_text(encoding="utf-8") == copied:
            return []
        replace_atomically(target, copied.encode("utf-8"))
        return [Change(f"updated the copy of the skill in {folder}")]
    record.make_folders(folder)
    replace_atomically(target, copied.encode("utf-8"))
    return [Change(f"copied the skill to {folder}")]


def _remove_skill(place: Path) -> list[Change]:
    if _is_review_link(place):
        place.unlink()
        return [Change(f"removed the link {place}")]
    if _is_review_copy(place):
        if [path.name for path in place.iterdir()] != ["SKILL.md"]:
            return [Change(f"left {place} alone: it holds files besides review's SKILL.md")]
        (place / "SKILL.md").unlink()
        place.rmdir()
        return [Change(f"removed the copy of the skill {place}")]
    if place.is_symlink() or place.exists():
        return [_left_alone(place, installing=False)]
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


def _is_review_copy(folder: Path) -> bool:
    """Whether `folder` is a copy of the skill that a project install made."""
    if folder.is_symlink() or not (folder / "SKILL.md").is_file():
        return False
    try:
        lines = (folder / "SKILL.md").read_text(encoding="utf-8").rstrip("\n").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return bool(lines) and lines[-1].startswith(COPY_MARK)


def _left_alone(link: Path, *, installing: bool, ours: str = "review's skill") -> Change:
    if link.is_symlink():
        what = f"it links to {os.readlink(link)}"
    elif link.is_dir():
        what = "it is a folder"
    else:
        what = "it is a file"
    if installing:
        return Change(
            f"left {link} alone: {what}, not {ours}; move it away and run review install again",
            skipped=True,
        )
    return Change(f"left {link} alone: {what}, not {ours}")


class Record:
    """What install changed, kept so that uninstall can put back exactly what was there.

    For each settings file, its text before review first changed it (None: there was no file),
    and the folders install made. It lives in `$XDG_STATE_HOME/review/install.json` (by default
    under ~/.local/state), in a folder only the user can read, since settings may hold tokens.
    Without it (an install by an older review, or a project installed on another machine),
    uninstall still takes back review's things, and removes a settings file left empty.
    """

    def __init__(self, path: Path, before: dict[str, str | None], made: list[str]) -> None:
        self.path = path
        self.before = before
        self.made = made
        self._loaded = self._document()

    @classmethod
    def load(cls, home: Path) -> Record:
        path = xdg_folder("XDG_STATE_HOME", ".local/state", home) / "review" / "install.json"
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            # No record, or one that cannot be read: uninstall then does without it.
            document = {}
        before = document.get("before") if isinstance(document, dict) else None
        made = document.get("made") if isinstance(document, dict) else None
        if not isinstance(before, dict) or not all(isinstance(text, str | None) for text in before.values()):
            before = {}
        if not isinstance(made, list) or not all(isinstance(folder, str) for folder in made):
            made = []
        return cls(path, before, made)

    def remember(self, file: Path, before: bytes | None) -> None:
        """Keep `file` as it was before review first changed it; later changes keep the first."""
        self.before.setdefault(str(file), None if before is None else before.decode("utf-8"))

    def take(self, file: Path) -> tuple[bool, bytes | None]:
        """Whether `file` is recorded, and its bytes before install (None: there was no file);
        the record forgets it."""
        if str(file) not in self.before:
            return False, None
        text = self.before.pop(str(file))
        return True, None if text is None else text.encode("utf-8")

    def make_folders(self, folder: Path) -> None:
        """Create `folder` and its missing parents, remembering each one made."""
        missing: list[Path] = []
        for parent in (folder, *folder.parents):
            if parent.exists() or parent.is_symlink():
                break
            missing.append(parent)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CannotWrite(f"cannot make {folder}: {error.strerror or error}") from None
        self.made += [str(made) for made in reversed(missing) if str(made) not in self.made]

    def remove_made_folders(self, start: Path) -> list[Path]:
        """Remove `start` and the folders above it that install made, while they are empty."""
        removed: list[Path] = []
        for folder in (start, *start.parents):
            if str(folder) not in self.made:
                continue
            if not folder.is_dir() or folder.is_symlink():
                self.made.remove(str(folder))
                continue
            try:
                folder.rmdir()
            except OSError:
                # Not empty: the user keeps something there, and so in every folder above.
                break
            self.made.remove(str(folder))
            removed.append(folder)
        return removed

    def save(self) -> None:
        """Write the record if it changed; once it holds nothing but its own folders, it goes."""
        if self._document() == self._loaded:
            return
        own = {str(folder) for folder in (self.path.parent, *self.path.parent.parents)}
        if not self.before and set(self.made) <= own:
            self.path.unlink(missing_ok=True)
            self.remove_made_folders(self.path.parent)
        else:
            if not self.path.parent.exists():
                self.make_folders(self.path.parent.parent)
                self._make_private_folder()
            replace_atomically(self.path, (json.dumps(self._document(), indent=2) + "\n").encode("utf-8"))
        self._loaded = self._document()

    def _make_private_folder(self) -> None:
        try:
            self.path.parent.mkdir(mode=0o700)
        except OSError as error:
            raise CannotWrite(f"cannot make {self.path.parent}: {error.strerror or error}") from None
        self.made.append(str(self.path.parent))

    def _document(self) -> dict[str, Any]:
        return {"before": dict(self.before), "made": list(self.made)}


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
            document = _parse(before.decode("utf-8"))
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

    def add(self, agent: str, command: str, *, keep_working: bool) -> list[Change]:
        """Add a hook running `command hook AGENT` on each of the agent's events that lacks one,
        after the user's own hooks of that event.

        With `keep_working` (a user-wide install), a review hook that still runs a review is left
        exactly as it is, whatever path it names, and new hooks run that same review: Codex
        trusts a hook by its command, so rewriting a working one would have the user trust it
        again after every upgrade, or an install from another checkout. Only a hook whose
        program is gone is rewritten.
        """
        hooks: dict[str, Any] = self.document.setdefault("hooks", {})
        theirs = [
            hook["command"]
            for event in HOOK_EVENTS[agent]
            for hook in _hooks_in(hooks.get(event, []))
            if _runs_review_hook(hook.get("command"), agent)
        ]
        working = [run for run in theirs if keep_working and _program_runs(run)]
        ours = working[0] if working else f"{command} hook {agent}"
        changes: list[Change] = []
        for event in HOOK_EVENTS[agent]:
            entries: list[Any] = hooks.setdefault(event, [])
            present = _hooks_in(entries)
            if any(hook.get("command") == ours for hook in present):
                continue
            older = [hook for hook in present if _runs_review_hook(hook.get("command"), agent)]
            stale = [hook for hook in older if not (keep_working and _program_runs(hook["command"]))]
            if older:
                # A hook from an earlier install with another path: updating it, rather than
                # adding ours beside it, keeps the hook from running twice.
                for hook in stale:
                    gone = shlex.split(hook["command"])[0]
                    hook["command"] = ours
                    why = f": {gone} is gone" if keep_working else ""
                    changes.append(Change(f"updated the {event} hook in {self.path} to run {ours}{why}"))
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

    def places(self, agent: str) -> dict[int, tuple[str, int, int, dict[str, Any]]]:
        """Where each hook of the agent's events is, as Codex keys its trust: the event, the
        index of its entry and its index in the entry; by the hook's identity, to follow it."""
        hooks = self.document.get("hooks")
        found: dict[int, tuple[str, int, int, dict[str, Any]]] = {}
        if not isinstance(hooks, dict):
            return found
        for event in HOOK_EVENTS[agent]:
            entries = hooks.get(event)
            for group, entry in enumerate(entries if isinstance(entries, list) else []):
                handlers = entry.get("hooks") if isinstance(entry, dict) else None
                for index, hook in enumerate(handlers if isinstance(handlers, list) else []):
                    if isinstance(hook, dict):
                        found[id(hook)] = (event, group, index, hook)
        return found

    def save(self, record: Record) -> None:
        """Write the settings back, atomically.

        Called only after a change: a file review has nothing to change in is never rewritten,
        so the user's own formatting stays as it was.
        """
        self._write((json.dumps(self.document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"), record)

    def put_back(self, record: Record) -> list[Change]:
        """Write the settings once review's hooks are removed: with the very bytes they had before
        install when nothing else changed in them since; no file at all when install made it, or
        when nothing is left in it.
        """
        recorded, before = record.take(self.path)
        if before is not None and _parse(before.decode("utf-8")) == self.document:
            self._write(before, record)
            return []
        if not self.document and not self.path.is_symlink():
            self.path.unlink()
            why = "install made it" if recorded and before is None else "nothing is left in it"
            return [Change(f"removed {self.path}: {why}")]
        self.save(record)
        return []

    def _write(self, data: bytes, record: Record) -> None:
        # Write through a symlink (settings kept in a dotfiles repository) instead of replacing it.
        target = Path(os.path.realpath(self.path))
        record.make_folders(target.parent)
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
        replace_atomically(target, data)
        if mode is not None:
            # Settings may hold secrets (tokens in "env"): keep the permissions they had.
            os.chmod(target, mode)
        self.before = data


def _parse(text: str) -> Any:
    # An empty file (made with `touch`) holds no settings to lose.
    return json.loads(text) if text.strip() else {}


def _hooks_in(entries: list[Any]) -> list[dict[str, Any]]:
    """Every hook of an event's entries; entries of a shape we do not know are passed over."""
    return [
        hook
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("hooks"), list)
        for hook in entry["hooks"]
        if isinstance(hook, dict)
    ]


def _program_runs(command: str) -> bool:
    """Whether the program a hook's `command` starts is there to run: a path to an executable
    file, or a name the PATH finds."""
    program = shlex.split(command)[0]
    if "/" not in program:
        return shutil.which(program) is not None
    return os.path.isfile(program) and os.access(program, os.X_OK)


def _runs_review_hook(command: object, agent: str) -> bool:
    """Whether `command` is `review hook AGENT`, with any path to review, quoted or not."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return len(words) == 3 and Path(words[0]).name == "review" and words[1:] == ["hook", agent]


PI_EXTENSION_MARK = "// review's extension for Pi"
"""How review's Pi extension begins; it tells review's file from one of the user's."""

_PI_COMMAND_LINE = 'const REVIEW = ["review"];'
"""The line of the packaged extension that install rewrites with the command that runs review."""


def pi_extension(root: Path | None, home: Path | None = None) -> Path:
    """Where Pi loads review's extension from: user-wide, or in the repository at `root`."""
    if root is not None:
        return root / ".pi" / "extensions" / "review.js"
    return (home or Path.home()) / ".pi" / "agent" / "extensions" / "review.js"


def pi_extension_text(command: str) -> str:
    """Review's Pi extension, running review as `command` (as a shell would split it): the
    extension runs it without a shell, so the path is written as its words."""
    packaged = importlib.resources.files("review.agents") / "pi" / "review.js"
    text = packaged.read_text(encoding="utf-8")
    if text.count(_PI_COMMAND_LINE) != 1:
        raise MissingSkill(f"the Pi extension that came with review ({packaged}) is damaged; reinstall review")
    return text.replace(_PI_COMMAND_LINE, f"const REVIEW = {json.dumps(shlex.split(command))};")


def _put_pi_extension(place: Path, command: str, record: Record) -> list[Change]:
    text = pi_extension_text(command)
    if place.is_symlink() or place.exists():
        if not _is_review_extension(place):
            return [_left_alone(place, installing=True, ours="review's Pi extension")]
        if place.read_text(encoding="utf-8") == text:
            return []
        replace_atomically(place, text.encode("utf-8"))
        return [Change(f"updated Pi's extension {place}")]
    record.make_folders(place.parent)
    replace_atomically(place, text.encode("utf-8"))
    return [Change(f"wrote Pi's extension {place}")]


def _remove_pi_extension(place: Path) -> list[Change]:
    if _is_review_extension(place):
        place.unlink()
        return [Change(f"removed Pi's extension {place}")]
    if place.is_symlink() or place.exists():
        return [_left_alone(place, installing=False, ours="review's Pi extension")]
    return []


def _is_review_extension(place: Path) -> bool:
    if place.is_symlink() or not place.is_file():
        return False
    try:
        with place.open(encoding="utf-8") as file:
            return file.readline().startswith(PI_EXTENSION_MARK)
    except (OSError, UnicodeDecodeError):
        return False
