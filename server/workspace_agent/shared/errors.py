"""The exceptions features raise to the layers above them: ToolError goes back to the
model as a tool's error result; CheckpointError goes to the user, as each front end
reports a refused request (its own module so the adapters can name it at start-up
without loading the checkpoints)."""


class ToolError(Exception):
    """A tool could not do what was asked; the message says why, for the model."""


class CheckpointError(Exception):
    """A checkpoint request (changes, a file version, a revert, an undo) that cannot be
    done; nothing was changed, and the message says why, for the user."""
