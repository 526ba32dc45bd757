"""The review state of a worktree and its rules: the model and its file, comments, anchors, rounds, news, instructions."""
