"""Talking to coding agents: their hooks and activity, the commands they run, tmux delivery, watch, wait, install, doctor."""
