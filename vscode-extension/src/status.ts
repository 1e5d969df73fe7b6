/**
 * The status-bar item: "spinner 2/5 · current item" while a run goes, else a quiet icon
 * (the last run's outcome, if any); the tooltip says how the last run ended, with its
 * tokens and estimated cost, and whether commands run in the sandbox. Its words come from
 * core/status.ts.
 */
import * as vscode from 'vscode';
import type { AgentState } from './core/state';
import { sandboxText, statusView, withSandbox } from './core/status';
import { COMMAND_IDS } from './commands';
import { meterView } from './core/contextMeter';

const BACKGROUNDS = {
  normal: undefined,
  warning: 'statusBarItem.warningBackground',
  error: 'statusBarItem.errorBackground',
} as const;

export function createStatusItem(state: AgentState): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('workspaceAgent.status', vscode.StatusBarAlignment.Left, 50);
  item.name = 'Workspace Agent';
  const render = (): void => {
    const view = statusView(state.phase, state.running ? state.runItems : state.items, state.lastRun, state.waiting.length);
    item.text = view.text;
    item.tooltip = withSandbox(view.tooltip, state.sandbox);
    item.accessibilityInformation = { label: view.accessibilityLabel };
    const background = BACKGROUNDS[view.tone];
    item.backgroundColor = background ? new vscode.ThemeColor(background) : undefined;
    item.command =
      state.waiting.length || state.phase.kind !== 'idle' ? COMMAND_IDS.showConversation : COMMAND_IDS.runTask;
  };
  // The sandbox's state in words, beside the quiet run item (which stays an icon when idle).
  const sandboxItem = vscode.window.createStatusBarItem('workspaceAgent.sandbox', vscode.StatusBarAlignment.Left, 49);
  sandboxItem.name = 'Workspace Agent Sandbox';
  const renderSandbox = (): void => {
    const sandbox = sandboxText(state.sandbox);
    if (!sandbox) {
      sandboxItem.hide();
      return;
    }
    sandboxItem.text = sandbox.text;
    sandboxItem.tooltip = state.sandbox?.message;
    sandboxItem.accessibilityInformation = { label: `Agent sandbox: ${sandbox.label}` };
    sandboxItem.command = { title: 'Sandbox settings', command: 'workbench.action.openSettings', arguments: ['workspaceAgent.sandbox'] };
    sandboxItem.show();
  };
  // How full the context window is: "62 k / 200 k", amber near compaction (core/contextMeter.ts).
  const meterItem = vscode.window.createStatusBarItem('workspaceAgent.context', vscode.StatusBarAlignment.Left, 48);
  meterItem.name = 'Workspace Agent Context';
  const renderMeter = (): void => {
    const meter = meterView(state.context);
    if (!meter) {
      meterItem.hide();
      return;
    }
    meterItem.text = `$(dashboard) ${meter.label}`;
    meterItem.tooltip = meter.tooltip;
    meterItem.accessibilityInformation = { label: meter.accessibilityLabel };
    meterItem.backgroundColor = meter.near ? new vscode.ThemeColor(BACKGROUNDS.warning) : undefined;
    meterItem.command = COMMAND_IDS.showConversation;
    meterItem.show();
  };
  render();
  renderSandbox();
  renderMeter();
  item.show();
  return vscode.Disposable.from(
    item,
    sandboxItem,
    meterItem,
    state.onChange(render),
    state.onChange(renderSandbox),
    state.onChange(renderMeter),
  );
}
