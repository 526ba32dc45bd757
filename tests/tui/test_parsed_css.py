"""Textual's CSS as one start parsed it is kept for the next, which then parses none of it
(`review.tui.parsed_css`), and draws the same screen."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.css import stylesheet

from conftest import Repo
from drawn import Drawn
from review.config import Config
from review.repo import git
from review.tui.app import make_app

SIZE = (100, 30)


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Where each source of CSS that Textual parses was read from (as `read_from` names it)."""
    sources: list[str] = []
    parse = stylesheet.parse

    def counted(scope: str, css: str, read_from: tuple[str, str], **kwargs: object) -> object:
        sources.append(read_from[1])
        return parse(scope, css, read_from, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stylesheet, "parse", counted)
    yield sources


def _kept() -> list[Path]:
    return sorted((Path(os.environ["XDG_CACHE_HOME"]) / "review" / "css").glob("*.pickle"))


async def _screen(repo: Repo, config: Config | None = None) -> Drawn:
    worktree = git.find_worktree(repo.root)
    async with make_app(worktree, config=config, watch=False).run_test(size=SIZE) as pilot:
        await pilot.pause()
        return Drawn.of(pilot.app.export_screenshot())


async def test_a_second_start_parses_no_css_and_draws_the_same_screen(agent_worktree: Repo, parsed: list[str]) -> None:
    first = await _screen(agent_worktree)
    assert "DiffView.DEFAULT_CSS" in parsed and "FileList.DEFAULT_CSS" in parsed
    assert len(_kept()) == 1
    parsed.clear()
    again = await _screen(agent_worktree)
    assert parsed == []
    assert again == first
    assert any(row.strip() for row in again.rows) and again.backgrounds


async def test_css_is_kept_once_the_first_frame_is_drawn_for_a_program_killed_after(
    agent_worktree: Repo, parsed: list[str]
) -> None:
    # as a terminal closed with the program in it: no unmount
    worktree = git.find_worktree(agent_worktree.root)
    async with make_app(worktree, watch=False).run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert len(_kept()) == 1


async def test_another_theme_than_textuals_first_parses_its_css_as_before(
    agent_worktree: Repo, parsed: list[str]
) -> None:
    # Textual parses all the CSS again for it, in a stylesheet of its own: nothing is recalled
    # into the one it started with, which the theme's variables would have made wrong
    dark = await _screen(agent_worktree)
    parsed.clear()
    light = await _screen(agent_worktree, Config(theme="textual-light"))
    assert "DiffView.DEFAULT_CSS" in parsed
    assert light != dark and light.rows == dark.rows
    parsed.clear()
    assert await _screen(agent_worktree, Config(theme="textual-light")) == light
    assert "DiffView.DEFAULT_CSS" in parsed
    assert len(_kept()) == 1
    parsed.clear()
    assert await _screen(agent_worktree) == dark
    assert parsed == []


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05]\x94.", b"\x80\x05}\x94(K\x01]\x94K\x02au."])
async def test_a_kept_file_that_is_not_parsed_css_is_parsed_again_and_replaced(
    agent_worktree: Repo, parsed: list[str], content: bytes
) -> None:
    # (empty; garbage; a pickled list; a pickled dict of 1: [2])
    first = await _screen(agent_worktree)
    (kept,) = _kept()
    kept.write_bytes(content)
    parsed.clear()
    assert await _screen(agent_worktree) == first
    assert "DiffView.DEFAULT_CSS" in parsed
    assert kept.read_bytes() != content
    parsed.clear()
    await _screen(agent_worktree)
    assert parsed == []


async def test_css_changed_since_it_was_kept_is_parsed_and_what_it_replaced_left_behind(
    agent_worktree: Repo, parsed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from review.tui.widgets.review_footer import ReviewFooter

    await _screen(agent_worktree)
    monkeypatch.setattr(ReviewFooter, "DEFAULT_CSS", ReviewFooter.DEFAULT_CSS.replace("height: 1;", "height: 1; "))
    parsed.clear()
    await _screen(agent_worktree)
    assert parsed == ["ReviewFooter.DEFAULT_CSS"]
    (kept,) = _kept()
    assert kept.read_bytes().count(b"ReviewFooter.DEFAULT_CSS") == 1


async def test_a_relative_cache_home_is_ignored_and_nothing_is_written_in_the_worktree(
    agent_worktree: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the XDG spec: a relative path is invalid; taken, review's caches would land in the worktree
    # it was started in, as untracked files of the agent's
    monkeypatch.chdir(agent_worktree.root)
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    before = agent_worktree.git("status", "--porcelain", "--untracked-files=all")
    await _screen(agent_worktree)
    assert agent_worktree.git("status", "--porcelain", "--untracked-files=all") == before
    assert (Path.home() / ".cache" / "review" / "css").is_dir()
