"""The agent over the Agent Client Protocol (ACP v1, JSON-RPC on stdio): `workspace-agent acp`.

A thin adapter, the sibling of `lsp/`: ACP requests become calls on the agent core's
SessionManager; core events and plans become `session/update` notifications; approvals
become `session/request_permission`; files go through the client's `fs/*` methods when it
offers them. The core knows nothing of ACP. Built on the `agent-client-protocol` package.
"""
