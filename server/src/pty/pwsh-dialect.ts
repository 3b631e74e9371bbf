/**
 * pwsh: PowerShell 7 as a second dialect of the same engine. The same private marks as bash,
 * printed by a controlled `prompt` function and two small wrapper functions; a call's command
 * is written to a private file and run by a fixed call line, so no byte of it passes through
 * a line editor and the wrapper never reaches `Get-History` or a result.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DialectContext, ShellDialect, ShellLaunch } from './dialect.ts';
import { MARK_IDENT } from './marks.ts';

const INTEGRATION_FILE = 'integration.ps1';

/** Typed to run one call (the functions are defined by the integration). */
const CALL_LINE =
  '__jumpseat_pre; . $__jumpseat_sb; Microsoft.PowerShell.Core\\Set-PSDebug -Off; __jumpseat_post';

/**
 * The integration. Notes on its choices:
 * - it runs through `-NoExit -Command` before the first prompt, so UTF-8, plain rendering,
 *   quiet progress and concise errors hold before anything else runs, and the start needs no
 *   typed line; PSReadLine is removed there, before it reads a single key: it would draw every
 *   typed line with colours and predictions, record it in its history file, and redraw at
 *   absolute cursor positions. pwsh's own line reader remains (a human at the keyboard can
 *   `Import-Module PSReadLine`);
 * - the command runs dot-sourced from the call line itself, at global scope, so variables,
 *   functions and `$LASTEXITCODE` persist as if typed. It is never wrapped in `try`: inside a
 *   try block a statement-terminating error (a failing .NET method) would end the whole
 *   command, where at a prompt the next statement runs;
 * - the exit status: `__jumpseat_post` runs only when the command was not ended by a
 *   terminating error, and takes `$LASTEXITCODE` when a native program set it during this
 *   call (the variable then holds a new object: compared by reference, so a second failure
 *   with the same code still counts); otherwise 0, whatever non-terminating errors printed.
 *   When post never ran, an error recorded in `$Error` since the start means a terminating
 *   error (status 1); no error means the pipeline was stopped, by Ctrl-C (status 130);
 * - the end mark is printed by `prompt`, not by post: pwsh formats a pipeline's output (tables
 *   wait for their column widths) and prints a terminating error only when the whole line has
 *   finished, and the prompt comes after all of that;
 * - marks go to /dev/tty through a stream of their own, so redirections and transcripts of the
 *   command cannot swallow them;
 * - the host records every line it reads in `Get-History`: the prompt takes the call line (and
 *   the install line) out again and records the command itself, as typed by the agent;
 * - a command that replaces `prompt` is chained, not clobbered: post keeps the new function
 *   as the text of the prompt and puts the marked one back;
 * - the call's nonce is the command file's first line; pre empties the file once read (as for
 *   bash, so the engine knows whether a failed call line ran the command) and the prompt
 *   forgets the script block, so a broken call line can never run a command twice;
 * - \`Set-PSDebug -Trace\` would print the wrapper's own source into results: tracing is switched
 *   off after the command (on the call line: the one trace line a command that switches it on
 *   gets) and again in pre, so a command's trace covers that command only;
 * - the state lives in \`$global:__jumpseat\`, re-created by \`__jumpseat_state\` when a command
 *   removed it; the nonce is written into the mark function itself;
 * - the ready mark carries \`$PID\`: a pwsh installed as a .NET tool runs as a child of a small
 *   launcher, and the engine must know which process is the shell reading the terminal. Its
 *   process name is set to `pwsh` for `[waiting for input: pwsh]`.
 */
function integrationScript(context: DialectContext, installLine: string): string {
  const file = psQuote(context.commandFile);
  return `# jumpseat shell integration for pwsh; run at start, and again if a command broke it.
[Console]::InputEncoding = [Console]::OutputEncoding = $OutputEncoding = [Text.UTF8Encoding]::new($false)
Microsoft.PowerShell.Core\\Remove-Module PSReadLine -ErrorAction Ignore
$PSStyle.OutputRendering = 'PlainText'
$ProgressPreference = 'SilentlyContinue'
$ErrorView = 'ConciseView'
try { [IO.File]::WriteAllText("/proc/$PID/comm", 'pwsh') } catch { }
if ($global:__jumpseat -is [hashtable] -and $global:__jumpseat.tty) {
  $global:__jumpseat.tty.Dispose()
  $global:__jumpseat = $null
}
$global:__jumpseat_sb = $null
function global:__jumpseat_state {
  if ($global:__jumpseat -is [hashtable] -and $global:__jumpseat.n) { return $global:__jumpseat }
  $global:__jumpseat = @{
    n = '${context.nonce}'; file = ${file}
    callLine = ${psQuote(CALL_LINE)}; installLine = ${psQuote(installLine.trim())}
    pending = $false; posted = $false; status = 0; call = ''; command = ''
    exitRef = $null; errorRef = $null; parseError = $null; userPrompt = $null; prompt = $null
    tty = [IO.FileStream]::new('/dev/tty', [IO.FileMode]::Open, [IO.FileAccess]::Write)
  }
  $global:__jumpseat
}
function global:__jumpseat_mark([string]$e, [string]$d) {
  $t = (__jumpseat_state).tty
  $b = [Text.Encoding]::ASCII.GetBytes("\`e]${MARK_IDENT};${context.nonce};$e;$d\`a")
  $t.Write($b, 0, $b.Length)
  $t.Flush()
}
function global:__jumpseat_pre {
  Microsoft.PowerShell.Core\\Set-PSDebug -Off
  $j = __jumpseat_state
  $text = [IO.File]::ReadAllText($j.file, [Text.UTF8Encoding]::new($false))
  [IO.File]::WriteAllText($j.file, '')
  $nl = $text.IndexOf("\`n")
  $j.call = $text.Substring(0, $nl)
  $j.command = $text.Substring($nl + 1)
  try { $global:__jumpseat_sb = [scriptblock]::Create($j.command) }
  catch {
    $j.parseError = $_.Exception.InnerException
    $global:__jumpseat_sb = { throw $global:__jumpseat.parseError }
  }
  $v = $ExecutionContext.SessionState.PSVariable.Get('LASTEXITCODE')
  $j.exitRef = if ($v) { $v.Value } else { $null }
  $j.errorRef = if ($global:Error.Count) { $global:Error[0] } else { $null }
  $j.pending = $true
  $j.posted = $false
  $j.status = 0
  __jumpseat_mark S $j.call
}
function global:__jumpseat_post {
  $j = __jumpseat_state
  $global:__jumpseat_sb = $null
  $v = $ExecutionContext.SessionState.PSVariable.Get('LASTEXITCODE')
  if ($v -and -not [object]::ReferenceEquals($v.Value, $j.exitRef)) {
    try { $j.status = [int]$v.Value } catch { $j.status = 1 }
  }
  $j.posted = $true
  $p = \${function:global:prompt}
  if ($j.prompt -and -not [object]::ReferenceEquals($p, $j.prompt)) {
    $j.userPrompt = $p
    \${function:global:prompt} = $j.prompt
  }
}
function global:prompt {
  $j = __jumpseat_state
  $global:__jumpseat_sb = $null
  $recorded = $null
  foreach ($h in @(Microsoft.PowerShell.Core\\Get-History -Count 3)) {
    $line = $h.CommandLine.Trim()
    if ($line -ceq $j.callLine -or $line -ceq $j.installLine) {
      Microsoft.PowerShell.Core\\Clear-History -Id $h.Id
      if ($line -ceq $j.callLine) { $recorded = $h }
    }
  }
  if ($j.pending) {
    $j.pending = $false
    if ($recorded) {
      Microsoft.PowerShell.Core\\Add-History -InputObject ([pscustomobject]@{
        CommandLine = $j.command; ExecutionStatus = $recorded.ExecutionStatus
        StartExecutionTime = $recorded.StartExecutionTime; EndExecutionTime = $recorded.EndExecutionTime
      })
    }
    $s = if ($j.posted) { $j.status }
      elseif ($global:Error.Count -and -not [object]::ReferenceEquals($global:Error[0], $j.errorRef)) { 1 }
      else { 130 }
    __jumpseat_mark E "$($j.call);$s"
  }
  __jumpseat_mark A ''
  $text = $null
  if ($j.userPrompt) { try { $text = -join (& $j.userPrompt) } catch { } }
  if (-not $text) {
    $text = "PS $($ExecutionContext.SessionState.Path.CurrentLocation)$('>' * ($NestedPromptLevel + 1)) "
  }
  "$text\`e]${MARK_IDENT};$($j.n);B;\`a"
}
(__jumpseat_state).prompt = \${function:global:prompt}
__jumpseat_mark R $PID
`;
}

/** A pwsh dialect running the PowerShell 7 executable at `executable`. */
export function pwshDialect(executable: string): ShellDialect {
  const scriptOf = (context: DialectContext) => join(context.privateDir, INTEGRATION_FILE);
  const installLine = (context: DialectContext) => `. ${psQuote(scriptOf(context))}`;
  return {
    name: 'pwsh',
    launch(context: DialectContext): ShellLaunch {
      // Written now, not in install(): the launch runs it, and pwsh may be up before an
      // asynchronous write has finished.
      writeFileSync(scriptOf(context), integrationScript(context, installLine(context)), {
        mode: 0o600,
      });
      return {
        // .NET gives programs pwsh starts the terminal settings it found at its own start,
        // so echo goes off before pwsh starts: `cat` then echoes nothing typed, as in bash.
        // `exec` keeps the pid, so the PTY's process is pwsh itself.
        file: '/bin/sh',
        args: [
          '-c',
          'stty -echo 2>/dev/null; exec "$0" "$@"',
          executable,
          '-NoLogo',
          '-NoProfile',
          '-NoExit',
          '-Command',
          installLine(context),
        ],
        env: { NO_COLOR: '1', POWERSHELL_TELEMETRY_OPTOUT: '1', POWERSHELL_UPDATECHECK: 'Off' },
        integrated: true,
        leadsProcessGroup: false,
      };
    },
    // launch() already wrote the script; typing this line again re-runs it (a repair).
    async install(context: DialectContext): Promise<string> {
      return `${installLine(context)}\r`;
    },
    callLine: () => `${CALL_LINE}\r`,
    // pwsh's line reader asks where the cursor is before every prompt and every read.
    answersCursorQueries: true,
    hostEchoesInput: true,
  };
}

/** A PowerShell single-quoted string: only quotes are special (PowerShell also takes the
 *  typographic single quotes as quotes), each doubled. */
function psQuote(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201a\u201b]/g, '$&$&')}'`;
}
