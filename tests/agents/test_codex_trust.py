"""Codex's trust in hooks: the keys and hashes review computes are the ones real Codex wrote, and
moving trust to hooks that moved keeps every other line of the user's settings."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from review.agents import codex_trust

FIXTURES = Path(__file__).parent / "fixtures" / "codex"
HOOKS_FILE = Path("/home/dev/.codex/hooks.json")


def test_the_keys_and_hashes_are_those_codex_wrote_when_its_user_trusted_each_hook() -> None:
    hooks = json.loads((FIXTURES / "trusted-hooks.json").read_text())["hooks"]
    hashes = codex_trust.trusted_hashes(FIXTURES / "trusted-config.toml")
    assert hashes is not None and len(hashes) == 12
    computed = {
        codex_trust.key(HOOKS_FILE, event, group, handler): codex_trust.trust_hash(event, entry, hook)
        for event, entries in hooks.items()
        for group, entry in enumerate(entries)
        for handler, hook in enumerate(entry["hooks"])
    }
    assert computed == hashes


def test_a_changed_command_or_matcher_is_modified_and_a_hook_without_an_entry_untrusted() -> None:
    hashes = codex_trust.trusted_hashes(FIXTURES / "trusted-config.toml")
    hooks = json.loads((FIXTURES / "trusted-hooks.json").read_text())["hooks"]
    entry = hooks["PreToolUse"][0]
    hook = entry["hooks"][0]
    place = codex_trust.key(HOOKS_FILE, "PreToolUse", 0, 0)
    assert codex_trust.trust(hashes, place, codex_trust.trust_hash("PreToolUse", entry, hook)) == "trusted"
    moved = {**hook, "command": "/elsewhere/record.py"}
    assert codex_trust.trust(hashes, place, codex_trust.trust_hash("PreToolUse", entry, moved)) == "modified"
    narrower = {**entry, "matcher": "Bash"}
    assert codex_trust.trust(hashes, place, codex_trust.trust_hash("PreToolUse", narrower, hook)) == "modified"
    later = codex_trust.key(HOOKS_FILE, "PreToolUse", 1, 0)
    assert codex_trust.trust(hashes, later, codex_trust.trust_hash("PreToolUse", entry, hook)) == "untrusted"
    assert codex_trust.trust(None, place, "sha256:0") == "unknown"


def test_settings_that_cannot_be_read_trust_nothing_that_can_be_told(tmp_path: Path) -> None:
    assert codex_trust.trusted_hashes(tmp_path / "missing.toml") == {}
    broken = tmp_path / "config.toml"
    broken.write_text("model = \n")
    assert codex_trust.trusted_hashes(broken) is None


SETTINGS = """\
model = "gpt-5"  # the user's own line

[hooks.state]

[hooks.state."/h/hooks.json:stop:0:0"]
trusted_hash = "sha256:theirs-before"

[hooks.state."/h/hooks.json:stop:1:0"]
trusted_hash = "sha256:ours"

[hooks.state."/h/hooks.json:stop:2:0"]
trusted_hash = "sha256:theirs-after"
enabled = true

[hooks.state."/h/hooks.json:stop:3:0"]
trusted_hash = "sha256:theirs-last"

[projects."/work/app"]
trust_level = "trusted"
"""


def test_trust_follows_hooks_that_moved_up_and_the_gone_hooks_entry_goes(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(SETTINGS)
    config.chmod(0o600)
    moves = {"/h/hooks.json:stop:2:0": "/h/hooks.json:stop:1:0", "/h/hooks.json:stop:3:0": "/h/hooks.json:stop:2:0"}
    assert codex_trust.move_trust(config, moves, {"/h/hooks.json:stop:1:0"})
    after = tomllib.loads(config.read_text())
    assert after["hooks"]["state"] == {
        "/h/hooks.json:stop:0:0": {"trusted_hash": "sha256:theirs-before"},
        "/h/hooks.json:stop:1:0": {"trusted_hash": "sha256:theirs-after", "enabled": True},
        "/h/hooks.json:stop:2:0": {"trusted_hash": "sha256:theirs-last"},
    }
    text = config.read_text()
    assert text.startswith('model = "gpt-5"  # the user\'s own line\n')
    assert '[projects."/work/app"]\ntrust_level = "trusted"\n' in text
    assert "sha256:ours" not in text
    assert config.stat().st_mode & 0o777 == 0o600


def test_trust_written_in_another_form_is_left_alone_and_said_so(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    inline = 'hooks.state."/h/hooks.json:stop:1:0" = { trusted_hash = "sha256:theirs" }\n'
    config.write_text(inline)
    assert not codex_trust.move_trust(config, {"/h/hooks.json:stop:1:0": "/h/hooks.json:stop:0:0"}, set())
    assert config.read_text() == inline


def test_nothing_to_move_writes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(SETTINGS)
    assert codex_trust.move_trust(config, {"/other/hooks.json:stop:1:0": "/other/hooks.json:stop:0:0"}, set())
    assert config.read_text() == SETTINGS
    assert codex_trust.move_trust(tmp_path / "missing.toml", {"a": "b"}, set())
    assert not (tmp_path / "missing.toml").exists()
