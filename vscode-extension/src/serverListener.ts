/**
 * What the server's notifications and questions do to the parts (client.ts's
 * ServerListener), given to the server once every part exists (extension.ts).
 */
import * as vscode from 'vscode';
import type { ServerListener } from './client';
import { REVERT_ONLY_CONTEXT } from './commands';
import type { Parts } from './parts';

export function serverListener(parts: Parts): ServerListener {
  const { state, transcript, conversation, mcpView, approvals, changes, subagents, versions, sessions, picker, server, walkthrough, running } = parts;
  return {
    todos: (payload) => state.acceptTodos(payload),
    event: (event) => {
      if (event.sessionId === state.sessionId) {
        transcript.accept(event);
      }
      if (event.kind === 'preparing') {
        state.acceptPreparing(event);
      }
      if (event.kind === 'revert') {
        state.reverted(event.sessionId);
      }
      subagents.accept(event);
      running.accept(event);
      conversation.accept(event);
    },
    sandbox: (status) => state.setSandbox(status),
    contextMeter: (meter) => state.acceptContext(meter),
    mcpServers: (payload) => mcpView.update(payload.servers),
    approval: (params, token) => approvals.ask(params, token),
    changes: (payload) => {
      if (changes.accept(payload)) {
        versions.sessionChanged(payload.sessionId);
      }
    },
    // Sessions are saved by the server: the keeper resumes one each time it starts. The
    // changes are read again then (notifications may have been missed while it was down).
    started: () => {
      sessions.serverStarted();
      void picker.refresh();
      void vscode.commands.executeCommand('setContext', REVERT_ONLY_CONTEXT, server.canRevertOnly);
      walkthrough.serverStarted();
      void sessions.ready().then(() => {
        void changes.refresh();
        void conversation.reload();
        void running.refresh();
      });
    },
    stopped: () => {
      mcpView.update([]); // its MCP servers stopped with it; the next server sends their states
      if (state.sessionId) {
        transcript.note('The server stopped.');
      }
      state.serverStopped();
      running.serverStopped();
    },
    runningSession: () => (state.running ? state.sessionId : undefined),
  };
}
