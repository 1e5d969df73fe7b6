/**
 * What the Conversation view's clicks and keys do (conversationView.ts's
 * ConversationActions): given to the view once every part they reach exists (extension.ts).
 */
import * as vscode from 'vscode';
import { COMMAND_IDS, PLAN_VIEW_ID } from './commands';
import type { ConversationActions } from './conversationView';
import type { Parts } from './parts';
import { openChange } from './versions';

export function conversationActions(parts: Parts): ConversationActions {
  const { state, runs, queue, fixes, modes, approvals, planView, planEditor, reverts, versions, conversation, running } = parts;
  return {
    send: (text, images) => queue.send(text, images),
    cancel: () => runs.cancelRun(),
    fix: (fix, prompt) => void fixes.applyFix(fix, prompt),
    unqueue: (id) => queue.unqueue(id),
    runQueued: (id) => queue.runQueued(id),
    answer: (toolUseId, decision, reason) => approvals.answer(toolUseId, decision, reason),
    showProposed: (toolUseId) => approvals.showProposed(toolUseId),
    revealStep: (todoId) => planView.revealStep(todoId),
    undoRevert: (undoId) => reverts.undoRevert(undoId),
    openChange: (node) => openChange(versions, node),
    setMode: (mode) => void modes.setMode(mode),
    plan: (action) => {
      const command = { run: COMMAND_IDS.runPlan, revise: COMMAND_IDS.keepPlanning, discard: COMMAND_IDS.discardPlan, edit: `${PLAN_VIEW_ID}.focus` }[action];
      void vscode.commands.executeCommand(command);
    },
    planEdit: (edit) => {
      const focus = planEditor.editFromCard(edit); // the edit first: the card then shows it
      conversation.showPlan(planEditor.card(), focus);
    },
    runState: () => ({
      mode: modes.mode,
      running: state.running,
      queued: queue.queued.map(({ id, text, held }) => ({ id, text, held: held === true })),
      history: queue.history,
    }),
    background: (request) => running.act(request),
  };
}
