"""How Codex trusts hooks, as Codex CLI 0.171 does it (read in its code, checked by running it).

Codex runs a hook from a user's or a project's `hooks.json` only once the user trusted it: then
the user's `config.toml` (in ~/.codex) holds

    [hooks.state."KEY"]
    trusted_hash = "sha256:HEX"

KEY is the hook's place: `ABSOLUTE/PATH/hooks.json:EVENT:GROUP:HANDLER`, the event in snake case
(`stop`, `pre_tool_use`) and the indexes of its entry in the event's list and of the handler in
the entry's "hooks". HASH covers what the hook does, not where it is: the event, the entry's
matcher and the one handler with its defaults filled in. A hook whose hash changed is
"modified", one without an entry "untrusted", and Codex skips both without a word (`codex exec`)
or asks at start ("Hooks need review"; `/hooks`). So a changed command asks for trust again, and
so does a hook that moved: removing an entry before the user's own moves theirs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any, Literal

from review.state.files import replace_atomically

Trust = Literal["trusted", "untrusted", "modified", "unknown"]
"""What Codex would say of a hook: trusted, never trusted, changed since, or cannot be told."""

HOW_TO_TRUST = (
    "start codex and, where it says 'Hooks need review', pick 'Review hooks' and press t on review's"
    " (or type /hooks in codex)"
)
"""What the user does so that Codex runs review's hooks, as Codex 0.171 asks it."""

_SHORT_TIMEOUT = frozenset({"SessionEnd", "Interrupt"})
"""Events whose hooks Codex gives 1 second unless told otherwise; every other event gets 600."""

_NO_MATCHER = frozenset({"UserPromptSubmit", "Stop"})
"""Events on which Codex ignores a matcher, and leaves it out of the hash."""


def config_file(home: Path) -> Path:
    """The user's Codex settings, where it keeps which hooks are trusted."""
    return home / ".codex" / "config.toml"


def key(hooks_file: Path, event: str, group: int, handler: int) -> str:
    """Where Codex keeps its trust in the hook at `hooks_file`, `event`, entry `group`, `handler`."""
    return f"{hooks_file}:{_label(event)}:{group}:{handler}"


def trust_hash(event: str, entry: dict[str, Any], handler: dict[str, Any]) -> str:
    """The hash Codex trusts for a command `handler` of the `entry` of `event`.

    Codex hashes its own reading of the hook: the handler's type, command, timeout (its default
    filled in), async and status message, the entry's matcher where the event has one, and the
    event; as JSON with sorted keys and no spaces.
    """
    default = 1 if event in _SHORT_TIMEOUT else 600
    timeout = handler.get("timeout", handler.get("timeoutSec", default))
    timeout = min(max(timeout, 1), 3) if event in _SHORT_TIMEOUT else max(timeout, 1)
    normal: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": timeout,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normal["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _label(event), "hooks": [normal]}
    if entry.get("matcher") is not None and event not in _NO_MATCHER:
        identity["matcher"] = entry["matcher"]
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def trusted_hashes(config: Path) -> dict[str, str] | None:
    """Each hook key Codex trusts, with the hash it trusted; None when `config` cannot be read
    (a missing file trusts nothing)."""
    try:
        document = tomllib.loads(config.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    states = _states(document)
    return {name: state["trusted_hash"] for name, state in states.items() if isinstance(state.get("trusted_hash"), str)}


def trust(hashes: dict[str, str] | None, hook_key: str, hook_hash: str) -> Trust:
    """What Codex would say of the hook at `hook_key` whose hash is `hook_hash`."""
    if hashes is None:
        return "unknown"
    if hook_key not in hashes:
        return "untrusted"
    return "trusted" if hashes[hook_key] == hook_hash else "modified"


def move_trust(config: Path, moves: dict[str, str], dropped: set[str]) -> bool:
    """Carry Codex's trust in hooks that moved to their new places: rename the `[hooks.state."OLD"]`
    tables of `moves` to NEW, after removing those of `dropped` (hooks that are gone).

    Only the table headers change, so every other line of the user's settings stays as it was.
    The result is read back and must say exactly what was meant; when it does not (the states
    are written in another form), nothing is written.

    Returns:
        Whether the settings now say it; True when there was nothing to change.
    """
    try:
        text = config.read_text(encoding="utf-8")
        before = tomllib.loads(text)
    except FileNotFoundError:
        return True
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    states = _states(before)
    moves = {old: new for old, new in moves.items() if old in states}
    dropped = {name for name in dropped if name in states and name not in moves}
    # A hook moving onto a place whose hook is gone replaces its entry.
    dropped |= {new for new in moves.values() if new in states and new not in moves}
    if not moves and not dropped:
        return True
    expected = {name: state for name, state in states.items() if name not in dropped and name not in moves}
    expected.update({new: states[old] for old, new in moves.items()})
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    skipping = False
    for line in lines:
        if _is_table(line):
            header = _header(line)
            name = header[0] if header is not None else None
            skipping = name in dropped
            if header is not None and header[0] in moves:
                line = line.replace(header[1], _quoted(moves[header[0]]), 1)
        if not skipping:
            kept.append(line)
    result = "".join(kept)
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        return False
    if _states(after) != expected or _without_states(after) != _without_states(before):
        return False
    mode = stat.S_IMODE(config.stat().st_mode)
    replace_atomically(config, result.encode("utf-8"))
    os.chmod(config, mode)
    return True


def _label(event: str) -> str:
    """Codex's name for an event in its keys: PreToolUse -> pre_tool_use."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def _states(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    hooks = document.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(states, dict):
        return {}
    return {name: state for name, state in states.items() if isinstance(state, dict)}


def _without_states(document: dict[str, Any]) -> dict[str, Any]:
    hooks = document.get("hooks")
    if not isinstance(hooks, dict):
        return document
    return {**document, "hooks": {name: value for name, value in hooks.items() if name != "state"}}


_HEADER = re.compile(r'^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*")\s*\]\s*(?:#.*)?$')


def _header(line: str) -> tuple[str, str] | None:
    """The key of a `[hooks.state."KEY"]` table header line, and KEY as the line quotes it; None
    for any other line."""
    found = _HEADER.match(line.rstrip("\r\n"))
    if found is None:
        return None
    try:
        return str(tomllib.loads(f"k = {found.group(1)}")["k"]), found.group(1)
    except tomllib.TOMLDecodeError:
        return None


def _is_table(line: str) -> bool:
    """Whether `line` begins a table (any `[...]` or `[[...]]` header), which ends the one before."""
    return line.lstrip().startswith("[")


def _quoted(name: str) -> str:
    """`name` as a TOML basic string, as Codex writes its keys."""
    return json.dumps(name, ensure_ascii=False)
