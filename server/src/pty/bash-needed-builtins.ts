/**
 * The builtins the integration cannot do without, enabled again at each call: a command may
 * disable any builtin (`enable -n eval`), and these are the integration's own tools.
 */

/**
 * The builtins the call line, pre, post, the run file and the ERR dispatcher use. A command
 * may disable any of them (`enable -n eval`); pre enables them again before anything the
 * user could see, so a command's `enable -n` of these lasts until its own call ends.
 */
const NEEDED_BUILTINS =
  'builtin printf read mapfile history set eval trap return unset . source export';

/**
 * pre's first step: the needed builtins back (through `builtin`, or through `enable` itself
 * when `builtin` was disabled). When `enable` is disabled too, nothing can enable them: if
 * one is still off, the shell cannot run a call, and pre prints the broken mark (the engine
 * resets the shell) rather than let the call line fail visibly. That check costs a fork, so
 * it runs only then.
 */
export function enableNeeded(brokenMark: string): string {
  const enabled = NEEDED_BUILTINS.split(' ')
    .map(() => 'builtin')
    .join('\\n');
  return `\\builtin enable -- ${NEEDED_BUILTINS} || \\enable -- ${NEEDED_BUILTINS} ||
    [[ $(\\builtin type -t -- ${NEEDED_BUILTINS} 2>/dev/null) == $'${enabled}' ]] || {
    ${brokenMark}
    builtin return 0
  }`;
}
