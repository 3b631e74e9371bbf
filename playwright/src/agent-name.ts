/**
 * A fixture shell's agent id, which is also its workspace's folder name: named after the
 * test. With a server of the worker's own (a fresh workspace each run) it is the same in
 * every run and worker; on a server that outlives runs (`JUMPSEAT_URL`) it gets a random
 * tail, so a run never finds the files or the shell a past run left.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TestInfo } from '@playwright/test';

/** Agent ids are at most 64 characters: the test's words keep this many. */
const TITLE_CHARS = 40;
/** Hex digits of the test's id (stable across runs) that keep two tests' shells apart. */
const TEST_HASH_CHARS = 6;

function slug(title: string): string {
  const words = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return words.slice(0, TITLE_CHARS).replace(/-+$/, '') || 'test';
}

/** `<test title>-<hash>-<n>`, e.g. `greets-then-asks-a-name-3fa2c1-1`. */
export function fixtureAgentId(testInfo: TestInfo, index: number, persistent: boolean): string {
  const key = `${testInfo.testId}:${testInfo.repeatEachIndex}`;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, TEST_HASH_CHARS);
  const tail = persistent ? `-${randomBytes(3).toString('hex')}` : '';
  return `${slug(testInfo.title)}-${hash}${tail}-${index + 1}`;
}
