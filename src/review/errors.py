"""Errors a user can cause: each carries one line that the CLI prints and the TUI notifies."""


class ReviewError(Exception):
    """A failure the user can act on; its message is one clear line."""


class NotARepository(ReviewError):
    """The path is not inside a git worktree."""


class BadRevision(ReviewError):
    """A revision or range the repository does not know."""


class GitFailed(ReviewError):
    """git itself failed; the message is git's own first error line."""


class GitTooOld(ReviewError):
    """git is older than the oldest version review works with (not a `GitFailed`: no caller
    may take it for a failure of one command and carry on without what it gives)."""


class BrokenDiff(ReviewError):
    """git's diff output could not be understood."""


class CannotWrite(ReviewError):
    """A file of review's (the review, its instructions, the agent's state, a settings file)
    cannot be written; the message names the file and the system's reason."""


class BadConfig(ReviewError):
    """The config file cannot be used."""


# The review file and the comments in it.


class UnknownComment(ReviewError):
    """No comment in the review has the id the user gave."""


class UnreadableReview(ReviewError):
    """The review file cannot be understood, or a newer review wrote it; it is left untouched."""


class ReviewLocked(ReviewError):
    """Another process held the review's lock for longer than a writer waits."""


class UnwritableReview(CannotWrite):
    """The review folder or file cannot be written."""


class UnsafeReview(UnreadableReview, UnwritableReview):
    """The review folder, or a file in it, is a symbolic link or not a plain file or folder: a
    repository can commit `.review` as a link to anywhere, so review neither reads nor writes
    through one."""


class CommentError(ReviewError):
    """A change to a comment that its state does not allow."""


# Sending a round.


class NothingToSend(ReviewError):
    """Sending with no drafts, no summary and no approval."""


class PartlySent(ReviewError):
    """The round was recorded, but what follows it (its snapshot's ref, the instructions file)
    could not be written: sending again would send nothing."""


# Exporting a round.


class UnknownRound(ReviewError):
    """No round has the id the user gave, or none has been sent yet."""


class PostFailed(ReviewError):
    """A round could not be posted to GitHub: no `gh`, no pull request, or gh's own error."""


# Coding agents: their skills and settings, and delivery into their panes.


class MissingSkill(ReviewError):
    """The skill folder to link is not there."""


class UnreadableSettings(ReviewError):
    """An agent's settings file cannot be understood, so it is left untouched."""


class DeliveryFailed(ReviewError):
    """tmux is missing or not answering, or the agent's pane is gone."""
