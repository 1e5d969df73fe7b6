"""Workspace Agent: a coding agent that runs inside a language server over the open workspace."""

__version__ = "0.1.0"
