/**
 * The model · effort status-bar item and its quick picks: the model (the server's list,
 * "Other…" to type one), then the thinking level it takes. The pick holds for this
 * window's sessions and goes with each run; "Save as Default" writes it to the user's
 * settings. Its words and rows come from core/modelPick.ts.
 */
import * as vscode from 'vscode';
import type { AgentServer } from './client';
import { COMMAND_IDS } from './commands';
import {
  effective,
  levelRows,
  modelIdProblem,
  modelRows,
  OTHER_MODEL,
  type ModelPick,
  type PickRow,
  picked,
  pickView,
  runFields,
  SAVE_DEFAULT,
  USE_SETTINGS,
} from './core/modelPick';
import type { ModelsResult, RunParams, ThinkingLevel } from './protocol';
import { SETTINGS_SECTION } from './protocol';

type Row = vscode.QuickPickItem & { value: string };

function rows(list: PickRow[]): Row[] {
  return list.map((row) =>
    row.kind === 'separator'
      ? { label: row.label, value: row.value, kind: vscode.QuickPickItemKind.Separator }
      : { label: row.label, value: row.value, description: row.description, detail: row.detail },
  );
}

/** A quick pick that opens on the current row (showQuickPick always opens on the first). */
function pickRow(list: PickRow[], title: string, placeholder: string, current?: string): Promise<Row | undefined> {
  const picker = vscode.window.createQuickPick<Row>();
  picker.title = title;
  picker.placeholder = placeholder;
  picker.items = rows(list);
  picker.activeItems = picker.items.filter((row) => row.value === current);
  return new Promise((resolve) => {
    picker.onDidAccept(() => {
      resolve(picker.selectedItems[0]);
      picker.hide();
    });
    picker.onDidHide(() => {
      resolve(undefined);
      picker.dispose();
    });
    picker.show();
  });
}

export class ModelPicker implements vscode.Disposable {
  private pick: ModelPick = {};
  private offer: ModelsResult | undefined;
  private readonly item = vscode.window.createStatusBarItem('workspaceAgent.model', vscode.StatusBarAlignment.Left, 49);
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(private readonly server: AgentServer) {
    this.item.name = 'Workspace Agent Model';
    this.item.command = COMMAND_IDS.pickModel;
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((change) => {
        if (['model', 'thinking', 'thinkingStyle'].some((key) => change.affectsConfiguration(`${SETTINGS_SECTION}.${key}`))) {
          void this.refresh();
        }
      }),
    );
  }

  /** What a run sends for the pick. */
  runFields(): Pick<RunParams, 'model' | 'thinking'> {
    return runFields(this.pick);
  }

  /** Ask the server what it offers (when it starts, and when a setting changes). */
  async refresh(): Promise<void> {
    try {
      this.offer = await this.server.models(this.pick.model);
    } catch {
      return; // the server is not running: the item shows once it is
    }
    this.render();
  }

  private render(): void {
    if (!this.offer) {
      return;
    }
    const view = pickView(this.offer, this.pick);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.accessibilityLabel };
    this.item.show();
  }

  /** The status-bar item's command: the model, then its level. */
  async choose(): Promise<void> {
    const offer = this.offer ?? (await this.server.models(this.pick.model));
    this.offer = offer;
    const chosen = await pickRow(
      modelRows(offer, this.pick),
      'Workspace Agent: Model',
      'The model for this window’s sessions (your settings are not changed)',
      effective(offer, this.pick).choice.id,
    );
    if (!chosen) {
      return;
    }
    if (chosen.value === USE_SETTINGS) {
      this.pick = {};
      return this.refresh();
    }
    if (chosen.value === SAVE_DEFAULT) {
      return this.saveDefault(offer);
    }
    const model = chosen.value === OTHER_MODEL ? await this.typeModel() : chosen.value;
    if (!model) {
      return;
    }
    const described = await this.server.models(model);
    const choice = described.models.find((m) => m.id === model);
    if (!choice) {
      return;
    }
    const now = effective(described, this.pick);
    const current = now.choice.id === model ? now.level : undefined;
    const level = await pickRow(
      levelRows(choice, current),
      `Workspace Agent: Thinking for ${choice.label}`,
      choice.known
        ? 'How much the model thinks before it answers'
        : 'The agent does not know this model: it takes no thinking (set workspaceAgent.thinkingStyle if it does)',
      current ?? choice.defaultLevel,
    );
    if (!level) {
      return;
    }
    this.pick = picked(model, level.value as ThinkingLevel);
    this.offer = described;
    this.render();
  }

  private async typeModel(): Promise<string | undefined> {
    const typed = await vscode.window.showInputBox({
      title: 'Workspace Agent: Other Model',
      prompt: 'The model id sent to the Messages API (a provider’s or a gateway’s spelling too)',
      placeHolder: 'claude-sonnet-4-5',
      validateInput: modelIdProblem,
    });
    return typed?.trim() || undefined;
  }

  private async saveDefault(offer: ModelsResult): Promise<void> {
    const now = effective(offer, this.pick);
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    await config.update('model', now.choice.id, vscode.ConfigurationTarget.Global);
    await config.update('thinking', now.level, vscode.ConfigurationTarget.Global);
    this.pick = {};
    void vscode.window.showInformationMessage(
      `Workspace Agent: default set to ${now.choice.label} · ${now.level} (user settings).`,
    );
    await this.refresh();
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
