/**
 * The editor contract on the TypeScript side.
 *
 * Method, command and notification names, event kinds, statuses, payload types and their
 * runtime checks are generated from contract/workspace-agent.json (the one source the
 * server's contract.py, docs/protocol.md's tables and package.json's settings come from
 * too) into contract.ts; this module re-exports them with the few names the extension
 * gives the same shapes. `make check-generated` fails when contract.ts is stale.
 * This module imports nothing but contract.ts, so pure logic and tests can use it.
 */
import type { ApprovalEvent, ChangesResult, TodosPayload } from './contract';

export * from './contract';

/** Body of the workspaceAgent/changes notification (the request's result). */
export type ChangesPayload = ChangesResult;

/** Result of the workspaceAgent.getTodos command (the same shape as workspaceAgent/todos). */
export type GetTodosResult = TodosPayload;

/** The `approval` event's fields: a question asked (waiting), then its answer. */
export type ApprovalEventFields = Omit<ApprovalEvent, 'sessionId'>;
