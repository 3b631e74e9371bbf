/**
 * The soak and fault suite at CI size (`npm run soak` runs the full one): load, churn, stalled
 * viewers, an audit flood and a full disk against a real server on loopback; every bound holds
 * and no call is lost. The figures are printed for the record.
 */
import { describe, expect, it } from 'vitest';
import { runSoak, SHORT_SOAK } from '../soak/soak.ts';
import { describeFigures, soakProblems } from '../soak/soak-figures.ts';

const SOAK_TIMEOUT_MS = 120_000;

describe('the soak at CI size', () => {
  it(
    'loses no call and holds every bound under load, churn, floods and a full disk',
    async () => {
      const figures = await runSoak(SHORT_SOAK, () => undefined);
      for (const line of describeFigures(figures)) process.stdout.write(`soak: ${line}\n`);
      expect(soakProblems(figures)).toEqual([]);
      expect(figures.calls.lost).toBe(0);
      expect(figures.audit.refusedRows).toBeLessThanOrEqual(2);
    },
    SOAK_TIMEOUT_MS,
  );
});
