"""Pilot tests of the dialogs the review screen opens: the comment editor, sending, confirming and
the list of comments. Each dialog is opened by a small app that records what it closes with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.binding import Binding
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import OptionList, RadioButton, TextArea

from drawn import Drawn
from review.state.model import SEVERITIES, Comment, Reply
from review.tui.dialogs.comment_editor import (
    COMMENT_PLACEHOLDER,
    REPLY_PLACEHOLDER,
    CommentEditor,
    EditorResult,
)
from review.tui.dialogs.comments_panel import CommentsPanel, PanelEntry
from review.tui.dialogs.confirm_dialog import ConfirmDialog
from review.tui.dialogs.send_dialog import SendDialog, SendResult

SIZE = (100, 30)
CLOSED = object()
"""What `Host.result` holds while the dialog is open."""


class Host(App[None]):
    """Opens one dialog and keeps what it closes with."""

    def __init__(self, dialog: ModalScreen[Any]) -> None:
        super().__init__()
        self.dialog = dialog
        self.result: object = CLOSED

    def on_mount(self) -> None:
        self.push_screen(self.dialog, self.record)

    def record(self, result: object) -> None:
        self.result = result


def is_open(pilot: Pilot[None], dialog: ModalScreen[Any]) -> bool:
    return pilot.app.screen is dialog


def result_of(pilot: Pilot[None]) -> object:
    app = pilot.app
    assert isinstance(app, Host)
    return app.result


def text_of(pilot: Pilot[None]) -> str:
    return pilot.app.screen.query_one(TextArea).text


def editor(**kwargs: Any) -> CommentEditor:
    return CommentEditor(title="Comment on src/app.py:12-14", **kwargs)


def entry(id: str, path: str, line: int | None = 3, **kwargs: Any) -> PanelEntry:
    fields: dict[str, Any] = {
        "end_line": line,
        "severity": "should",
        "status": "draft",
        "anchor_state": "exact",
        "body": f"about {id}",
        "replies": 0,
    }
    fields.update(kwargs)
    return PanelEntry(id=id, path=path, line=line, **fields)


@pytest.mark.parametrize("dialog", [CommentEditor, SendDialog, ConfirmDialog, CommentsPanel])
def test_every_key_of_a_dialog_has_an_id_to_remap_it(dialog: type[ModalScreen[Any]]) -> None:
    for binding in dialog.BINDINGS:
        assert isinstance(binding, Binding) and binding.id


# -- the comment editor ------------------------------------------------------------------------


async def test_the_editor_saves_what_was_typed_with_its_severity() -> None:
    async with Host(editor()).run_test(size=SIZE) as pilot:
        await pilot.press(*"Use a set", "ctrl+s")
        assert result_of(pilot) == EditorResult("Use a set", "should")


async def test_the_editor_opens_with_the_cursor_after_the_text() -> None:
    async with Host(editor(body="Rename this")).run_test(size=SIZE) as pilot:
        await pilot.press(*" please", "ctrl+s")
        assert result_of(pilot) == EditorResult("Rename this please", "should")


async def test_ctrl_t_goes_through_the_severities_in_the_order_agents_act_on_them() -> None:
    dialog = editor(severity="must")
    async with Host(dialog).run_test(size=SIZE) as pilot:
        chosen = [dialog.severity]
        for _ in range(4):
            await pilot.press("ctrl+t")
            chosen.append(dialog.severity)
        assert chosen == ["must", "should", "question", "nit", "must"]
        pressed = [button.name for button in dialog.query(RadioButton) if button.value]
        assert pressed == ["must"]


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_reply_shows_a_placeholder_for_a_reply_that_fits_the_box(size: tuple[int, int]) -> None:
    async with Host(CommentEditor(title="Reply to c4", reply=True)).run_test(size=size) as pilot:
        await pilot.pause()
        rows = Drawn.of(pilot.app.export_screenshot()).rows
        assert any(REPLY_PLACEHOLDER in row for row in rows), "\n".join(rows)
        assert not any(COMMENT_PLACEHOLDER in row for row in rows)


def test_the_chooser_and_the_readme_list_the_severities_in_the_one_order() -> None:
    assert SEVERITIES == ("must", "should", "question", "nit")
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert "changes the severity (must, should, question, nit)" in readme


async def test_the_severity_can_be_chosen_with_tab_and_the_arrows() -> None:
    async with Host(editor()).run_test(size=SIZE) as pilot:
        await pilot.press(*"Must fix", "tab", "left", "enter", "shift+tab")
        assert pilot.app.screen.query_one(TextArea).has_focus
        await pilot.press("ctrl+s")
        assert result_of(pilot) == EditorResult("Must fix", "must")


async def test_ctrl_g_inserts_a_suggestion_block_of_the_selected_code() -> None:
    dialog = editor(code=["    total = 0", "    return total"])
    async with Host(dialog).run_test(size=SIZE) as pilot:
        await pilot.press(*"Simpler:", "ctrl+g")
        assert text_of(pilot) == "Simpler:\n```suggestion\n    total = 0\n    return total\n```\n"
        await pilot.press(*" + 1")
        assert "    return total + 1\n```" in text_of(pilot)


async def test_ctrl_g_without_code_inserts_an_empty_suggestion_block_to_write_in() -> None:
    async with Host(editor()).run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+g", *"pass")
        assert text_of(pilot) == "```suggestion\npass\n```\n"


async def test_suggested_code_is_made_inert() -> None:
    async with Host(editor(code=["print('\x1b[2J')"])).run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+g")
        assert "\x1b" not in text_of(pilot)
        assert "print('^[[2J')" in text_of(pilot)


async def test_pasted_escape_sequences_are_made_inert() -> None:
    async with Host(editor()).run_test(size=SIZE) as pilot:
        pilot.app.post_message(events.Paste("red\x1b[31m\r\nnext"))
        await pilot.pause()
        assert text_of(pilot) == "red^[[31m\nnext"


async def test_escape_on_an_unchanged_comment_closes_with_nothing() -> None:
    async with Host(editor(body="Rename this", severity="nit")).run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        assert result_of(pilot) is None


async def test_a_click_on_a_severity_chooses_it() -> None:
    dialog = editor(body="Rename this")
    async with Host(dialog).run_test(size=SIZE) as pilot:
        nit = next(button for button in dialog.query(RadioButton) if button.name == "nit")
        await pilot.click(nit)
        await pilot.press("ctrl+s")
        assert result_of(pilot) == EditorResult("Rename this", "nit")


async def test_escape_on_an_empty_new_comment_closes_with_nothing() -> None:
    async with Host(editor()).run_test(size=SIZE) as pilot:
        await pilot.press("space", "enter", "escape")
        assert result_of(pilot) is None


async def test_escape_with_new_text_keeps_it_as_a_draft() -> None:
    async with Host(editor()).run_test(size=SIZE) as pilot:
        await pilot.press(*"Half a thought", "escape")
        assert result_of(pilot) == EditorResult("Half a thought", "should", kept=True)


async def test_escape_after_changing_only_the_severity_keeps_the_change() -> None:
    async with Host(editor(body="Rename this")).run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+t", "escape")
        assert result_of(pilot) == EditorResult("Rename this", "question", kept=True)


async def test_ctrl_s_on_an_empty_comment_stays_open_and_says_why() -> None:
    dialog = editor()
    async with Host(dialog).run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert is_open(pilot, dialog)
        assert result_of(pilot) is CLOSED
        assert "Write something first" in Drawn.of(pilot.app.export_screenshot()).toasts()


async def test_an_escape_sequence_in_the_comment_being_edited_is_made_inert() -> None:
    async with Host(editor(body="line one\n\x1b]0;owned\x07")).run_test(size=SIZE) as pilot:
        assert text_of(pilot) == "line one\n^[]0;owned^G"


# -- sending -----------------------------------------------------------------------------------


async def test_ctrl_s_sends_the_summary_with_request_changes_when_there_are_drafts() -> None:
    async with Host(SendDialog(drafts=3)).run_test(size=SIZE) as pilot:
        await pilot.press(*"Nearly there", "ctrl+s")
        assert result_of(pilot) == SendResult("Nearly there", "request_changes")


async def test_without_drafts_the_verdict_starts_at_comment() -> None:
    async with Host(SendDialog(drafts=0)).run_test(size=SIZE) as pilot:
        await pilot.press(*"Looks fine so far", "ctrl+s")
        assert result_of(pilot) == SendResult("Looks fine so far", "comment")


async def test_the_dialog_says_how_many_drafts_will_be_sent() -> None:
    async with Host(SendDialog(drafts=3)).run_test(size=SIZE) as pilot:
        shown = str(pilot.app.screen.query_one("#drafts").render())
        assert shown == "3 draft comments will be sent"


async def test_ctrl_t_cycles_the_verdict() -> None:
    async with Host(SendDialog(drafts=2)).run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+t", "ctrl+t", "ctrl+s")
        assert result_of(pilot) == SendResult("", "approve")


async def test_the_verdict_can_be_chosen_with_tab_and_the_arrows() -> None:
    async with Host(SendDialog(drafts=2)).run_test(size=SIZE) as pilot:
        await pilot.press("tab", "right", "space", "ctrl+s")
        assert result_of(pilot) == SendResult("", "comment")


async def test_the_arrows_start_from_the_verdict_chosen_not_the_first() -> None:
    async with Host(SendDialog(drafts=0)).run_test(size=SIZE) as pilot:  # (comment: the second)
        await pilot.press("tab", "right", "space", "ctrl+s")
        assert result_of(pilot) == SendResult("", "approve")


async def test_the_send_button_sends() -> None:
    async with Host(SendDialog(drafts=1)).run_test(size=SIZE) as pilot:
        await pilot.click("#send")
        assert result_of(pilot) == SendResult("", "request_changes")


async def test_sending_nothing_at_all_stays_open_and_says_why() -> None:
    dialog = SendDialog(drafts=0)
    async with Host(dialog).run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert is_open(pilot, dialog)
        assert "Nothing to send" in Drawn.of(pilot.app.export_screenshot()).toasts()


async def test_an_approval_without_drafts_or_summary_is_sent() -> None:
    async with Host(SendDialog(drafts=0, verdict="approve")).run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+s")
        assert result_of(pilot) == SendResult("", "approve")


async def test_escape_closes_the_send_dialog_without_sending() -> None:
    async with Host(SendDialog(drafts=3, summary="Draft summary")).run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        assert result_of(pilot) is None


# -- confirming --------------------------------------------------------------------------------


async def test_y_answers_yes() -> None:
    async with Host(ConfirmDialog("Delete the comment on src/app.py:12?")).run_test(size=SIZE) as pilot:
        await pilot.press("y")
        assert result_of(pilot) is True


async def test_n_answers_no() -> None:
    async with Host(ConfirmDialog("Delete the comment on src/app.py:12?")).run_test(size=SIZE) as pilot:
        await pilot.press("n")
        assert result_of(pilot) is False


async def test_escape_answers_no() -> None:
    async with Host(ConfirmDialog("Delete the comment on src/app.py:12?")).run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        assert result_of(pilot) is False


async def test_enter_on_the_first_focused_button_answers_no() -> None:
    async with Host(ConfirmDialog("Delete the comment on src/app.py:12?")).run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        assert result_of(pilot) is False


async def test_clicking_the_yes_button_answers_yes() -> None:
    async with Host(ConfirmDialog("Delete?", yes="Delete", no="Keep")).run_test(size=SIZE) as pilot:
        await pilot.click("#yes")
        assert result_of(pilot) is True


# -- the list of comments ----------------------------------------------------------------------


ENTRIES = [
    entry("c1", "src/app.py", 12, end_line=14, severity="must"),
    entry("c2", "src/app.py", 30, status="open", anchor_state="changed", replies=2),
    entry("c3", "README.md", None, severity="nit", body="Typo\nin the second line"),
]


def prompts(pilot: Pilot[None]) -> list[str]:
    options = pilot.app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(index).prompt) for index in range(options.option_count)]


def rendered(pilot: Pilot[None]) -> str:
    options = pilot.app.screen.query_one(OptionList)
    return "\n".join(options.render_line(y).text for y in range(options.size.height))


def test_an_entry_is_made_from_a_comment_of_the_review_file() -> None:
    comment = Comment(id="c7", path="src/app.py", line=4, end_line=6, body="Why?", severity="question")
    comment.thread.append(Reply(author="agent", body="Because."))
    made = PanelEntry.of(comment)
    assert made == PanelEntry(
        "c7", "src/app.py", 4, 6, "question", "draft", "exact", "Why?", 1, thread=(("agent", "Because."),)
    )
    assert made.place == "src/app.py:4-6"


async def test_enter_on_the_second_comment_closes_with_its_id() -> None:
    async with Host(CommentsPanel(ENTRIES)).run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        assert result_of(pilot) == "c2"


async def test_clicking_a_comment_closes_with_its_id() -> None:
    async with Host(CommentsPanel(ENTRIES)).run_test(size=SIZE) as pilot:
        options = pilot.app.screen.query_one(OptionList)
        second_row = next(y for y in range(options.size.height) if "about c2" in options.render_line(y).text)
        await pilot.click(OptionList, offset=(4, second_row))
        assert result_of(pilot) == "c2"


async def test_j_and_k_move_through_the_comments() -> None:
    async with Host(CommentsPanel(ENTRIES)).run_test(size=SIZE) as pilot:
        await pilot.press("j", "j", "k", "enter")
        assert result_of(pilot) == "c2"


async def test_escape_closes_the_list_without_a_choice() -> None:
    async with Host(CommentsPanel(ENTRIES)).run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        assert result_of(pilot) is None


async def test_each_row_shows_status_severity_place_anchor_replies_and_first_line() -> None:
    async with Host(CommentsPanel(ENTRIES)).run_test(size=SIZE) as pilot:
        first, second, third = prompts(pilot)
        assert first.split() == ["draft", "must", "src/app.py:12-14", "about", "c1"]
        assert second.split() == ["open", "should", "src/app.py:30", "changed", "2", "replies", "about", "c2"]
        assert third.split() == ["draft", "nit", "README.md", "(file)", "Typo"]


async def test_an_escape_sequence_in_a_path_shows_as_a_caret_bracket() -> None:
    hostile = [entry("c1", "evil\x1b[31m.py", 1, body="\x1b]0;title\x07hi")]
    async with Host(CommentsPanel(hostile)).run_test(size=SIZE) as pilot:
        screen_text = rendered(pilot)
        assert "evil^[[31m.py:1" in screen_text
        assert "^[]0;title^Ghi" in screen_text
        assert "\x1b" not in screen_text and "\x1b" not in prompts(pilot)[0]


async def test_an_empty_list_says_how_to_write_a_comment() -> None:
    async with Host(CommentsPanel([])).run_test(size=SIZE) as pilot:
        shown = str(pilot.app.screen.query_one("#empty").render())
        assert shown == "No comments yet: press c on a line to write one."
        await pilot.press("enter", "escape")
        assert result_of(pilot) is None
