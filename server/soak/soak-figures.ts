/**
 * What a soak run measured, as lines a person reads, and the bounds those figures must hold.
 */

export interface SoakFigures {
  readonly rssMiB: Readonly<Record<string, number>>;
  readonly calls: { made: number; answered: number; lost: number; onRecord: number };
  readonly churn: { shells: number; perEndedShellMiB: number };
  readonly viewers: { sockets: number; rssGrowthMiB: number };
  readonly audit: {
    refusedSent: number;
    refusedRows: number;
    refusedCounted: number;
    rows: number;
    cap: number;
  };
  readonly disk: {
    recordingsBytes: number;
    recordingsCap: number;
    savedOutputsBytes: number;
    savedOutputsCap: number;
    largestAgentOutputsBytes: number;
    agentOutputsCap: number;
  };
  /** What the full disk did, or why faults could not run here. */
  readonly faults:
    | {
        calls: number;
        answered: number;
        degradedSeen: boolean;
        recovered: boolean;
        warnings: number;
      }
    | { notRun: string };
}

/** The figures as lines a person reads (and the note quotes). */
export function describeFigures(figures: SoakFigures): string[] {
  const mib = (n: number): string => `${n.toFixed(1)} MiB`;
  const { calls, churn, viewers, audit, disk, faults } = figures;
  return [
    `RSS: ${Object.entries(figures.rssMiB)
      .map(([k, v]) => `${k} ${mib(v)}`)
      .join(', ')}`,
    `calls: ${calls.made} made, ${calls.answered} answered right, ${calls.lost} lost; ${calls.onRecord} on record`,
    `churn: ${churn.shells} shells ended, ${churn.perEndedShellMiB.toFixed(3)} MiB RSS growth per ended shell (second half)`,
    `viewers: ${viewers.sockets} sockets that never read, RSS +${mib(viewers.rssGrowthMiB)}`,
    `audit: ${audit.refusedSent} refused requests -> ${audit.refusedRows} rows counting ${audit.refusedCounted}; ${audit.rows} rows in all (cap ${audit.cap})`,
    `disk: recordings ${disk.recordingsBytes} bytes (cap ${disk.recordingsCap}); saved outputs ${disk.savedOutputsBytes} bytes (cap ${disk.savedOutputsCap}), largest agent ${disk.largestAgentOutputsBytes} (cap ${disk.agentOutputsCap})`,
    'notRun' in faults
      ? `disk faults: not run (${faults.notRun})`
      : `disk full: ${faults.answered}/${faults.calls} calls answered, degraded seen: ${faults.degradedSeen}, recovered: ${faults.recovered}, ${faults.warnings} warnings on stderr`,
  ];
}

/** The bounds the figures must hold, as sentences for each that did not (none: all held). */
export function soakProblems(figures: SoakFigures): string[] {
  const problems: string[] = [];
  const { calls, audit, disk, faults } = figures;
  if (calls.lost > 0) problems.push(`${calls.lost} calls lost`);
  if (calls.onRecord < calls.made) {
    problems.push(`${calls.made - calls.onRecord} calls missing from the history`);
  }
  if (audit.refusedCounted !== audit.refusedSent) {
    problems.push(`audit counted ${audit.refusedCounted} of ${audit.refusedSent} refusals`);
  }
  if (audit.rows > audit.cap) problems.push(`audit has ${audit.rows} rows, cap ${audit.cap}`);
  if (disk.recordingsBytes > disk.recordingsCap) problems.push('recordings past their cap');
  if (disk.savedOutputsBytes > disk.savedOutputsCap) problems.push('saved outputs past their cap');
  if (disk.largestAgentOutputsBytes > disk.agentOutputsCap) {
    problems.push("an agent's saved outputs past their cap");
  }
  if (!('notRun' in faults)) {
    if (faults.answered < faults.calls) problems.push('calls failed while the disk was full');
    if (!faults.degradedSeen) problems.push('/healthz never said degraded on a full disk');
    if (!faults.recovered) problems.push('/healthz never came back to ok');
    if (faults.warnings === 0) problems.push('no warning on stderr for the full disk');
  }
  return problems;
}
