"""Subagents: the model hands a piece of work to a helper with a fresh conversation (the
`task` tool, task.py), which runs through the same core as a session's run
(agent/subagents.py) with the same workspace, approvals, sandbox and checkpoints, and
returns only its final message. Agents are built in (`general`, `explore`: read-only
tools only) or defined in markdown files (definitions.py); what a subagent does reaches
the front ends as its own events (events.py).
"""
