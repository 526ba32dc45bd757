"""review: read a coding agent's diff, comment on lines, send the comments back as instructions."""

__version__ = "0.1.0"
