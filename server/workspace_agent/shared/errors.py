"""The one exception tools raise: its message goes back to the model as an error result."""


class ToolError(Exception):
    """A tool could not do what was asked; the message says why, for the model."""
