/**
 * One line naming what a prompt carried besides its text, for its card and the transcript:
 * the editor's context (`attached`), the @-mentions the server resolved and the images
 * (type and size in pixels; the bytes stay in the server's session), e.g.
 * `selection app.py:4-6 · @src/util.py, @diff · image PNG 800x600`. Pure, for unit tests.
 */
import type { RunStartEvent } from '../protocol';

type RunStart = Pick<RunStartEvent, 'attached' | 'mentions' | 'images'>;

const NAMES: Record<string, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' };

export function attachedLine(event: RunStart): string | undefined {
  const parts: string[] = [];
  if (typeof event.attached === 'string' && event.attached) {
    parts.push(event.attached);
  }
  const mentions = Array.isArray(event.mentions) ? event.mentions.filter((m) => typeof m === 'string') : [];
  if (mentions.length) {
    parts.push(mentions.join(', '));
  }
  const images = Array.isArray(event.images) ? event.images : [];
  if (images.length) {
    const shown = images.map((image) => `${NAMES[image.mediaType] ?? image.mediaType} ${image.width}x${image.height}`);
    parts.push(`${images.length === 1 ? 'image' : `${images.length} images`} ${shown.join(', ')}`);
  }
  return parts.length ? parts.join(' · ') : undefined;
}
