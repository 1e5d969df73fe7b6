"""Agent Skills (agentskills.io): folders of know-how the user or the project keeps, each
with a SKILL.md. Found in the workspace's and the user's skill folders (discovery.py),
listed by name and description in the system prompt (catalog.py), loaded by the model
with the `skill` tool (tool.py) or started by the user as `/name args` (a slash command,
agent/saved_prompts.py). Costs nothing when there are none: no byte in the request, and
nothing here is imported before a run or a command list looks for them.
"""
