/**
 * The exit status a call's marks say: the end mark ('E'), and the prompt's first mark when no
 * end mark came (the line cut short, or post broken). One reason to change: what the shells'
 * integrations write into those marks.
 */

/** 128 + SIGINT: the status of an interrupted command. */
export const INTERRUPTED_STATUS = 130;

/**
 * An end mark's data: `<nonce>;<status>`, then `;U` where pwsh's pipeline did not finish (its
 * post never ran). Such a pipeline, in a call whose shell the engine interrupted, was stopped,
 * whatever error the stop made pwsh record on its way (pwsh-dialect.ts).
 */
export function endMarkOf(
  data: string,
  interrupted: boolean,
): { nonce: string | undefined; status: number } {
  const [nonce, said, unfinished] = data.split(';');
  // (Upper case: a mark's data is digits, upper-case letters and a few signs, marks.ts.)
  return { nonce, status: unfinished === 'U' && interrupted ? INTERRUPTED_STATUS : Number(said) };
}

/**
 * The status a prompt's mark (`<nonce>;<status>;<$?>`) says of the command `nonce` whose end
 * mark never came: its own when the mark carries it; else the shell's last status, or an
 * interrupt's where that is 0 (a line cut short).
 */
export function promptStatusOf(data: string, nonce: string): number {
  const [said, status, last] = data.split(';');
  if (said === nonce && status !== undefined && /^\d+$/.test(status)) return Number(status);
  const lastStatus = Number(last);
  // A program no call started (a person's, adopted): the shell's last status is its own.
  if (nonce === '' && last !== undefined && /^\d+$/.test(last)) return lastStatus;
  return lastStatus > 0 ? lastStatus : INTERRUPTED_STATUS;
}

/**
 * Whether a prompt's mark names another call than `nonce` (bash's carries the call's nonce
 * first; pwsh's carries nothing). Once a command started, its shell's prompt names it: a
 * prompt naming another call is one printed earlier, replayed by the command (`cat` of a file
 * that stderr, and so the prompts, went to), not the shell back at its prompt. A program no
 * call started (`nonce` ''; a person's, adopted) is followed by a prompt naming the last call.
 */
export function promptOfOtherCall(data: string, nonce: string): boolean {
  return nonce !== '' && data !== '' && data.split(';')[0] !== nonce;
}
