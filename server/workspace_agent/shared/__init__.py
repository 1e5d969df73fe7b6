"""The vocabulary the layers above share: the observers of tool calls, the session and its
todo plan, the events a run reports, the documents interface and the errors features
raise (ToolError, CheckpointError). Imports nothing of the packages above it (see
docs/architecture.md)."""
