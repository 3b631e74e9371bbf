/**
 * `set -a` (allexport) left on from one call to the next, as a terminal keeps it: bash then
 * exports every variable any assignment touches, the integration's own too. Exported, they
 * would reach the environment of every program the command starts (the command's whole text
 * among them: past 128 KiB every `exec` fails with E2BIG), and pre would take the attribute
 * for a command's tampering and have the shell reset at every call.
 *
 * So the integration takes the export off its own variables where that matters: first in pre
 * (before it looks for tampering), last in pre (before the command runs), and last in the
 * prompt hook (before a line a person types runs). The variables the dispatchers set between
 * the command's own steps (a DEBUG or RETURN trap of the user's, a failure the ERR trap sees,
 * the last call's status given back) are arrays: bash never puts an array in a program's
 * environment, exported or not, and a plain assignment (`x=1`, `printf -v x`) sets its first
 * element, so every step reads and writes them as it would a string.
 */

/** A step that takes the export off every variable of the integration's (prefix `T`). */
export function ownVariablesUnexported(T: string): string {
  return `[[ $- != *a* ]] || \\builtin export -n -- "\${!${T}_@}" || ${T}_y=`;
}

/** The dispatchers' variables, by their suffix (bash-errexit.ts, bash-quiet-traps.ts, post). */
const DISPATCHER_VARIABLES = [
  'y',
  'dl',
  'rl',
  'uq',
  'uo',
  'uf',
  'ur',
  'ux',
  'u',
  '4b',
  '4r',
  'tp',
  'tl',
  'l',
  'ut',
];

/** The integration's top level: each of them made an array, with the value it had. */
export function dispatcherVariablesAsArrays(T: string): string {
  return DISPATCHER_VARIABLES.map((name) => `${T}_${name}=("\${${T}_${name}-}")`).join(' ');
}
