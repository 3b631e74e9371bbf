/**
 * What a failed test leaves in its report for each shell it drove: the recording (asciicast
 * v2, plays in asciinema), the calls with their exact results (JSON), the screen as text, and
 * with a server that outlives the run, the link to its replay page.
 */
import { rmSync, writeFileSync } from 'node:fs';
import type { TestInfo } from '@playwright/test';
import type { JumpseatShell } from './test-shell.ts';

export const CAST_CONTENT_TYPE = 'application/x-asciicast';

/** Attaches `shell`'s evidence under names starting with `label` (`shell`, `shell-2`, …). */
export async function attachShell(
  testInfo: TestInfo,
  shell: JumpseatShell,
  label: string,
  replayBase: string | undefined,
): Promise<void> {
  const id = shell.sessionId;
  if (id === undefined) return; // never started: nothing to show
  // Playwright keeps its own copy of an attached file (under the test's `attachments/`), which
  // reporters link to: the file written for it goes once that copy exists.
  const file = async (name: string, contentType: string, body: string): Promise<void> => {
    const path = testInfo.outputPath(name);
    writeFileSync(path, body);
    try {
      await testInfo.attach(name, { path, contentType });
    } finally {
      rmSync(path, { force: true });
    }
  };
  // Each piece on its own: a shell that died still has its recording and calls.
  const pieces: [string, string, () => Promise<string>][] = [
    [`${label}.cast`, CAST_CONTENT_TYPE, () => shell.recording()],
    [
      `${label}-calls.json`,
      'application/json',
      async () => JSON.stringify(await shell.calls(), null, 2),
    ],
    [`${label}-screen.txt`, 'text/plain', () => shell.screen()],
  ];
  for (const [name, contentType, read] of pieces) {
    try {
      await file(name, contentType, await read());
    } catch (error) {
      await testInfo.attach(`${name} (unavailable)`, {
        body: error instanceof Error ? error.message : String(error),
        contentType: 'text/plain',
      });
    }
  }
  if (replayBase !== undefined) {
    await testInfo.attach(`${label}-replay`, {
      body: `${replayBase}/sessions/${encodeURIComponent(id)}/replay`,
      contentType: 'text/uri-list',
    });
  }
}
