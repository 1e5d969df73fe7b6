/**
 * The context meter as the status bar and the Conversation view show it. The figure, its
 * words and when it warns come from the server (workspaceAgent/contextMeter:
 * agent/context_meter.py), so every front end says the same; this only shapes them for the
 * editor. Live only: after a reload it shows again with the session's next model request.
 * Pure.
 */
import type { ContextMeter } from '../protocol';

export interface MeterView {
  /** "62 k / 200 k". */
  label: string;
  /**
   * The side view's header (its description, which takes no colour): the label, with a
   * warning sign in front near compaction ("⚠ 150 k / 200 k").
   */
  header: string;
  /** What compaction does, from what fill, and that /compact does it now. */
  tooltip: string;
  /** Near the compaction threshold: shown amber. */
  near: boolean;
  /** For screen readers: "Context 31% full: 62 k of 200 k tokens". */
  accessibilityLabel: string;
}

type MeterFields = Pick<ContextMeter, 'used' | 'window' | 'near' | 'label' | 'detail'>;

export function meterView(context: MeterFields | undefined): MeterView | undefined {
  if (!context) {
    return undefined;
  }
  const share = context.window > 0 ? Math.round((100 * context.used) / context.window) : 0;
  const [used, window] = context.label.split(' / ');
  return {
    label: context.label,
    header: context.near ? `\u26a0 ${context.label}` : context.label,
    tooltip: context.detail,
    near: context.near,
    accessibilityLabel: `Context ${share}% full: ${used} of ${window ?? ''} tokens`.trimEnd(),
  };
}

