"""`review doctor`: whether the review loop will work here, each problem with the command that fixes it.

The loop is a chain: the reviewer sends; the agent hears of it (its Stop hook, `review watch`
pasting a pointer into its tmux pane, or the skill that tells it to wait); it runs `review
pending` and answers. Each check is one link of that chain, in one line. `hooks_installed` and
`watch_running` also tell the TUI, after sending, how the agent will hear of the review.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from review import command
from review.agents import codex_trust, install
from review.errors import ReviewError, UnreadableReview
from review.repo import git
from review.state.model import AGENTS
from review.state.store import Store


@dataclass(frozen=True)
class Check:
    """One link of the loop: whether it holds, in one line, and what fixes it when it does not."""

    name: str
    ok: bool
    says: str
    fix: str | None = None
    """A command to run (or, where no command can do it, what to do); None when all is well."""


def check(where: Path) -> list[Check]:
    """Every check, for the worktree containing `where` (or only the user-wide ones outside one)."""
    try:
        worktree: git.Worktree | None = git.find_worktree(where)
    except ReviewError:
        worktree = None
    root = worktree.root if worktree is not None else None
    checks = [review_on_path(), *skill(root), *hooks(root), *codex_trusts(root), tmux(), git_version()]
    if worktree is None:
        outside = (
            f"{where} is not in a git repository: run review doctor in one to check review watch and the review file"
        )
        checks.append(Check("repository", True, outside))
    else:
        checks += [watch(worktree.root), review_file(worktree.root)]
    return checks


def after_install(root: Path | None) -> list[Check]:
    """The problems `review install` names: review not on PATH, skill links left dangling."""
    # An agent without the skill is not the install's business; a link into a removed one is.
    return [found for found in (review_on_path(), *skill(root)) if not found.ok and found.name != "skill"]


def hooks_installed(worktree_root: Path) -> list[str]:
    """The agents that have review's Stop hook, user-wide or in the repository at `worktree_root`.

    The Stop hook is the one that tells an agent of a review when it stops. Whether Codex trusts
    its hooks cannot be read from its files: a Codex hook named here may still be waiting for
    the user to trust it.
    """
    return [
        agent
        for agent, files in _hook_files(worktree_root)
        if any(install.review_hooks(file, agent) for file, _ in files)
    ]


def watch_running(repository: Path) -> bool:
    """Whether a `review watch` process for the repository containing `repository` is alive.

    It reads each process's command line and current folder from /proc, so it sees only this
    user's processes on this machine (not one in another container, or across SSH), and never
    sees anything on a system without /proc (macOS). A watch is recognised by its command line:
    `.../review watch [REPO]` or `python -m review watch [REPO]`, REPO taken from the process's
    folder; it counts when REPO is in a worktree of the same repository.
    """
    try:
        mine = git.find_worktree(repository).common_dir.resolve()
    except ReviewError:
        return False
    for argv, cwd in _processes():
        folder = _watched_folder(argv)
        if folder is None:
            continue
        try:
            if git.find_worktree(cwd / folder).common_dir.resolve() == mine:
                return True
        except (ReviewError, OSError):
            continue
    return False


def how_the_agent_hears(worktree_root: Path) -> str:
    """One sentence for the reviewer who just sent a review: which channels will tell the agent of
    it, or what to tell the agent when none will."""
    channels = [f"its Stop hook ({', '.join(agents)})" for agents in [hooks_installed(worktree_root)] if agents]
    if watch_running(worktree_root):
        channels.append("review watch")
    if channels:
        return f"Your agent hears of it from {' and '.join(channels)}."
    return (
        f"Nothing tells your agent (no hook, no review watch): tell it to run `{command.runnable()} pending`."
        " `review doctor` shows how to make that automatic."
    )


def git_version() -> Check:
    """Whether git is there, and new enough for review (`git.OLDEST_GIT`)."""
    oldest = ".".join(map(str, git.OLDEST_GIT))
    fix = f"install git {oldest} or newer"
    found = git.installed_version()
    if found is None:
        return Check("git", False, "git is not installed: review reads everything through it", fix)
    problem = git.version_problem(found)
    if problem is not None:
        return Check("git", False, problem, fix)
    return Check("git", True, f"{found} (review needs {oldest} or newer)")


def review_on_path() -> Check:
    """Whether plain `review` runs this program, in the agent's shell and in a login shell."""
    name = "review on PATH"
    me = command.this_review()
    if me is None:
        # Run as `python -m review`: the review on PATH is the one agents run.
        me = command.on_path()
        if me is None:
            return Check(name, False, "review is not on PATH", "install review as README.md's first command does")
        on_path = command.same_program(me, command.in_login_shell())
    else:
        on_path = command.is_on_path()
    if on_path:
        return Check(name, True, f"review is on PATH: {command.on_path()}")
    found = command.on_path()
    if found is None:
        what = "review is not on PATH"
    elif not command.same_program(found, me):
        what = f"review on PATH is {found}, not this one"
    else:
        what = "review is on PATH, but a login shell (bash -lc, as Codex runs commands) does not find it"
    return Check(
        name, False, f"{what}: agents are told to run {me} instead (once fixed, open a new shell)", _path_fix(me)
    )


def skill(root: Path | None) -> list[Check]:
    """Where the skill is installed, and each link of it into a folder that is gone."""
    installed: list[str] = []
    problems: list[Check] = []
    for agent in AGENTS:
        for project in (False, True) if root is not None else (False,):
            place = install.Place.of(agent, root if project else None)
            state = install.skill_state(place.skill)
            where = "this project" if project else "user-wide"
            if state in ("linked", "copied"):
                installed.append(f"{agent} ({where})")
            elif state == "dangling":
                fix = f"{command.runnable()} install {agent}{' --project' if project else ''}"
                gone = f"the skill link {place.skill} points to {os.readlink(place.skill)}, which is gone"
                problems.append(Check("skill link", False, gone, fix))
    if problems:
        return problems
    if not installed:
        return [
            Check("skill", False, "the review skill is installed for no agent", f"{command.runnable()} install all")
        ]
    return [Check("skill", True, f"the skill is installed for {', '.join(installed)}")]


def hooks(root: Path | None) -> list[Check]:
    """Which agents have review's hooks, and hooks that run a review that is gone."""
    have: list[str] = []
    problems: list[Check] = []
    for agent, files in _hook_files(root):
        for file, project in files:
            for run in install.review_hooks(file, agent):
                program = shlex.split(run)[0]
                where = "this project" if project else "user-wide"
                if "/" in program and not os.access(program, os.X_OK):
                    fix = f"{command.runnable()} install {agent}{' --project' if project else ''}"
                    gone = f"the {agent} hooks in {file} run {program}, which is gone"
                    problems.append(Check("hooks", False, gone, fix))
                else:
                    have.append(f"{agent} ({where})")
    if problems:
        return problems
    if not have:
        return [
            Check(
                "hooks",
                False,
                "no agent has review's hooks, so a stopping agent is not told of a review",
                f"{command.runnable()} install all",
            )
        ]
    codex = any(agent.startswith("codex") for agent in have)
    trust = "; Codex runs them once you trust them (/hooks in codex)" if codex else ""
    return [Check("hooks", True, f"review's hooks are installed for {', '.join(dict.fromkeys(have))}{trust}")]


def codex_trusts(root: Path | None) -> list[Check]:
    """Whether Codex trusts review's hooks, user-wide and in the project at `root`: it skips an
    untrusted one without a word. Told from Codex's own settings, as Codex 0.171 keeps them
    (`codex_trust`); nothing when review has no Codex hooks."""
    config = codex_trust.config_file(Path.home())
    hashes = codex_trust.trusted_hashes(config)
    found = False
    waiting: dict[Path, list[str]] = {}
    for agent, files in _hook_files(root):
        if agent != "codex":
            continue
        for file, _ in files:
            for event, group, index, entry, hook in install.review_hook_places(file, agent):
                found = True
                said = codex_trust.trust_hash(event, entry, hook)
                # Codex names the file by the path it found it at, which may go through a link.
                places = {codex_trust.key(path, event, group, index) for path in (file, file.resolve())}
                if not any(codex_trust.trust(hashes, place, said) == "trusted" for place in places):
                    waiting.setdefault(file, []).append(event)
    name = "codex trust"
    if not found:
        return []
    if hashes is None:
        return [
            Check(
                name,
                True,
                f"cannot tell whether Codex trusts review's hooks ({config} cannot be read): run /hooks in codex to check",
            )
        ]
    if not waiting:
        return [Check(name, True, "Codex trusts review's hooks")]
    which = "; ".join(f"{', '.join(events)} in {file}" for file, events in waiting.items())
    return [
        Check(
            name,
            False,
            f"Codex has not trusted review's hooks ({which}), or not since they changed, and skips them without a word",
            codex_trust.HOW_TO_TRUST,
        )
    ]


def tmux() -> Check:
    """Whether tmux is there, for `review watch` to paste into the agents' panes."""
    found = shutil.which("tmux")
    if found:
        return Check("tmux", True, f"tmux is installed: {found}")
    if sys.platform == "darwin":
        fix = "brew install tmux"
    elif shutil.which("apt-get"):
        fix = "sudo apt-get install tmux"
    elif shutil.which("dnf"):
        fix = "sudo dnf install tmux"
    else:
        fix = "install tmux with your system's package manager"
    return Check("tmux", False, "tmux is not installed, so review watch cannot tell agents in their panes", fix)


def watch(root: Path) -> Check:
    """Whether `review watch` runs for the repository of the worktree at `root`."""
    if not Path("/proc/self/cmdline").exists():
        return Check("review watch", True, "cannot tell whether review watch is running: this system has no /proc")
    if watch_running(root):
        return Check("review watch", True, "review watch is running for this repository")
    return Check(
        "review watch",
        False,
        "review watch is not running for this repository, so agents in tmux panes are not told of a review",
        f"tmux new-window -d {shlex.quote(f'{command.runnable()} watch {shlex.quote(str(root))}')}",
    )


def review_file(root: Path) -> Check:
    """Whether the worktree's review file can be read (and written)."""
    store = Store(root)
    if not store.path.exists():
        return Check("review file", True, f"no review in {root} yet")
    try:
        store.read()
    except UnreadableReview as error:
        fix = "upgrade review" if "newer version" in str(error) else f"rm {shlex.quote(str(store.path))}"
        return Check("review file", False, str(error), fix)
    if not os.access(store.path, os.W_OK) or not os.access(store.folder, os.W_OK):
        fix = f"chmod u+w {shlex.quote(str(store.folder))} {shlex.quote(str(store.path))}"
        return Check("review file", False, f"{store.path} cannot be written", fix)
    return Check("review file", True, f"the review file can be read: {store.path}")


def _path_fix(me: Path) -> str:
    """The commands that put `me` on PATH as `review` for every shell: a link in ~/.local/bin,
    and that folder on PATH in the login shell's profile."""
    local_bin = Path.home() / ".local" / "bin"
    steps: list[str] = []
    if not command.same_program(local_bin / "review", me):
        steps.append(f"mkdir -p ~/.local/bin && ln -sf {shlex.quote(str(me))} ~/.local/bin/review")
    login = _login_path()
    if not steps or str(local_bin) not in login or str(local_bin) not in os.environ.get("PATH", "").split(os.pathsep):
        # First on PATH, so that no other review shadows this one.
        steps.append(f"echo 'export PATH=\"$HOME/.local/bin:$PATH\"' >> {_profile()}")
    return " && ".join(steps)


@cache
def _login_path() -> list[str]:
    """PATH as a login shell sets it."""
    return (command.login_shell('printf %s "$PATH"') or "").strip().split(os.pathsep)


def _profile() -> str:
    """The file a login shell reads: bash reads only the first of these that exists."""
    if Path(os.environ.get("SHELL", "")).name == "zsh":
        return "~/.zprofile"
    for name in (".bash_profile", ".bash_login"):
        if (Path.home() / name).exists():
            return f"~/{name}"
    return "~/.profile"


def _hook_files(root: Path | None) -> list[tuple[str, list[tuple[Path, bool]]]]:
    """Each agent with hooks, and the files its hooks may be in: (file, in the project)."""
    found: list[tuple[str, list[tuple[Path, bool]]]] = []
    for agent in install.HOOK_EVENTS:
        files: list[tuple[Path, bool]] = []
        for project in (False, True) if root is not None else (False,):
            hooks_file = install.Place.of(agent, root if project else None).hooks
            if hooks_file is not None:
                files.append((hooks_file, project))
                if agent == "claude":
                    # Claude Code also reads the personal, git-ignored settings.local.json.
                    files.append((hooks_file.with_name("settings.local.json"), project))
        found.append((agent, files))
    return found


def _processes() -> list[tuple[list[str], Path]]:
    """Each other process's command line and current folder, where this user may read them."""
    found: list[tuple[list[str], Path]] = []
    for entry in Path("/proc").glob("[0-9]*"):
        if entry.name == str(os.getpid()):
            continue
        try:
            raw = (entry / "cmdline").read_bytes()
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            # Gone since the listing, or another user's.
            continue
        argv = [os.fsdecode(word) for word in raw.split(b"\0") if word]
        if argv:
            found.append((argv, cwd))
    return found


def _watched_folder(argv: list[str]) -> str | None:
    """The folder a `review watch` command line watches; None when it is not one."""
    for at, word in enumerate(argv):
        # `review ...`; `python -m review ...`; or a script's shebang run: `python [-E ...] .../review ...`
        # (pipx writes `python -E`).
        run_by_python = Path(argv[0]).name.startswith("python") and all(flag.startswith("-") for flag in argv[1:at])
        is_review = Path(word).name == "review" and (at == 0 or argv[at - 1] == "-m" or run_by_python)
        if is_review:
            rest = argv[at + 1 :]
            if not rest or rest[0] != "watch":
                return None
            folders = [word for word in rest[1:] if not word.startswith("-")]
            return folders[0] if folders else "."
    return None
