"""The conversation as the user saw it: what a transcript view shows of each run, kept
next to the session file so it can be shown again after a reload or a restart
(workspaceAgent/history), and the whole output of each tool call
(workspaceAgent/toolOutput).

It hooks in as a listener around the front end's own (recorder.py): neither the loop nor
the session manager knows about it.
"""
