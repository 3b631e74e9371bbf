/**
 * Whether a command line starts bash as an interactive shell at its prompt (`bash`, `bash -l`,
 * `bash --norc`, `bash -i script`), not one that runs a script or a `-c` string: what the
 * shell process became when a command ran `exec bash` (see session/shell-image.ts).
 */

/** Long options of bash that take the next word as their argument. */
const LONG_WITH_ARGUMENT = new Set(['--rcfile', '--init-file']);
/** Option letters that take the next word as their argument (`-o pipefail`, `+O extglob`). */
const LETTERS_WITH_ARGUMENT = new Set(['o', 'O']);

/** `argv` without argv[0], as bash reads its invocation (bash(1), INVOCATION). */
export function startsInteractiveBash(args: readonly string[]): boolean {
  let interactive = false;
  let command = false;
  let stdin = false;
  let operand = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--' || arg === '-') {
      operand = i + 1 < args.length;
      break;
    }
    if (arg.startsWith('--')) {
      if (LONG_WITH_ARGUMENT.has(arg)) i++;
      continue;
    }
    if (!/^[-+]./.test(arg)) {
      operand = true;
      break;
    }
    for (const letter of arg.slice(1)) {
      if (letter === 'i') interactive = true;
      else if (letter === 'c') command = true;
      else if (letter === 's') stdin = true;
      else if (LETTERS_WITH_ARGUMENT.has(letter)) i++;
    }
  }
  // With `-s`, the words after the options are positional parameters; the shell reads its
  // terminal. Otherwise the first is a script (or, after `-c`, the command to run).
  if (interactive) return true;
  return !command && (stdin || !operand);
}
