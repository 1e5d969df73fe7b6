// The list_changed test's server of the handshake era (protocol 2025-11-25), built on the
// official TypeScript SDK: its tool `grow` registers a new tool `grown`, and the SDK sends
// notifications/tools/list_changed, ahead of the call's result. growing_server.py is its
// twin on the Python SDK, which speaks 2026-07-28 (the change comes on a listen stream).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer(
  { name: "growing-legacy", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);

server.registerTool("grow", { description: "Add the tool `grown`." }, async () => {
  server.registerTool(
    "grown",
    { description: "A tool that did not exist at first." },
    async () => ({ content: [{ type: "text", text: "grown here" }] }),
  );
  return { content: [{ type: "text", text: "added the tool grown" }] };
});

await server.connect(new StdioServerTransport());
