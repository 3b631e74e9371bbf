/**
 * The `jumpseat` command: `serve` runs the server (as `npm start` does); `exec`, `sessions`,
 * `token` and `share` talk to a running server through the TypeScript client. A command's
 * own modules are imported when it runs, so `exec` (started once per call by scripts) loads
 * only the client and what it needs to print the result.
 */
import { parseArgs } from 'node:util';
import { JumpseatApiError, type SessionInfo } from '../../../client/src/index.ts';
import { DIALECTS, type Dialect } from '../../../shared/src/vocabulary.ts';
import { parseFlagError } from '../config/parse-flag-error.ts';
import { terminalSafe, terminalSafeJson } from '../ops/terminal-safe.ts';
import { CONNECTION_HELP, CONNECTION_OPTIONS, clientFrom, UsageError } from './connection.ts';
import { endingOf, exitStatusOf } from './exit-status.ts';

const EXIT_USAGE = 2;
const EXIT_FAILURE = 1;
/** Interrupted by Ctrl-C (128 + SIGINT), after the call was cancelled on the server. */
const EXIT_INTERRUPTED = 130;

const MAIN_HELP = `Usage: jumpseat <command> [flags]

Persistent bash/pwsh shells for AI agents, with humans in the jump seat.

Commands:
  serve           run the server (same as npm start)
  exec            run a command in an agent's shell and print the result text
  sessions        list the shells of a running server
  token           mint, list, rename and revoke tokens
  share           create, list and revoke share links to one shell
  host            run shells on this machine for a control plane (host --join URL)
  hosts           list the shell hosts joined to a control plane

  -V, --version   print the version and exit

Run "jumpseat <command> --help" for a command's flags.
`;

const EXEC_HELP = `Usage: jumpseat exec --agent AGENT [--pwsh | --dialect NAME] [--json] [--] COMMAND...

Runs COMMAND in AGENT's persistent shell (bash unless --pwsh) and prints the result text
exactly as an agent gets it. Several COMMAND words are joined with spaces.

Exit status: the command's own exit status when the result tells it (0 without an
"[exit code: N]" line); 124 when the call timed out (the shell was reset); the shell's code,
or 128 + signal, when the shell itself ended; 125 when the command waits for input (the
next exec for this agent is typed into it); 1 when the server refused the call (the reason
on stderr); 130 on Ctrl-C, which cancels the call and resets the shell.

  --agent AGENT      the agent whose shell runs the command (required)
  --pwsh             use the PowerShell shell
  --dialect NAME     use the shell of this dialect (bash, pwsh)
  --json             print {"output", "exitCode", "ending", "durationMs"} instead of the text:
                     ending is completed, timeout, waiting_input, shell_exit or shell_lost;
                     exitCode is the command's (or the exited shell's) code, else null

${CONNECTION_HELP}
`;

const SESSIONS_HELP = `Usage: jumpseat sessions [--json]

Lists every shell of the server: id, agent, dialect, state, pid and the running command.
Needs an admin, operator or viewer token.

  --json             print the server's JSON instead of a table

${CONNECTION_HELP}
`;

type Print = (text: string) => void;

export interface CliIo {
  readonly out: Print;
  readonly err: Print;
  readonly env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C. */
  readonly interrupt: AbortSignal;
}

/** Runs one CLI invocation (not `serve`) and resolves with its exit status. */
export async function runCli(argv: readonly string[], given: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  // Everything printed may quote an agent, its commands or a person's name: control and
  // invisible characters are shown escaped (newlines and tabs stay), never sent raw.
  const io: CliIo = { ...given, out: (text) => given.out(terminalSafe(text, true)) };
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.out(MAIN_HELP);
        return command === undefined ? EXIT_USAGE : 0;
      case '-V':
      case '--version': {
        const { PACKAGE_VERSION } = await import('../package-root.ts');
        io.out(`${PACKAGE_VERSION}\n`);
        return 0;
      }
      case 'exec':
        return await exec(rest, io);
      case 'sessions':
        return await sessions(rest, io);
      case 'token':
        return await token(rest, io);
      case 'share':
        return await share(rest, io);
      case 'hosts':
        return await hosts(rest, io);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    // Messages quote what the user, an agent or the server said: shown escaped, never acted on.
    const say = (text: string): void => io.err(`jumpseat: ${terminalSafe(text, true)}\n`);
    if (error instanceof UsageError) {
      say(`${error.message} (see jumpseat ${helpTopic(command)}--help)`);
      return EXIT_USAGE;
    }
    if (error instanceof JumpseatApiError) {
      say(`${error.message} (${error.status} ${error.code})`);
      return EXIT_FAILURE;
    }
    if (io.interrupt.aborted) return EXIT_INTERRUPTED;
    say(reasonOf(error));
    return EXIT_FAILURE;
  }
}

function helpTopic(command: string | undefined): string {
  return command === 'exec' ||
    command === 'sessions' ||
    command === 'token' ||
    command === 'share' ||
    command === 'hosts'
    ? `${command} `
    : '';
}

type CommandOptions = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>;

/**
 * Parses one command's flags (the connection flags included); undefined when `--help` was
 * given, after printing `help`.
 */
function parseCommand<T extends CommandOptions>(
  args: readonly string[],
  options: T,
  help: string,
  io: CliIo,
) {
  const parsed = parse(args, { ...CONNECTION_OPTIONS, ...options });
  // `in` because TypeScript cannot see through the generic spread that `help` is declared.
  if ('help' in parsed.values && parsed.values.help === true) {
    io.out(help);
    return undefined;
  }
  return parsed;
}

function parse<T extends CommandOptions>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(parseFlagError(error).replace(/ \(see --help\)$/, ''));
  }
}

async function exec(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      agent: { type: 'string' },
      pwsh: { type: 'boolean' },
      dialect: { type: 'string' },
      json: { type: 'boolean' },
    },
    EXEC_HELP,
    io,
  );
  if (parsed === undefined) return 0;
  const { values, positionals } = parsed;
  const agent = values.agent;
  if (agent === undefined || agent === '') throw new UsageError('--agent is required');
  const dialect = dialectOf(values.dialect, values.pwsh === true);
  const command = positionals.join(' ');
  if (command.trim() === '') throw new UsageError('give the command after the flags');
  const client = clientFrom(values, io.env);
  const started = performance.now();
  const output = await client.call(agent, dialect, command, { signal: io.interrupt });
  if (values.json === true) {
    const durationMs = Math.round(performance.now() - started);
    const { ending, exitCode } = endingOf(output);
    io.out(`${terminalSafeJson({ output, exitCode, ending, durationMs })}\n`);
  } else {
    io.out(output === '' ? '' : `${output}\n`);
  }
  return exitStatusOf(output);
}

function dialectOf(named: string | undefined, pwsh: boolean): Dialect {
  if (pwsh && named !== undefined && named !== 'pwsh') {
    throw new UsageError('--pwsh and --dialect disagree');
  }
  const name = pwsh ? 'pwsh' : (named ?? 'bash');
  const dialect = DIALECTS.find((candidate) => candidate === name);
  if (dialect === undefined) {
    throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')} (got "${name}")`);
  }
  return dialect;
}

async function sessions(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, { json: { type: 'boolean' } }, SESSIONS_HELP, io);
  if (parsed === undefined) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected ${positionals[0]}`);
  const list = await clientFrom(values, io.env).sessions();
  io.out(values.json === true ? `${terminalSafeJson(list)}\n` : await table(list));
  return 0;
}

/**
 * Loaded only by the commands that print tables: `exec` stays free of packages
 * (text-table.ts measures widths with string-width).
 */
async function textTable(header: readonly string[], rows: readonly string[][]): Promise<string> {
  const { textTable: format } = await import('./text-table.ts');
  return format(header, rows);
}

async function table(list: readonly SessionInfo[]): Promise<string> {
  const header = ['ID', 'AGENT', 'DIALECT', 'STATE', 'PID', 'COMMAND'];
  const rows = list.map((session) => [
    session.id,
    session.agent ?? `${session.owner ?? '?'} (person)`,
    session.dialect,
    session.state,
    session.pid === null ? '-' : String(session.pid),
    session.command === null ? '' : (session.command.split('\n')[0] ?? ''),
  ]);
  return textTable(header, rows);
}

const HOSTS_HELP = `Usage: jumpseat hosts [--json]

Lists the shell hosts joined to the control plane: name, state (connected, unreachable,
draining), shells and capacity, labels, versions and when it was last heard from. Needs the
admin token.

  --json             print the server's JSON instead of a table

${CONNECTION_HELP}
`;

async function hosts(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, { json: { type: 'boolean' } }, HOSTS_HELP, io);
  if (parsed === undefined) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected ${positionals[0]}`);
  const list = await clientFrom(values, io.env).hosts();
  if (values.json === true) {
    io.out(`${terminalSafeJson(list)}\n`);
    return 0;
  }
  const header = ['NAME', 'STATE', 'SHELLS', 'LABELS', 'DIALECTS', 'VERSION', 'LAST SEEN'];
  const rows = list.map((host) => [
    host.name,
    host.state,
    `${host.shells}/${host.capacity}`,
    Object.entries(host.labels)
      .map(([key, value]) => `${key}=${value}`)
      .join(',') || '-',
    host.dialects.join(','),
    `${host.engineVersion} (link ${host.protocol})`,
    host.lastSeen,
  ]);
  io.out(await textTable(header, rows));
  return 0;
}

async function token(args: readonly string[], io: CliIo): Promise<number> {
  const { runToken, TOKEN_HELP, TOKEN_OPTIONS } = await import('./token-command.ts');
  if (args.length === 0) {
    io.out(TOKEN_HELP);
    return EXIT_USAGE;
  }
  const parsed = parseCommand(args, TOKEN_OPTIONS, TOKEN_HELP, io);
  if (parsed === undefined) return 0;
  io.out(await runToken(clientFrom(parsed.values, io.env), parsed.values, parsed.positionals));
  return 0;
}

async function share(args: readonly string[], io: CliIo): Promise<number> {
  const { runShare, SHARE_HELP, SHARE_OPTIONS } = await import('./share-command.ts');
  const parsed = parseCommand(args, SHARE_OPTIONS, SHARE_HELP, io);
  if (parsed === undefined) return 0;
  io.out(await runShare(clientFrom(parsed.values, io.env), parsed.values, parsed.positionals));
  return 0;
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch's "fetch failed" hides the reason (ECONNREFUSED…) in its cause.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
