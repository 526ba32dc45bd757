"""Reading git and the diff: worktrees, scopes, the lazy diff model, word changes, syntax tokens, inert text."""
