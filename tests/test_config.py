"""The config file: theme, split, remapped keys; a broken file is one clear line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import Repo
from review.config import Config, config_path, load_config
from review.errors import BadConfig
from tmux import review_command


def write_config(text: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_no_file_gives_the_defaults() -> None:
    assert load_config() == Config()


def test_the_file_sets_theme_split_and_keys() -> None:
    write_config('theme = "light"\nsplit = true\n[keys]\nnext_hunk = "ctrl+n"\n')
    config = load_config()
    assert config.theme == "textual-light"
    assert config.split
    assert config.keys == {"next_hunk": "ctrl+n"}


def test_the_file_lives_under_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_path() == tmp_path / "xdg" / "review" / "config.toml"


def test_invalid_toml_is_one_line_naming_the_file() -> None:
    path = write_config("theme = \n")
    with pytest.raises(BadConfig, match=str(path)):
        load_config()


@pytest.mark.parametrize(
    "text", ["split = 'yes'\n", "theme = 3\n", "[keys]\nnext_hunk = 3\n", "agents = 'claude'\n", "keys = 1\n"]
)
def test_values_of_the_wrong_type_are_refused(text: str) -> None:
    write_config(text)
    with pytest.raises(BadConfig):
        load_config()


def test_the_command_reports_a_broken_config_in_one_line(project: Repo) -> None:
    write_config("[keys\n")
    done = subprocess.run([review_command()], cwd=project.root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith("review: ") and "config.toml" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_an_unknown_theme_is_refused_before_the_screen_opens(project: Repo) -> None:
    write_config('theme = "no-such-theme"\n')
    done = subprocess.run([review_command()], cwd=project.root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "unknown theme 'no-such-theme'" in done.stderr


def test_the_overview_s_notifications_are_set_in_their_table() -> None:
    assert load_config().notify == "auto"
    write_config('[overview]\nnotify = "off"\n')
    assert load_config().notify == "off"


@pytest.mark.parametrize(
    "text", ['[overview]\nnotify = "loud"\n', "[overview]\nnotify = false\n", 'overview = "off"\n']
)
def test_a_notify_setting_that_is_not_one_of_the_ways_is_refused(text: str) -> None:
    path = write_config(text)
    with pytest.raises(BadConfig, match=str(path)):
        load_config()


def test_where_a_requested_review_opens_is_set_in_its_table() -> None:
    assert load_config().request_open == "split"
    write_config('[request]\nopen = "window"\n')
    assert load_config().request_open == "window"


@pytest.mark.parametrize("text", ['[request]\nopen = "tab"\n', "[request]\nopen = true\n", 'request = "split"\n'])
def test_a_request_open_setting_that_is_not_split_or_window_is_refused(text: str) -> None:
    path = write_config(text)
    with pytest.raises(BadConfig, match=str(path)):
        load_config()


@pytest.mark.parametrize("value", ["", "relative/config", "./config"])
def test_an_xdg_config_home_that_is_not_absolute_is_ignored(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    # the XDG spec: a relative path is invalid; taken, it would be read from wherever review runs
    monkeypatch.setenv("XDG_CONFIG_HOME", value)
    assert config_path() == Path.home() / ".config" / "review" / "config.toml"
