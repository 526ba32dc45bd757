"""Errors a user can cause: each carries one line that the CLI prints and the TUI notifies."""


class ReviewError(Exception):
    """A failure the user can act on; its message is one clear line."""


class NotARepository(ReviewError):
    """The path is not inside a git worktree."""


class BadRevision(ReviewError):
    """A revision or range the repository does not know."""


class GitFailed(ReviewError):
    """git itself failed; the message is git's own first error line."""


class BrokenDiff(ReviewError):
    """git's diff output could not be understood."""


class CannotWrite(ReviewError):
    """A file of review's (the review, its instructions, the agent's state, a settings file)
    cannot be written; the message names the file and the system's reason."""
