/**
 * Job notices (`[1]+  Terminated  sleep 30`) in the call in which the job ended. bash prints
 * a background job's notice only at its next prompt, or after the next foreground job, once
 * its SIGCHLD was handled. A job killed at a call's end (`kill %1`) is often not yet dead
 * when post runs: its notice then came at the prompt between calls, where no call sees it,
 * or in the middle of the next call's output (seen under load).
 *
 * post therefore settles the shell's jobs before its end mark, without a fork and only when
 * the shell has jobs (`\j`):
 * - a job's leader that is already a zombie, or that has a signal pending which will
 *   end it (not blocked, ignored or caught, and one whose default action ends a process), is
 *   dying this instant: post `wait`s for it, and `wait` prints its notice as bash would;
 * - so is a leader that is still a copy of this shell (same executable) with such a signal
 *   pending but blocked: bash's fork blocks TERM and INT in the child with their default
 *   actions and unblocks them before anything else runs there (a `kill %1` just after
 *   `sleep 30 &` on a loaded machine found the job there, and its notice came a call late);
 * - then `jobs -n` prints the notice of every job that changed since the last one.
 * Only jobs bash lists as running are looked at (`jobs -p` would mark a job that is already
 * dead as told, and lose its notice), and one that is merely running, or stopped, is never
 * waited for, so post cannot hang on it. A stopped job killed in a call (`kill %1` continues
 * it) is still stopped in bash's table then: its notice may say `Stopped` in that call.
 * Notices go to the terminal (post's stderr is not the command's).
 */
import { bashSingleQuote } from './bash-quote.ts';

/**
 * Signals whose default action ends a process (Linux numbering, bit N-1 for signal N):
 * HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT, and
 * XCPU XFSZ VTALRM PROF IO PWR SYS. Not CHLD, CONT, STOP, TSTP, TTIN, TTOU, URG, WINCH.
 */
const FATAL_SIGNALS_MASK = '0xFB80FFFF';
/** The kernel's flag (field 9 of /proc/<pid>/stat) of a process that has begun to exit. */
const PF_EXITING = '0x4';

/** The variables: `\j` (expanded with `@P`: the number of jobs, without a fork) and the
 *  settling step's text (see jobNoticesBeforeEnd). */
export function jobNoticesInstall(T: string): string {
  return `${T}_j='\\j'
${T}_jw=${bashSingleQuote(settleJobs(T))}`;
}

/** The line of /proc/<pid>/status named `field`, its value only ('' when absent). */
function statusField(T: string, field: string, into: string): string {
  return `${into}=\${${T}_v#*${field}:$'\\t'}; [[ $${into} != "$${T}_v" ]] || ${into}=; ${into}=\${${into}%%$'\\n'*}`;
}

/**
 * The settling (see the module's comment), as text that post `eval`s only when the shell has
 * a job that is not dead: bash copies a function's whole body at each call, and most calls
 * have no job. post has removed aliases named like reserved words by then; every builtin is
 * called as `\builtin`, so no alias or function of the command's replaces one. No comment
 * in it (`shopt -u interactive_comments` would make one a command). In order:
 * - whether the job's leader is a copy of this shell is asked first: a copy that dies once
 *   its status was read has no executable to compare any more, and its blocked signal must
 *   still count;
 * - a stopped job never dies of what is pending until it is continued: not waited for;
 * - a copy of this shell still inside its fork unblocks what it blocks there at once.
 */
function settleJobs(T: string): string {
  return `\\builtin jobs -rn >/dev/null 2>&1 || ${T}_y=
if [[ \${${T}_j@P} != 0 ]]; then
  \\builtin jobs -rp >|"\${${T}_t}J" 2>/dev/null || ${T}_y=
  while IFS= \\builtin read -r ${T}_jp; do
    ${T}_jc=
    [[ ! /proc/$${T}_jp/exe -ef /proc/$$/exe ]] || ${T}_jc=1
    ${T}_v=
    IFS= \\builtin read -r -d '' ${T}_v <"/proc/$${T}_jp/status" 2>/dev/null || ${T}_y=
    [[ -n $${T}_v ]] || \\builtin continue
    ${T}_sf=
    IFS= \\builtin read -r ${T}_sf <"/proc/$${T}_jp/stat" 2>/dev/null || ${T}_y=
    IFS=' ' \\builtin read -r -a ${T}_sa <<<"\${${T}_sf##*) }" || ${T}_y=
    ${statusField(T, 'State', `${T}_js`)}
    ${statusField(T, 'SigPnd', `${T}_j1`)}
    ${statusField(T, 'ShdPnd', `${T}_j2`)}
    ${statusField(T, 'SigBlk', `${T}_j3`)}
    ${statusField(T, 'SigIgn', `${T}_j4`)}
    ${statusField(T, 'SigCgt', `${T}_j5`)}
    [[ $${T}_js != T* ]] || \\builtin continue
    [[ -z $${T}_jc ]] || ${T}_j3=0
    if [[ $${T}_js == Z* ]] || (( (\${${T}_sa[6]:-0} & ${PF_EXITING}) != 0 )) || (( ((16#\${${T}_j1:-0} | 16#\${${T}_j2:-0}) & ~16#\${${T}_j3:-0} & ~16#\${${T}_j4:-0} & ~16#\${${T}_j5:-0} & ${FATAL_SIGNALS_MASK}) != 0 )); then
      \\builtin wait -- "$${T}_jp" 2>/dev/tty || ${T}_y=
    fi
  done <"\${${T}_t}J"
fi
`;
}

/**
 * post's step before its end mark. `\j` counts the jobs that are not dead, and `jobs -rn`
 * only ever makes one dead: with none, the settling has nothing to look at.
 */
export function jobNoticesBeforeEnd(T: string): string {
  return `[[ \${${T}_j@P} == 0 ]] || builtin eval -- "\${${T}_jw-}"`;
}

/**
 * post's step that prints the notices, run with the terminal as its output (post opens it
 * once for this and the end mark that follows). Also with no job left: a dead job's notice
 * not yet printed is in no count.
 */
export function jobNoticesPrint(T: string): string {
  return `builtin jobs -n || ${T}_y=`;
}
