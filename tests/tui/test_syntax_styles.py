"""The colours of a Pygments style, remembered between starts (`review.tui.syntax_styles`): the
same as the style's, and a start that finds them draws without importing the style."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token
from rich.style import Style

from conftest import Repo
from review.config import Config
from review.repo import git
from review.tui.app import make_app
from review.tui.syntax_styles import SyntaxStyles
from review.tui.widgets.diff_view import DiffView

SIZE = (100, 30)


def _remembered() -> list[Path]:
    return sorted((Path(os.environ["XDG_CACHE_HOME"]) / "review" / "syntax").glob("*.json"))


def _pygments(name: str, token_type: object) -> Style:
    found = get_style_by_name(name).style_for_token(token_type)
    colour = f"#{found['color']}" if found["color"] else None
    return Style(color=colour, bold=found["bold"], italic=found["italic"], underline=found["underline"])


@pytest.mark.parametrize("name", ["monokai", "friendly", "solarized-dark"])
def test_the_colours_remembered_are_the_styles_and_need_no_import(name: str) -> None:
    first = SyntaxStyles(name)
    assert first.style(Token.Keyword) == _pygments(name, Token.Keyword)
    assert len(_remembered()) == 1
    again = SyntaxStyles(name)
    for token_type in STANDARD_TYPES:
        assert again.style(token_type) == _pygments(name, token_type), token_type
    assert again._theme is None  # (never imported)


def test_a_token_type_not_remembered_imports_the_style() -> None:
    SyntaxStyles("monokai").style(Token.Keyword)
    again = SyntaxStyles("monokai")
    # (a lexer's own token type, which no style knows: styled as its nearest standard one)
    assert again.style(Token.Name.Builtin.Reviewed) == _pygments("monokai", Token.Name.Builtin)
    assert again._theme is not None


def test_a_style_whose_file_changed_is_read_again() -> None:
    SyntaxStyles("monokai").style(Token.Keyword)
    (remembered,) = _remembered()
    data = json.loads(remembered.read_bytes())
    data["source"][1] += 1  # (as if the style's file were another size now)
    data["looks"]["Token.Keyword"] = ["#000000", False, False, False]
    remembered.write_text(json.dumps(data))
    again = SyntaxStyles("monokai")
    assert again.style(Token.Keyword) == _pygments("monokai", Token.Keyword)
    assert again._theme is not None
    assert json.loads(remembered.read_bytes())["looks"]["Token.Keyword"] != ["#000000", False, False, False]


@pytest.mark.parametrize("content", [b"", b"{not json", b"[]", b'{"source": [], "looks": {}}', b'{"source": 1}'])
def test_a_remembered_file_that_cannot_be_read_is_made_again(content: bytes) -> None:
    SyntaxStyles("monokai").style(Token.Keyword)
    (remembered,) = _remembered()
    remembered.write_bytes(content)
    again = SyntaxStyles("monokai")
    assert again.style(Token.Keyword) == _pygments("monokai", Token.Keyword)
    assert SyntaxStyles("monokai")._remembered


@pytest.mark.parametrize("colour", ["red", "#12345", "#gggggg", 5, ["#000000"]])
def test_a_remembered_colour_that_is_not_one_is_not_taken(colour: object) -> None:
    SyntaxStyles("monokai").style(Token.Keyword)
    (remembered,) = _remembered()
    data = json.loads(remembered.read_bytes())
    data["looks"]["Token.Keyword"] = [colour, False, False, False]
    remembered.write_text(json.dumps(data))
    again = SyntaxStyles("monokai")
    assert again.style(Token.Keyword) == _pygments("monokai", Token.Keyword)
    assert again.style(Token.Name) == _pygments("monokai", Token.Name)


@pytest.mark.parametrize("name", ["no-such-style", "../escape", ""])
def test_a_style_not_found_is_pygments_default_and_not_remembered(name: str) -> None:
    styles = SyntaxStyles(name)
    assert styles.style(Token.Keyword) == _pygments("default", Token.Keyword)
    assert _remembered() == []


async def test_a_start_with_the_colours_remembered_draws_the_same_screen(agent_worktree: Repo) -> None:
    worktree = git.find_worktree(agent_worktree.root)
    screens = []
    for _ in range(2):
        async with make_app(worktree, config=Config(syntax_theme="monokai"), watch=False).run_test(size=SIZE) as pilot:
            await pilot.pause()
            screens.append(pilot.app.export_screenshot())
            syntax = pilot.app.screen.query_one(DiffView)._get_palette().syntax
    assert screens[0] == screens[1]
    # the diff's code in monokai's colours
    theirs = {colour.name for t in STANDARD_TYPES if (colour := _pygments("monokai", t).color) is not None}
    assert len(theirs & set(re.findall(r"fill: (#[0-9a-f]{6})", screens[1]))) >= 3
    styles = syntax.__self__  # type: ignore[attr-defined]
    assert isinstance(styles, SyntaxStyles) and styles._theme is None  # (the second start's: never imported)


async def test_a_file_whose_lexer_has_token_types_of_its_own_is_coloured(agent_worktree: Repo) -> None:
    # EarlGrey's lexer marks `if` and `return` Keyword.Control, which no Pygments style knows:
    # they stopped the viewer with a KeyError; they are drawn as keywords
    agent_worktree.write("app.eg", "if x:\n  print 1\nelse:\n  return 2\n")
    worktree = git.find_worktree(agent_worktree.root)
    for _ in range(2):  # (the style imported, then its colours remembered)
        async with make_app(worktree, config=Config(syntax_theme="monokai"), watch=False).run_test(size=SIZE) as pilot:
            await pilot.pause()
            view = pilot.app.screen.query_one(DiffView)
            assert view.diff is not None
            view.go_to_file([f.path for f in view.diff.files].index("app.eg"))
            await pilot.pause()
            svg = pilot.app.export_screenshot()
        keyword = _pygments("monokai", Token.Keyword).color
        assert keyword is not None and f"fill: {keyword.name}" in svg and "return" in svg
