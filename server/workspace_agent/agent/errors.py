"""Errors the agent core reports to its front ends (kept light: the LSP layer imports this
at start-up, before the rest of the core is loaded)."""


class SessionError(Exception):
    """A request named a session that cannot take it (unknown, or busy with a run)."""


class PromptRefused(SessionError):
    """A prompt the run cannot start with (an @-mention that cannot be resolved, an image
    the model cannot take): nothing runs, the message says which and what to do."""
