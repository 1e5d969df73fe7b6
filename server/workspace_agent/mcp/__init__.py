"""MCP client support: tools of the user's MCP servers as entries of the dispatch map.

Sources and trust (config.py, sources.py, trust.py), one long-lived task per server
(connection.py), the servers of a front end and their tools map (servers.py, names.py,
tools.py), and the seams a front end plugs in (runtime.py). Nothing here imports the `mcp`
SDK at import time; the front ends import this package only when a server is configured
(sources.any_configured), so a workspace without MCP pays nothing.
"""
