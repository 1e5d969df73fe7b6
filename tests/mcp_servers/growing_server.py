"""An MCP server built on the official SDK's MCPServer for the list_changed test: its tool
`grow` registers a new tool `grown` and tells the client its tool list changed."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("growing")


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `grown`."""

    def grown() -> str:
        """A tool that did not exist at first."""
        return "grown here"

    server.add_tool(grown)
    await ctx.notify_tools_changed()
    return "added the tool grown"


if __name__ == "__main__":
    server.run()
