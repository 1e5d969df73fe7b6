"""What stands between the model and the workspace: approvals (who is asked, and what the
user's answers allow) and the command guard (bash commands read with tree-sitter, their
targets and destructive forms, the policy that decides whether to ask)."""
