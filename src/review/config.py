"""The reviewer's settings: `~/.config/review/config.toml` (or under `$XDG_CONFIG_HOME`).

    theme = "textual-light"        # any Textual theme; "dark" and "light" are short for the default two
    syntax_theme = "monokai"       # any Pygments style; default: one that suits the theme
    split = true                   # open in the split view
    [keys]
    next_hunk = "ctrl+n"           # binding id = key, or several keys separated by commas
    [overview]
    notify = "auto"                # how the terminal is told that a worktree needs you:
                                   # auto, bell, osc9, osc777 (desktop notifications), off
    poll = 30                      # seconds between two readings of the other machines
    [request]
    open = "split"                 # where `review request --open` opens the viewer, in tmux:
                                   # split (a pane beside the agent's), window (a new window)
    [[hosts]]                      # a repository on another machine, for `review all` and
    name = "workstation"           # `review status`: the host as your SSH config names it,
    repo = "~/src/project"         # a path in the repository there,
    command = "~/.local/bin/review"  # what runs review there (default: review),
    ssh = "ssh -F ~/.ssh/work"     # and how to reach it (default: ssh)

`?` in the viewer lists every binding id with its key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from review.agents.viewer import PLACEMENTS, Placement
from review.errors import BadConfig
from review.state.files import xdg_folder

if TYPE_CHECKING:
    from review.overview.attention import Notify
    from review.overview.hosts import Host

_THEME_ALIASES = {"dark": "textual-dark", "light": "textual-light"}


class Config(NamedTuple):
    theme: str = "textual-dark"
    syntax_theme: str | None = None
    split: bool = False
    keys: Mapping[str, str] = MappingProxyType({})
    agents: tuple[str, ...] = ()
    """More program names that `review watch` recognises as agents."""
    notify: Notify = "auto"
    """How the overview tells the terminal that a worktree calls for the reviewer."""
    request_open: Placement = "split"
    """Where `review request --open` opens the viewer in tmux: beside the agent's pane, or in a
    new window."""
    hosts: tuple[Host, ...] = ()
    """Repositories on other machines that the overview and `review status` show."""
    poll: float = 30.0
    """Seconds between two readings of the other machines in the overview."""


def config_path() -> Path:
    return xdg_folder("XDG_CONFIG_HOME", ".config") / "review" / "config.toml"


def load_config(path: Path | None = None) -> Config:
    """The settings from the config file; the defaults when there is none.

    Raises:
        BadConfig: the file exists but is not valid TOML or holds values of the wrong type.
    """
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except (OSError, UnicodeDecodeError) as error:
        raise BadConfig(f"{path}: cannot be read: {error}") from None
    # imported only when there is a file to read: its regular expressions take a few milliseconds
    # of every start
    import tomllib

    from review.overview.attention import NOTIFY  # as tomllib: only to check the file's values

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BadConfig(f"{path}: {error}") from None

    def expect(key: str, kind: type, default: object) -> object:
        value = data.get(key, default)
        if not isinstance(value, kind):
            raise BadConfig(f"{path}: '{key}' must be a {kind.__name__}")
        return value

    keys = expect("keys", dict, {})
    assert isinstance(keys, dict)
    for binding, key in keys.items():
        if not isinstance(key, str) or not key.strip():
            raise BadConfig(f'{path}: keys.{binding} must be a key name such as "ctrl+n"')
    agents = expect("agents", list, [])
    assert isinstance(agents, list)
    if not all(isinstance(agent, str) for agent in agents):
        raise BadConfig(f"{path}: 'agents' must be a list of program names")
    overview = expect("overview", dict, {})
    assert isinstance(overview, dict)
    notify = overview.get("notify", "auto")
    if notify not in NOTIFY:
        raise BadConfig(f"{path}: overview.notify must be one of {', '.join(NOTIFY)}, not {notify!r}")
    request = expect("request", dict, {})
    assert isinstance(request, dict)
    request_open = request.get("open", "split")
    if request_open not in PLACEMENTS:
        raise BadConfig(f"{path}: request.open must be one of {', '.join(PLACEMENTS)}, not {request_open!r}")
    poll = overview.get("poll", 30)
    if isinstance(poll, bool) or not isinstance(poll, int | float) or poll < 1:
        raise BadConfig(f"{path}: overview.poll must be a number of seconds, at least 1")
    theme = str(expect("theme", str, "textual-dark"))
    syntax = expect("syntax_theme", str, "")
    return Config(
        theme=_THEME_ALIASES.get(theme, theme),
        syntax_theme=str(syntax) or None,
        split=bool(expect("split", bool, False)),
        keys=dict(keys),
        agents=tuple(agents),
        notify=notify,
        request_open=request_open,
        hosts=_hosts(path, expect("hosts", list, [])),
        poll=float(poll),
    )


def _hosts(path: Path, entries: object) -> tuple[Host, ...]:
    assert isinstance(entries, list)
    if not entries:
        return ()
    import shlex

    from review.overview.hosts import Host, is_host_name

    hosts = []
    for number, entry in enumerate(entries, 1):
        where = f"{path}: hosts entry {number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
            raise BadConfig(f"{where} needs a name, the host as your SSH config names it")
        if not is_host_name(entry["name"]):
            raise BadConfig(f"{where}: '{entry['name']}' is not a host name")
        values = {
            key: entry.get(key, default) for key, default in (("repo", "."), ("command", "review"), ("ssh", "ssh"))
        }
        for key, value in values.items():
            if not isinstance(value, str) or not value.strip():
                raise BadConfig(f"{where}: {key} must be a non-empty string")
        try:
            ssh = tuple(os.path.expanduser(word) for word in shlex.split(values["ssh"]))
        except ValueError as error:
            raise BadConfig(f"{where}: ssh cannot be read as a command ({error})") from None
        hosts.append(Host(entry["name"], values["repo"], values["command"], ssh))
    return tuple(hosts)
