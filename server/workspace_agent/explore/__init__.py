"""`search` and `find_files`: the model finds its way in the workspace without a shell.

Read-only tools: no sandbox, no checkpoint scan, side by side with other reads. In a git
repository git lists and greps (tracked files and untracked ones not ignored); elsewhere a
walker of our own reads `.gitignore` files with pathspec. Either way the same files are
left out (candidates.py): the agent's own folder, credential locations, symlinks (never
followed), files over `maxFileBytes`.
"""
