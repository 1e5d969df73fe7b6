"""The agent core: sessions, the loop, the plan and the model client. No LSP in here."""
