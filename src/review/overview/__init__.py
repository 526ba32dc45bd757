"""The overview of every worktree of a repository: each one's agent, review and diff, the
conflicts between them (`status`, `radar`), what calls for the reviewer (`attention`), and how it
keeps up with changes (`live`)."""
