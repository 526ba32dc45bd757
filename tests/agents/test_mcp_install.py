"""`review install claude|codex --mcp`: `review mcp` registered with Claude Code through its own
`claude mcp add`, and with Codex as a table of its config.toml that leaves every other byte of the
user's file alone; `--uninstall` takes them back. HOME is a folder of the test's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from review.agents.install import NOTHING, Change
from review.agents.mcp_install import CODEX_TOOL_SECONDS, register, unregister
from review.errors import ReviewError, UnreadableSettings
from tmux import review_command

COMMAND = "/opt/review/bin/review"

USERS_CONFIG = """\
# my Codex settings
model = "gpt-5-codex"   # the one I like

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_servers.docs.env]
TOKEN_FILE = "~/.docs-token"

[profiles.fast]
model = "o4-mini"
"""

STAND_IN_CLAUDE = f"""\
#!{sys.executable}
# Stands in for Claude Code's `claude`: records its arguments, and keeps user-wide MCP servers in
# ~/.claude.json as `claude mcp add --scope user` and `claude mcp remove --scope user` do.
import json, pathlib, sys

home = pathlib.Path.home()
with open(home / "claude-calls.jsonl", "a") as calls:
    calls.write(json.dumps(sys.argv[1:]) + "\\n")
config = home / ".claude.json"
document = json.loads(config.read_text()) if config.exists() else {{}}
servers = document.setdefault("mcpServers", {{}})
args = sys.argv[1:]
if args[:4] == ["mcp", "add", "--scope", "user"]:
    name, dashes, command, *rest = args[4:]
    if name in servers:
        sys.exit(f"MCP server {{name}} already exists in user config")
    servers[name] = {{"type": "stdio", "command": command, "args": rest, "env": {{}}}}
elif args[:4] == ["mcp", "remove", "--scope", "user"]:
    if servers.pop(args[4], None) is None:
        sys.exit(f"No user-scoped MCP server found with name: {{args[4]}}")
else:
    sys.exit("unexpected arguments")
config.write_text(json.dumps(document))
"""


def home() -> Path:
    return Path.home()


def config() -> Path:
    return home() / ".codex" / "config.toml"


def lines(changes: list[Change]) -> list[str]:
    return [change.what for change in changes]


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in `claude` first on PATH; the file it records its calls in."""
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "claude"
    program.write_text(STAND_IN_CLAUDE)
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return home() / "claude-calls.jsonl"


@pytest.fixture
def no_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def calls(recorded: Path) -> list[list[str]]:
    return [json.loads(line) for line in recorded.read_text().splitlines()] if recorded.exists() else []


# Codex


def test_codex_gets_a_table_that_runs_review_mcp_after_the_users_own_bytes() -> None:
    config().parent.mkdir()
    config().write_text(USERS_CONFIG)
    changes = register(["codex"], command=COMMAND)
    assert lines(changes) == [
        f"added review's MCP server in {config()}: [mcp_servers.review] runs {COMMAND} mcp",
    ]
    written = config().read_text()
    assert written.startswith(USERS_CONFIG)
    document = tomllib.loads(written)
    assert document["mcp_servers"]["review"] == {
        "command": COMMAND,
        "args": ["mcp"],
        "tool_timeout_sec": CODEX_TOOL_SECONDS,
    }
    assert document["mcp_servers"]["docs"]["env"] == {"TOKEN_FILE": "~/.docs-token"}
    assert document["profiles"] == {"fast": {"model": "o4-mini"}}


def test_uninstalling_from_codex_gives_back_the_users_very_bytes() -> None:
    config().parent.mkdir()
    config().write_text(USERS_CONFIG)
    register(["codex"], command=COMMAND)
    changes = unregister(["codex"])
    assert lines(changes) == [f"removed review's MCP server from {config()}"]
    assert config().read_text() == USERS_CONFIG


def test_a_codex_config_without_a_final_newline_gets_back_its_very_bytes() -> None:
    config().parent.mkdir()
    config().write_bytes(b'model = "o3"\r\n\r\n\r\n# last words')
    register(["codex"], command=COMMAND)
    unregister(["codex"])
    assert config().read_bytes() == b'model = "o3"\r\n\r\n\r\n# last words'


def test_a_codex_config_install_made_goes_with_its_folder_once_uninstalled() -> None:
    register(["codex"], command=COMMAND)
    assert tomllib.loads(config().read_text())["mcp_servers"]["review"]["command"] == COMMAND
    unregister(["codex"])
    # nothing is left of it, nor of install's record: the home folder is as the test made it
    assert [path.name for path in home().iterdir()] == [".gitconfig"]


def test_registering_with_codex_twice_changes_nothing_the_second_time() -> None:
    register(["codex"], command=COMMAND)
    first = config().read_bytes()
    assert lines(register(["codex"], command=COMMAND)) == [NOTHING]
    assert config().read_bytes() == first


def test_a_command_with_spaces_is_written_as_one_toml_string() -> None:
    register(["codex"], command="'/opt/my tools/review'")
    assert tomllib.loads(config().read_text())["mcp_servers"]["review"]["command"] == "/opt/my tools/review"


def test_an_earlier_codex_registration_by_another_path_is_updated_in_place() -> None:
    config().parent.mkdir()
    config().write_text(USERS_CONFIG)
    register(["codex"], command="/old/venv/bin/review")
    changes = register(["codex"], command=COMMAND)
    assert lines(changes)[0].startswith("updated review's MCP server")
    written = config().read_text()
    assert written.startswith(USERS_CONFIG) and written.count("[mcp_servers.review]") == 1
    assert tomllib.loads(written)["mcp_servers"]["review"]["command"] == COMMAND
    unregister(["codex"])
    assert config().read_text() == USERS_CONFIG


def test_uninstalling_from_codex_keeps_what_the_user_changed_since() -> None:
    config().parent.mkdir()
    config().write_text(USERS_CONFIG)
    register(["codex"], command=COMMAND)
    config().write_text(config().read_text().replace('model = "o4-mini"', 'model = "o3"'))
    unregister(["codex"])
    document = tomllib.loads(config().read_text())
    assert "review" not in document["mcp_servers"]
    assert document["profiles"]["fast"]["model"] == "o3"
    assert config().read_text().startswith("# my Codex settings\n")


def test_our_table_in_the_middle_of_the_file_comes_out_alone() -> None:
    register(["codex"], command=COMMAND)
    with config().open("a") as file:
        file.write('\n[mcp_servers.later]\ncommand = "later"\n')
    unregister(["codex"])
    assert tomllib.loads(config().read_text()) == {"mcp_servers": {"later": {"command": "later"}}}


def test_a_codex_server_called_review_that_runs_something_else_is_left_alone() -> None:
    config().parent.mkdir()
    theirs = '[mcp_servers.review]\ncommand = "my-review-bot"\n'
    config().write_text(theirs)
    [change] = register(["codex"], command=COMMAND)
    assert change.skipped and "my-review-bot" in change.what
    [change] = unregister(["codex"])
    assert change.skipped
    assert config().read_text() == theirs


def test_a_codex_config_that_is_not_toml_is_refused_untouched() -> None:
    config().parent.mkdir()
    config().write_text("model = \n")
    with pytest.raises(UnreadableSettings, match="not valid TOML"):
        register(["codex"], command=COMMAND)
    assert config().read_text() == "model = \n"


def test_codex_home_moves_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    register(["codex"], command=COMMAND)
    assert (tmp_path / "codex-home" / "config.toml").is_file()
    assert not config().exists()


def test_pi_starts_no_mcp_servers() -> None:
    with pytest.raises(ReviewError, match="Pi starts no MCP servers"):
        register(["pi"], command=COMMAND)


# Claude Code


def test_claude_code_registers_the_server_with_its_own_command(claude: Path) -> None:
    changes = register(["claude"], command=COMMAND)
    assert calls(claude) == [["mcp", "add", "--scope", "user", "review", "--", COMMAND, "mcp"]]
    assert lines(changes) == [
        f"registered review's MCP server with Claude Code: claude mcp add --scope user review -- {COMMAND} mcp"
    ]


def test_registering_with_claude_code_twice_runs_claude_once(claude: Path) -> None:
    register(["claude"], command=COMMAND)
    assert lines(register(["claude"], command=COMMAND)) == [NOTHING]
    assert len(calls(claude)) == 1


def test_an_earlier_claude_registration_by_another_path_is_replaced(claude: Path) -> None:
    register(["claude"], command="/old/venv/bin/review")
    register(["claude"], command=COMMAND)
    assert calls(claude)[1:] == [
        ["mcp", "remove", "--scope", "user", "review"],
        ["mcp", "add", "--scope", "user", "review", "--", COMMAND, "mcp"],
    ]


def test_uninstalling_from_claude_code_removes_the_server_with_its_own_command(claude: Path) -> None:
    register(["claude"], command=COMMAND)
    changes = unregister(["claude"])
    assert calls(claude)[-1] == ["mcp", "remove", "--scope", "user", "review"]
    assert lines(changes) == ["removed review's MCP server from Claude Code: claude mcp remove --scope user review"]
    assert json.loads((home() / ".claude.json").read_text())["mcpServers"] == {}


def test_a_claude_code_server_called_review_that_runs_something_else_is_left_alone(claude: Path) -> None:
    (home() / ".claude.json").write_text(json.dumps({"mcpServers": {"review": {"command": "bot", "args": []}}}))
    [change] = register(["claude"], command=COMMAND)
    assert change.skipped and "bot" in change.what
    assert calls(claude) == []


def test_without_claude_on_path_install_says_what_to_run(no_claude: None) -> None:
    [change] = register(["claude"], command=COMMAND)
    assert change.skipped
    assert change.what == (
        f"claude is not on PATH; to do it by hand, run: claude mcp add --scope user review -- {COMMAND} mcp"
    )


def test_a_claude_that_fails_is_said_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "failing-bin"
    folder.mkdir()
    (folder / "claude").write_text(
        "#!/bin/sh\necho 'error: cannot write the config' >&2\necho 'at line 3' >&2\nexit 1\n"
    )
    (folder / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))
    [change] = register(["claude"], command=COMMAND)
    assert change.skipped
    assert change.what == (
        f"claude mcp add --scope user review -- {COMMAND} mcp failed: error: cannot write the config"
    )


# The command line


def test_review_install_all_mcp_registers_with_both_and_uninstall_takes_both_back(claude: Path) -> None:
    config().parent.mkdir()
    config().write_text(USERS_CONFIG)
    done = subprocess.run(
        [review_command(), "install", "all", "--mcp"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "registered review's MCP server with Claude Code" in done.stdout
    assert f"added review's MCP server in {config()}" in done.stdout
    assert calls(claude)[0][:6] == ["mcp", "add", "--scope", "user", "review", "--"]
    done = subprocess.run(
        [review_command(), "install", "all", "--mcp", "--uninstall"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert config().read_text() == USERS_CONFIG
    assert calls(claude)[-1] == ["mcp", "remove", "--scope", "user", "review"]


def test_mcp_with_project_is_a_one_line_error() -> None:
    done = subprocess.run(
        [review_command(), "install", "codex", "--mcp", "--project"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("review: --mcp registers the server for your user") and done.stderr.count("\n") == 1
