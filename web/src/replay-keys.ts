/**
 * The replay's keyboard: Space plays and pauses, ←/→ move 5 s, `,`/`.` step a frame, 0–9
 * jump to a tenth of the way, F toggles fullscreen. Keys typed into a field stay the field's.
 */
import type { ReplayPlayer } from './replay-player.ts';

/** How far ← and → move on the playback clock. */
export const ARROW_STEP_MS = 5000;

export const SHORTCUTS_TEXT =
  'Space play/pause · ←/→ 5 s · , . one frame · 0–9 jump · F fullscreen';

export function replayKeys(player: ReplayPlayer, toggleFullscreen: () => void): () => void {
  const onKey = (event: KeyboardEvent): void => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target as HTMLElement | null;
    if (target?.closest('input, select, textarea, [contenteditable]')) return;
    const key = event.key;
    if (key === ' ' || key === 'k') {
      if (player.state === 'playing') player.pause();
      else player.play();
    } else if (key === 'ArrowLeft') player.seek(player.position - ARROW_STEP_MS);
    else if (key === 'ArrowRight') player.seek(player.position + ARROW_STEP_MS);
    else if (key === ',') player.stepFrame(-1);
    else if (key === '.') player.stepFrame(1);
    else if (/^[0-9]$/.test(key)) player.seek((Number(key) / 10) * player.duration);
    else if (key === 'f' || key === 'F') toggleFullscreen();
    else return;
    // Handled here: a focused button must not also be pressed by Space, the page not scroll.
    event.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
