/**
 * The way out of an error, as buttons on its message: Set API Key when the key is missing
 * or refused, Open Settings on the setting a limit comes from or the message names (a
 * cloud provider's region or project; `provider` for its credentials), Retry (the same task, with
 * the same context) when trying again may help, Restart Server when the server went away,
 * Continue (a follow-up in the same session, with turns and a budget of its own) at a limit.
 * The same buttons go on the error's card in the Conversation view (`cardFixes`).
 * Pure, so the buttons a message gets are unit-tested; runs.ts shows them and acts.
 */
import type { RunResult } from '../protocol';

export type Fix =
  | { label: 'Continue'; action: 'continue' }
  | { label: 'Set API Key'; action: 'setApiKey' }
  | { label: 'Retry'; action: 'retry' }
  | { label: 'Open Settings'; action: 'openSettings'; setting: string }
  | { label: 'Restart Server'; action: 'restartServer' }
  | { label: 'Show Transcript'; action: 'showTranscript' };

export const FIX_ACTIONS = ['continue', 'setApiKey', 'retry', 'openSettings', 'restartServer', 'showTranscript'] as const satisfies readonly Fix['action'][];

const SET_KEY: Fix = { label: 'Set API Key', action: 'setApiKey' };
const RETRY: Fix = { label: 'Retry', action: 'retry' };
const RESTART: Fix = { label: 'Restart Server', action: 'restartServer' };
const TRANSCRIPT: Fix = { label: 'Show Transcript', action: 'showTranscript' };
const CONTINUE: Fix = { label: 'Continue', action: 'continue' };

/** What Continue sends: a follow-up in the same session, which gets its own turns and budget. */
export const CONTINUE_PROMPT = 'Continue where you stopped.';

/** A cloud provider's error: its credentials are AWS's or Google's, never the API key. */
function aboutCloud(text: string): boolean {
  return /Amazon Bedrock|Vertex AI|\bAWS_|Google Cloud/.test(text);
}

/** The key is missing, or the API refused it. */
function aboutKey(text: string): boolean {
  return !aboutCloud(text) && /ANTHROPIC_API_KEY|API key|\b401\b|authentication/i.test(text);
}

/** The setting the message tells the user to set (`workspaceAgent.vertex.region`), else
 * `provider` for a cloud provider's error (where its credentials or extra come from). */
function namedSetting(text: string): string | undefined {
  const named = /\bworkspaceAgent\.[A-Za-z]+(?:\.[A-Za-z]+)*/.exec(text);
  if (named) {
    return named[0];
  }
  return aboutCloud(text) ? 'workspaceAgent.provider' : undefined;
}

/** Where a model id or endpoint comes from. */
function aboutModel(text: string): string | undefined {
  if (/\bmodel\b.*(not found|404|does not exist)|\b404\b/i.test(text)) {
    return 'workspaceAgent.model';
  }
  if (/base ?url|ANTHROPIC_BASE_URL/i.test(text)) {
    return 'workspaceAgent.baseUrl';
  }
  return undefined;
}

/** Buttons for a run that ended (end_turn and cancelled need none but the transcript). */
export function runResultFixes(result: RunResult): Fix[] {
  switch (result.stopReason) {
    case 'max_turns':
      return [CONTINUE, { label: 'Open Settings', action: 'openSettings', setting: 'workspaceAgent.maxTurns' }, TRANSCRIPT];
    case 'budget':
      return [CONTINUE, { label: 'Open Settings', action: 'openSettings', setting: 'workspaceAgent.maxRunTokens' }, TRANSCRIPT];
    case 'error': {
      const text = result.error ?? '';
      if (aboutKey(text)) {
        return [SET_KEY, RETRY, TRANSCRIPT];
      }
      if (/\(413\)/.test(text)) {
        return [TRANSCRIPT]; // too large: the same request again fails the same way
      }
      const setting = namedSetting(text) ?? aboutModel(text);
      return setting ? [{ label: 'Open Settings', action: 'openSettings', setting }, RETRY, TRANSCRIPT] : [RETRY, TRANSCRIPT];
    }
    default:
      return [TRANSCRIPT];
  }
}

/**
 * Buttons on the Conversation view's card of a run that ended (its error card, or its end
 * row at a limit): the toast's, without Show Transcript (the card is the transcript).
 */
export function cardFixes(stopReason: RunResult['stopReason'], error?: string): Fix[] {
  const result: RunResult = { sessionId: '', stopReason, text: '', todos: [], usage: { inputTokens: 0, outputTokens: 0 }, ...(error ? { error } : {}) };
  const fixes = stopReason === 'max_turns' || stopReason === 'budget' || stopReason === 'error' ? runResultFixes(result) : [];
  return fixes.filter((fix) => fix.action !== 'showTranscript');
}

/** Buttons for a run request that failed without a result (the server went away, …). */
export function requestFailureFixes(text: string): Fix[] {
  return aboutKey(text) ? [SET_KEY, RETRY] : [RETRY, RESTART];
}

/**
 * An error's message as its card shows it: what went wrong (up to the first ": ", when
 * that comes early, else its first sentence, when that is not the whole), then the rest,
 * the details and what to do, in quieter words.
 */
export function errorParts(text: string): { headline: string; rest: string } {
  const cut = text.indexOf(': ');
  if (cut > 0 && cut <= 80) {
    return { headline: text.slice(0, cut), rest: text.slice(cut + 2) };
  }
  const sentence = text.indexOf('. ');
  if (sentence > 0 && sentence <= 160) {
    return { headline: text.slice(0, sentence), rest: text.slice(sentence + 2) };
  }
  return { headline: text, rest: '' };
}
