#!/usr/bin/env node
// An ACP client built on the official TypeScript SDK (@agentclientprotocol/sdk, its stable
// v1 entry point), used by tests/acp/test_acp_ts_client.py to drive `workspace-agent acp`.
//
//   node client.mjs WORKSPACE PROMPT -- AGENT_COMMAND...
//
// It advertises fs.readTextFile / fs.writeTextFile and serves them like an editor: open
// buffers first (the file buffers.json in WORKSPACE's parent, {absolute path: text},
// is what the user has typed and not saved), else the disk; writes update the buffer and
// are saved. Every permission request is answered "allow_once", a plan's (the one offering
// "run_plan") with ACP_TEST_PLAN_ANSWER (default "run_plan"). It runs PROMPT in a new
// session (with the MCP servers of ACP_TEST_MCP_SERVERS, once the agent says they are
// ready; in the mode ACP_TEST_MODE, set with session/set_config_option, when given, and
// the config options of ACP_TEST_OPTIONS), then
// starts the agent again and loads that session. The SDK parses every message the agent
// sends against the ACP schema before a handler sees it.
//
// Prints one JSON object: what the agent answered and sent, for the test to check.

import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk";

const [workspace, promptText, separator, ...agentCommand] = process.argv.slice(2);
if (!workspace || !promptText || separator !== "--" || agentCommand.length === 0) {
  console.error("usage: node client.mjs WORKSPACE PROMPT -- AGENT_COMMAND...");
  process.exit(2);
}

const buffersFile = join(dirname(workspace), "buffers.json");
const buffers = existsSync(buffersFile) ? JSON.parse(readFileSync(buffersFile, "utf8")) : {};
const record = { reads: [], writes: [], permissions: [], loaded: [] };
const planAnswer = process.env.ACP_TEST_PLAN_ANSWER ?? "run_plan";

function startAgent() {
  const child = spawn(agentCommand[0], agentCommand.slice(1), {
    cwd: workspace,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin),
    Readable.toWeb(child.stdout),
  );
  return { child, stream };
}

function editorClient(onUpdate) {
  return acp
    .client({ name: "workspace-agent-ts-test-client" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      record.permissions.push(params);
      const aboutPlan = params.options.some((option) => option.optionId === "run_plan");
      const optionId = aboutPlan ? planAnswer : "allow_once";
      return { outcome: { outcome: "selected", optionId } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      record.reads.push(params.path);
      if (params.path in buffers) return { content: buffers[params.path] };
      if (!existsSync(params.path)) throw acp.RequestError.resourceNotFound(params.path);
      return { content: readFileSync(params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      record.writes.push({ path: params.path, content: params.content });
      buffers[params.path] = params.content;
      writeFileSync(params.path, params.content);
      return {};
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => onUpdate(params));
}

const capabilities = { fs: { readTextFile: true, writeTextFile: true } };
// ACP_TEST_MCP_SERVERS: a JSON list of `mcpServers` entries for session/new (default none).
const mcpServers = JSON.parse(process.env.ACP_TEST_MCP_SERVERS ?? "[]");

async function runTask() {
  const { child, stream } = startAgent();
  try {
    return await editorClient(() => {}).connectWith(stream, async (agent) => {
      const initialized = await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: capabilities,
        clientInfo: { name: "ts-test-client", version: "0.0.0" },
      });
      let builder = agent.buildSession(workspace);
      for (const server of mcpServers) builder = builder.withMcpServer(server);
      return builder.withSession(async (session) => {
        const updates = [];
        // With MCP servers: prompt once the agent says each is ready (they start in the
        // background), so the model's first request has their tools.
        let waiting = new Set(mcpServers.map((server) => server.name));
        while (waiting.size > 0) {
          const message = await session.nextUpdate();
          updates.push(message.update);
          const text = message.update?.content?.text ?? "";
          for (const name of [...waiting]) {
            if (text.includes(`MCP server ${name}: ready`)) waiting.delete(name);
            if (text.includes(`MCP server ${name}: failed`)) throw new Error(text);
          }
        }
        let configured = null;
        if (process.env.ACP_TEST_MODE) {
          configured = await agent.request(acp.methods.agent.session.setConfigOption, {
            sessionId: session.sessionId,
            configId: "mode",
            value: process.env.ACP_TEST_MODE,
          });
        }
        // ACP_TEST_OPTIONS: [[configId, value], ...] set in order (the model, the thought level).
        for (const [configId, value] of JSON.parse(process.env.ACP_TEST_OPTIONS || "[]")) {
          configured = await agent.request(acp.methods.agent.session.setConfigOption, {
            sessionId: session.sessionId,
            configId,
            value,
          });
        }
        session.prompt(promptText);
        for (;;) {
          const message = await session.nextUpdate();
          if (message.kind === "stop") {
            return {
              initialized,
              newSession: session.newSessionResponse,
              configured,
              sessionId: session.sessionId,
              stopReason: message.stopReason,
              updates,
            };
          }
          updates.push(message.update);
        }
      });
    });
  } finally {
    child.stdin.end();
  }
}

async function loadSession(sessionId) {
  const { child, stream } = startAgent();
  try {
    await editorClient((params) => {
      if (params.sessionId === sessionId) record.loaded.push(params.update);
    }).connectWith(stream, async (agent) => {
      await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: capabilities,
      });
      record.loadAnswer = await agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: workspace,
        mcpServers: [],
      });
    });
  } finally {
    child.stdin.end();
  }
}

const task = await runTask();
await loadSession(task.sessionId);
process.stdout.write(JSON.stringify({ ...task, ...record }) + "\n");
process.exit(0);
