"""`review install claude|codex --mcp`: register `review mcp` with Claude Code and Codex, for agents
that would rather call the review loop's tools than run its commands (an alternative to the skill).

Claude Code keeps its user-wide MCP servers in ~/.claude.json, a file its running sessions rewrite
all the time, so review registers through Claude Code's own command, `claude mcp add --scope
user`, and only reads the file to see what is there; without `claude` on PATH, install says what to
run. Codex reads `[mcp_servers.NAME]` tables from ~/.codex/config.toml (or `$CODEX_HOME`), a file
people write by hand, with comments: review appends its own table and later takes that table
alone out again, as text, so every other byte of the file stays as the user wrote it; with the
record `review install` keeps (`review.agents.install`), uninstalling gives back the very bytes
the file had before. A server called review that runs something else is left alone, and said so.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from review.agents.install import NOTHING, Change, Record, chosen_agents
from review.errors import ReviewError, UnreadableSettings
from review.state.files import replace_atomically

SERVER = "review"
"""The name the agents know the server by: their tools are `mcp__review__pending` and so on."""

CODEX_TOOL_SECONDS = 330
"""How long Codex lets one call of review's tools run: the longest `wait` (300 seconds) and some.
Codex stops a tool call after 60 seconds unless the server's table says otherwise."""

MCP_AGENTS = ("claude", "codex")
"""The agents that start MCP servers; Pi has none (its skill is the way)."""

_MARK = "# Added by `review install codex --mcp`; `review install codex --mcp --uninstall` takes it out."


def register(agents: Sequence[str], *, command: str, home: Path | None = None) -> list[Change]:
    """Register `review mcp` as the MCP server "review" with each of `agents`, user-wide.

    Args:
        agents: "claude", "codex", or "all" (both).
        command: how a shell runs review, quoted (`review.agents.install.review_command`); the
            agents start the server as `COMMAND mcp`, without a shell, from the agent's folder.
        home: the user's home folder; default: `Path.home()`.

    Returns:
        One change a line, or a single "nothing to change" when all was already in place; a
        change is `skipped` when something of the user's was in the way, or `claude` could not
        be run.

    Raises:
        UnreadableSettings: Codex's config.toml cannot be understood; it is left untouched.
        CannotWrite: a file cannot be written.
        ReviewError: an agent that has no MCP servers, or an unknown one.
    """
    run = [*shlex.split(command), "mcp"]
    home = home or Path.home()
    chosen = _chosen(agents)
    changes: list[Change] = []
    if "claude" in chosen:
        changes += _add_to_claude(run, home)
    if "codex" in chosen:
        record = Record.load(home)
        try:
            changes += _add_to_codex(run, home, record)
        finally:
            record.save()
    return changes or [Change(NOTHING)]


def unregister(agents: Sequence[str], *, home: Path | None = None) -> list[Change]:
    """Take review's MCP server back from each of `agents`, and give Codex's config.toml back the
    bytes it had before install when nothing else changed in it since.

    Raises:
        UnreadableSettings: Codex's config.toml cannot be understood; it is left untouched.
        CannotWrite: a file cannot be written.
        ReviewError: an agent that has no MCP servers, or an unknown one.
    """
    home = home or Path.home()
    chosen = _chosen(agents)
    changes: list[Change] = []
    if "claude" in chosen:
        changes += _remove_from_claude(home)
    if "codex" in chosen:
        record = Record.load(home)
        try:
            changes += _remove_from_codex(home, record)
        finally:
            record.save()
    return changes or [Change(NOTHING)]


def codex_config(home: Path) -> Path:
    """Codex's config.toml: in `$CODEX_HOME` when it is set, as Codex reads it, else ~/.codex."""
    codex_home = os.environ.get("CODEX_HOME")
    return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"


def claude_config(home: Path) -> Path:
    """The file Claude Code keeps user-wide MCP servers in (`$CLAUDE_CONFIG_DIR` moves it)."""
    folder = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(folder) if folder else home) / ".claude.json"


def _chosen(agents: Sequence[str]) -> list[str]:
    if "pi" in agents:
        raise ReviewError("Pi starts no MCP servers: `review install pi` gives it the skill")
    return chosen_agents(agents, among=MCP_AGENTS)


def _is_ours(server: object) -> bool:
    """Whether a registered server runs `review mcp`, by whatever path to review."""
    if not isinstance(server, dict):
        return False
    program, args = server.get("command"), server.get("args")
    return isinstance(program, str) and Path(program).name == "review" and args == ["mcp"]


def _runs(server: object, run: list[str]) -> bool:
    return isinstance(server, dict) and [server.get("command"), *(server.get("args") or [])] == run


def _someone_elses(where: str, server: object) -> Change:
    runs = shlex.join([server.get("command", "?"), *server.get("args", [])]) if isinstance(server, dict) else "?"
    return Change(
        f"left the MCP server '{SERVER}' in {where} alone: it runs {runs}, not review's; remove it, then run"
        " review install again",
        skipped=True,
    )


# Claude Code


def _claude_server(home: Path) -> object:
    """The user-wide server called review in Claude Code's file; None when there is none, or the
    file cannot be read (Claude Code's own command then says what is wrong)."""
    try:
        document = json.loads(claude_config(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    return servers.get(SERVER) if isinstance(servers, dict) else None


def _add_to_claude(run: list[str], home: Path) -> list[Change]:
    found = _claude_server(home)
    if _runs(found, run):
        return []
    if found is not None and not _is_ours(found):
        return [_someone_elses(str(claude_config(home)), found)]
    add = ["claude", "mcp", "add", "--scope", "user", SERVER, "--", *run]
    if found is not None:
        # An earlier install by another path: replaced, since `claude mcp add` refuses a name twice.
        failed = _claude(["claude", "mcp", "remove", "--scope", "user", SERVER], home)
        if failed is not None:
            return [failed]
    failed = _claude(add, home)
    if failed is not None:
        return [failed]
    return [Change(f"registered review's MCP server with Claude Code: {shlex.join(add)}")]


def _remove_from_claude(home: Path) -> list[Change]:
    found = _claude_server(home)
    if found is None:
        return []
    if not _is_ours(found):
        return [_someone_elses(str(claude_config(home)), found)]
    remove = ["claude", "mcp", "remove", "--scope", "user", SERVER]
    failed = _claude(remove, home)
    if failed is not None:
        return [failed]
    return [Change(f"removed review's MCP server from Claude Code: {shlex.join(remove)}")]


def _claude(words: list[str], home: Path) -> Change | None:
    """Run Claude Code's command; a skipped change saying why when it did not do it."""
    program = shutil.which("claude")
    if program is None:
        return Change(f"claude is not on PATH; to do it by hand, run: {shlex.join(words)}", skipped=True)
    try:
        done = subprocess.run(
            [program, *words[1:]],
            cwd=home,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return Change(f"could not run {shlex.join(words)}: {error}", skipped=True)
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}").splitlines()[0]
        return Change(f"{shlex.join(words)} failed: {said}", skipped=True)
    return None


# Codex


def _add_to_codex(run: list[str], home: Path, record: Record) -> list[Change]:
    path = codex_config(home)
    before, text, document = _read_codex(path)
    found = _servers(document, path).get(SERVER)
    if _runs(found, run):
        return []
    if found is not None and not _is_ours(found):
        return [_someone_elses(str(path), found)]
    kept = _without_ours(text) if found is not None else text
    if kept is None:
        return [_not_ours_to_edit(path)]
    table = "\n".join(
        [
            f"[mcp_servers.{SERVER}]",
            _MARK,
            f"command = {_toml_string(run[0])}",
            f"args = [{', '.join(_toml_string(word) for word in run[1:])}]",
            f"tool_timeout_sec = {CODEX_TOOL_SECONDS}",
        ]
    )
    written = _appended(kept, table)
    wanted = {"command": run[0], "args": run[1:], "tool_timeout_sec": CODEX_TOOL_SECONDS}
    if _normal(tomllib.loads(written)) != _normal(_with_server(document, wanted)):
        return [_not_ours_to_edit(path)]
    record.remember(path, before)
    _write(path, written.encode("utf-8"), record)
    verb = "updated" if found is not None else "added"
    return [Change(f"{verb} review's MCP server in {path}: [mcp_servers.{SERVER}] runs {shlex.join(run)}")]


def _remove_from_codex(home: Path, record: Record) -> list[Change]:
    path = codex_config(home)
    _, text, document = _read_codex(path)
    found = _servers(document, path).get(SERVER)
    if found is None:
        return []
    if not _is_ours(found):
        return [_someone_elses(str(path), found)]
    kept = _without_ours(text)
    if kept is None or _normal(tomllib.loads(kept)) != _normal(_with_server(document, None)):
        return [_not_ours_to_edit(path)]
    changes = [Change(f"removed review's MCP server from {path}")]
    recorded, original = record.take(path)
    if original is not None and _normal(tomllib.loads(original.decode("utf-8"))) == _normal(tomllib.loads(kept)):
        _write(path, original, record)
    elif not kept.strip() and not path.is_symlink():
        path.unlink()
        why = "install made it" if recorded and original is None else "nothing is left in it"
        changes.append(Change(f"removed {path}: {why}"))
    else:
        _write(path, kept.encode("utf-8"), record)
    gone = record.remove_made_folders(path.parent)
    if gone:
        changes.append(Change(f"removed the folders install made: {', '.join(map(str, gone))}"))
    return changes


def _read_codex(path: Path) -> tuple[bytes | None, str, dict[str, Any]]:
    """The file's bytes (None: there is none), its text, and what it holds.

    Raises:
        UnreadableSettings: it is not UTF-8 text in TOML.
    """
    try:
        before = path.read_bytes()
    except FileNotFoundError:
        return None, "", {}
    except OSError as error:
        raise UnreadableSettings(f"cannot read {path}: {error.strerror}") from None
    untouched = "it was left untouched; fix it, then run review install again"
    try:
        text = before.decode("utf-8")
        return before, text, tomllib.loads(text)
    except UnicodeDecodeError as error:
        raise UnreadableSettings(f"{path} is not UTF-8 text (byte {error.start}); {untouched}") from None
    except tomllib.TOMLDecodeError as error:
        raise UnreadableSettings(f"{path} is not valid TOML ({error}); {untouched}") from None


def _servers(document: dict[str, Any], path: Path) -> dict[str, Any]:
    servers = document.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise UnreadableSettings(f'"mcp_servers" in {path} is not a table; it was left untouched')
    return servers


def _with_server(document: dict[str, Any], server: dict[str, Any] | None) -> dict[str, Any]:
    """What the file should hold once review's server is `server` (None: gone), all else kept."""
    servers = {name: value for name, value in document.get("mcp_servers", {}).items() if name != SERVER}
    if server is not None:
        servers[SERVER] = server
    return {**document, "mcp_servers": servers}


def _normal(document: dict[str, Any]) -> dict[str, Any]:
    # An empty [mcp_servers] is the same to Codex as none.
    return {key: value for key, value in document.items() if not (key == "mcp_servers" and value == {})}


def _not_ours_to_edit(path: Path) -> Change:
    return Change(
        f"left {path} alone: its [mcp_servers.{SERVER}] is written in a way review does not edit;"
        f" change it by hand to run review mcp",
        skipped=True,
    )


def _appended(text: str, table: str) -> str:
    """`table` at the end of the file, after a blank line; the user's text before it as it was."""
    if text and not text.endswith("\n"):
        text += "\n"
    return f"{text}\n{table}\n" if text.strip() else f"{table}\n"


def _without_ours(text: str) -> str | None:
    """The file without review's table and the tables under it, each as the lines from its
    header to the next other header; None when there is no such header (the server is written
    some other way: dotted keys, an inline table)."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    inside = found = False
    for line in lines:
        key = _header(line)
        if key is not None:
            inside = key[:2] == ("mcp_servers", SERVER)
            found = found or inside
            if inside and kept and not kept[-1].strip():
                # the blank line install put before the table
                kept.pop()
        if not inside:
            kept.append(line)
    return "".join(kept) if found else None


def _header(line: str) -> tuple[str, ...] | None:
    """The keys of a table header line (`[a.b]`, `[[a.b]]`, quoted or not); None for any other line."""
    stripped = line.strip()
    if not stripped.startswith("["):
        return None
    try:
        node: Any = tomllib.loads(stripped)
    except tomllib.TOMLDecodeError:
        return None
    keys: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        key, node = next(iter(node.items()))
        keys.append(key)
        if isinstance(node, list) and len(node) == 1:
            node = node[0]
    return tuple(keys) if keys and node == {} else None


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string: the same quotes and escapes.
    return json.dumps(text, ensure_ascii=False)


def _write(path: Path, data: bytes, record: Record) -> None:
    # Write through a symlink (config kept in a dotfiles repository), keeping the file's permissions.
    target = Path(os.path.realpath(path))
    record.make_folders(target.parent)
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    replace_atomically(target, data)
    if mode is not None:
        os.chmod(target, mode)
