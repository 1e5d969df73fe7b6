"""Hooks: the user's own commands at the agent's events, in Claude Code's format (its
settings files read as they are), and a plan item's check.

Where they come from (sources.py, config.py), who may run them and where (trust.py: a
workspace's hooks only once trusted, in the sandbox; the user's on the host), how one runs
(runner.py, payload.py: Claude Code's stdin and environment) and what it said (said.py),
and the run's seams they act at (observer.py; service.py holds what lasts between runs).
The session manager imports sources.py at a run's start and the rest only when a hook is
configured, so a workspace without hooks pays a few file reads per run and nothing else.
"""
