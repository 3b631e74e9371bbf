/**
 * pwsh: PowerShell 7 as a second dialect of the same engine. The same private marks as bash,
 * printed by a controlled `prompt` function and two small wrapper functions; a call's command
 * is written to a private file and run by a fixed call line, so no byte of it passes through
 * a line editor and the wrapper never reaches `Get-History` or a result.
 */
import type { DialectContext, ShellDialect, ShellLaunch } from './dialect.ts';
import { MARK_IDENT } from './marks.ts';

const INTEGRATION_FILE = 'integration.ps1';

/** Typed to run one call (the functions are defined by the integration). */
const CALL_LINE = '__jumpseat_pre; . $__jumpseat_sb';

/**
 * The state, found without a call to `__jumpseat_state` while it exists: a command may have
 * removed that function (`Remove-Item function:*`), and then no prompt printed a mark again.
 */
/** Whether the state is there (a command may have removed it: see CALL_BACK). */
const STATE_HELD = '($global:__jumpseat -is [hashtable] -and $global:__jumpseat.n)';
const STATE = `$(if ${STATE_HELD} { $global:__jumpseat } else { __jumpseat_state })`;

/** In post: the integration's functions a command removed or redefined, put back. */
const RESTORE_FUNCTIONS = ['pre', 'post', 'state']
  .map(
    (name) =>
      `if ($j.${name} -and -not [object]::ReferenceEquals(\${function:global:__jumpseat_${name}}, $j.${name})) { \${function:global:__jumpseat_${name}} = $j.${name} }`,
  )
  .join('\n  ');

/** Marks every integration function: no trace line and no breakpoint stop inside it. */
const HIDDEN = '[System.Diagnostics.DebuggerHidden()] param()';

/**
 * In post, when the command removed the state (\`Remove-Variable __jumpseat*\`, or every
 * variable) and \`__jumpseat_state\` made it afresh: the call in flight, from the taken file
 * (its nonce alone while the command runs) and the command file, so that the call ends with
 * its end mark, not as cut short at the prompt (\`[exit code: 130]\`). What the command
 * failed with before post (its \`$LASTEXITCODE\`, its errors) can no longer be told from what
 * earlier calls left: it ends with status 0. The functions as they are now are kept again for
 * post to put back (as the ready block keeps them).
 */
const CALL_BACK = `if ($lost) {
    $j.pre = \${function:global:__jumpseat_pre}; $j.post = \${function:global:__jumpseat_post}; $j.state = \${function:global:__jumpseat_state}
    $j.exitRef = $global:LASTEXITCODE
    $j.errorRef = if ($global:Error.Count) { $global:Error[0] } else { $null }
    $t = try { [IO.File]::ReadAllText($j.taken).TrimEnd() } catch { '' }
    if ($t -and -not $t.Contains(';')) {
      $text = [IO.File]::ReadAllText($j.file, [Text.UTF8Encoding]::new($false))
      $text = $text.Substring(0, $text.IndexOf([char]0))
      $j.call = $t; $j.command = $text.Substring($text.IndexOf("\`n") + 1); $j.pending = $true
    }
  }`;

/** The runner the call line dot-sources (see `run` in the integration): one line, no file. */
const RUN_BLOCK =
  `${HIDDEN} if ($global:__jumpseat.failed) { Microsoft.PowerShell.Utility\\Write-Error -Message '?' -ErrorAction Ignore }; ` +
  ". $global:__jumpseat.user; Microsoft.PowerShell.Core\\Set-PSDebug -Off; & ($global:__jumpseat.post ?? '__jumpseat_post')";

/**
 * Writes one mark to the terminal through the state `$j`. Inlined, not a function: a command
 * can redefine any function (`function global:__jumpseat_mark { }`), not the integration's
 * own statements.
 */
function markStatement(nonce: string, event: string, data: string): string {
  return `$b = [Text.Encoding]::ASCII.GetBytes("\`e]${MARK_IDENT};${nonce};${event};${data}\`a"); $j.tty.Write($b, 0, $b.Length); $j.tty.Flush()`;
}

/**
 * Removes breakpoints a command set on the integration (its functions, its variables, its
 * file, the prompt): they would stop the shell in the debugger with the wrapper's source on
 * screen. Through the debugger's API, not cmdlets a breakpoint could be set on.
 */
function removeOwnBreakpoints(script: string): string {
  return `foreach ($bp in [runspace]::DefaultRunspace.Debugger.GetBreakpoints()) {
    if (($bp -is [Management.Automation.CommandBreakpoint] -and ($bp.Command -like '__jumpseat*' -or $bp.Command -eq 'prompt')) -or
      ($bp -is [Management.Automation.VariableBreakpoint] -and $bp.Variable -like '__jumpseat*') -or $bp.Script -eq ${psQuote(script)}) {
      $null = [runspace]::DefaultRunspace.Debugger.RemoveBreakpoint($bp)
    }
  }`;
}

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
 *   error (status 1); no error, or the stop's own `PipelineStoppedException` (recorded when
 *   the stop lands in the integration's steps), means the pipeline was stopped, by Ctrl-C
 *   (status 130). The end mark then says `U` after the status: a stop can also record some
 *   other error (one that lands while pwsh loads the module of the command's first cmdlet
 *   records a `CommandNotFoundException`), so the engine, which knows whether it interrupted
 *   the call, has the last word (CallLine);
 * - the end mark is printed by `prompt`, not by post: pwsh formats a pipeline's output (tables
 *   wait for their column widths) and prints a terminating error only when the whole line has
 *   finished, and the prompt comes after all of that;
 * - marks go to /dev/tty through a stream of their own, so redirections and transcripts of the
 *   command cannot swallow them;
 * - the host records every line it reads in `Get-History`: the prompt takes the call line (and
 *   the install line) out again and records the command itself, as typed by the agent;
 * - a command that replaces `prompt` is chained, not clobbered: post keeps the new function
 *   as the text of the prompt and puts the marked one back;
 * - the call's nonce is the command file's first line; pre writes it to the taken file once
 *   read (as for bash, so the engine knows whether a failed call line ran the command) and the prompt
 *   forgets the script block, so a broken call line can never run a command twice; the prompt
 *   adds the status there before it prints the end mark (see bash's post);
 * - the command can reach every name of the integration (issue 22.4). \`Set-PSDebug -Trace\`
 *   would print the wrapper's source, a breakpoint on one of its functions would stop in the
 *   debugger with it on screen: every function of it is \`DebuggerHidden\` (no trace line, no
 *   stop inside), the command is dot-sourced by a hidden runner (the call line's statements
 *   after it would be traced), tracing goes off in the runner, pre and the prompt (post never
 *   runs after a terminating error), and post and the prompt remove breakpoints set on the
 *   integration. A redefined function changes nothing that matters: marks are written by
 *   inlined statements, never by a function a command could replace; the runner calls post
 *   through the state, pre, post and the prompt find the state without its function, and post
 *   puts back the integration's functions a command removed or redefined (\`Remove-Item
 *   function:*\` left every later call ending \`PS>\` and waiting). Not covered: a command
 *   that removes both the functions and every variable (nothing of the integration is left to
 *   find; each later call then ends waiting), and one that switches the session to another
 *   \`LanguageMode\` (the runner can no longer be dot-sourced; a function of ours sees
 *   \`FullLanguage\` while it runs, so the integration cannot tell);
 * - the state lives in \`$global:__jumpseat\`, re-created by \`__jumpseat_state\` when a command
 *   removed it; the nonce is written into the mark statements themselves;
 * - the ready mark carries \`$PID\`: a pwsh installed as a .NET tool runs as a child of a small
 *   launcher, and the engine must know which process is the shell reading the terminal. Its
 *   process name is set to `pwsh` for `[waiting for input: pwsh]`.
 */
function integrationScript(context: DialectContext, script: string, installLine: string): string {
  const file = psQuote(context.commandFile);
  const mark = (event: string, data: string) => markStatement(context.nonce, event, data);
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
  ${HIDDEN}
  if ${STATE_HELD} { return $global:__jumpseat }
  $global:__jumpseat = @{
    n = '${context.nonce}'; file = ${file}; taken = ${psQuote(context.takenFile)}
    callLine = ${psQuote(CALL_LINE)}; installLine = ${psQuote(installLine.trim())}
    pending = $false; posted = $false; status = 0; call = ''; command = ''; failed = $false
    script = ${psQuote(script)}
    exitRef = $null; errorRef = $null; parseError = $null; userPrompt = $null; prompt = $null
    user = $null
    # Dot-sourced by the call line, so it sets no variable (it runs at global scope). Hidden
    # from the debugger: once the command switched tracing on, no step of this shows.
    # \`$?\` as the line before left it: false after a failure (an error it ignores sets it).
    # Made from text, on one line: the command's \`$MyInvocation\` is this block's line, and
    # an error view shows where that is (\`Write-Error\` at the top of the command came back
    # with this file's path and line) unless it is line 1 of no file, as at a prompt.
    run = [scriptblock]::Create(${psQuote(RUN_BLOCK)})
    tty = [IO.FileStream]::new('/dev/tty', [IO.FileMode]::Open, [IO.FileAccess]::Write)
  }
  $global:__jumpseat
}
function global:__jumpseat_pre {
  ${HIDDEN}
  Microsoft.PowerShell.Core\\Set-PSDebug -Off
  $j = ${STATE}
  $text = [IO.File]::ReadAllText($j.file, [Text.UTF8Encoding]::new($false))
  $text = $text.Substring(0, $text.IndexOf([char]0))
  ${lastTokens('$j')}
  $nl = $text.IndexOf("\`n")
  $j.call = $text.Substring(0, $nl)
  [IO.File]::WriteAllText($j.taken, $j.call)
  $j.command = $text.Substring($nl + 1)
  try { $j.user = [scriptblock]::Create($j.command) }
  catch {
    $j.parseError = $_.Exception.InnerException
    $j.user = { throw $global:__jumpseat.parseError }
  }
  $global:__jumpseat_sb = $j.run
  $v = $ExecutionContext.SessionState.PSVariable.Get('LASTEXITCODE')
  $j.exitRef = if ($v) { $v.Value } else { $null }
  $j.errorRef = if ($global:Error.Count) { $global:Error[0] } else { $null }
  $j.pending = $true
  $j.posted = $false
  $j.status = 0
  ${mark('S', '$($j.call)')}
}
function global:__jumpseat_post {
  ${HIDDEN}
  $lost = -not ${STATE_HELD}
  $j = ${STATE}
  ${CALL_BACK}
  ${removeOwnBreakpoints(script)}
  $global:__jumpseat_sb = $null
  $j.user = $null
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
  ${RESTORE_FUNCTIONS}
}
function global:prompt {
  ${HIDDEN}
  $ok = $?
  # After a terminating error the command's tracing is still on, and post never ran.
  Microsoft.PowerShell.Core\\Set-PSDebug -Off
  $j = ${STATE}
  ${removeOwnBreakpoints(script)}
  $global:__jumpseat_sb = $null
  $j.user = $null
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
    # Types told by name: a type literal here cost pwsh's start-up 1.7 s (its resolution).
    $e = if ($global:Error.Count -and -not [object]::ReferenceEquals($global:Error[0], $j.errorRef)) { $global:Error[0] }
    $n = if ($null -ne $e) { $e.GetType().FullName } else { '' }
    if ($n -ceq 'System.Management.Automation.ErrorRecord') { $n = $e.Exception.GetType().FullName }
    $s = if ($j.posted) { $j.status }
      elseif ($n -and $n -cne 'System.Management.Automation.PipelineStoppedException') { 1 }
      else { 130 }
    $j.failed = $s -ne 0
    # The pipeline did not finish (post never ran): stopped or failed, as far as pwsh can tell.
    $s = if ($j.posted) { "$s" } else { "$s;U" }
    # Recorded before the mark, as bash's post does: pwsh seen reading its terminal from here
    # on is at its prompt with the end mark on its way, never a command waiting for input.
    try { [IO.File]::WriteAllText($j.taken, "$($j.call);$s") } catch { }
    ${mark('E', '$($j.call);$s')}
  } else {
    $j.failed = -not $ok
  }
  ${mark('A', '')}
  $text = $null
  if ($j.userPrompt) { try { $text = -join (& $j.userPrompt) } catch { } }
  if (-not $text) {
    # The home is written ~, as bash writes it.
    $where = "$($ExecutionContext.SessionState.Path.CurrentLocation)"
    if ($HOME -and ($where -ceq $HOME -or $where.StartsWith("$HOME/", [StringComparison]::Ordinal))) {
      $where = '~' + $where.Substring($HOME.Length)
    }
    $text = "PS $where$('>' * ($NestedPromptLevel + 1)) "
  }
  "$text\`e]${MARK_IDENT};$($j.n);B;\`a"
}
& {
  $j = __jumpseat_state
  $j.prompt = \${function:global:prompt}
  $j.pre = \${function:global:__jumpseat_pre}; $j.post = \${function:global:__jumpseat_post}; $j.state = \${function:global:__jumpseat_state}
  ${mark('R', '$PID')}
}
`;
}

/**
 * In pre, before the call's command is read: pwsh has just set \`$^\` and \`$$\` (the first and
 * last token of the line before) from the call line, or from the install line at the first
 * call: words of the wrapper. They become those of the command before, as if it had been
 * typed (a string token's value, as pwsh gives it; comments and line ends skipped), or none
 * before the first. A line a person typed at the prompt keeps what pwsh gave. A command that
 * made either read-only keeps it as it is.
 */
function lastTokens(j: string): string {
  // In a try: a command may have made either read-only, or removed it under strict mode.
  return `try {
  $first = \${global:^}; $last = \${global:$}
  if (($first -ceq '__jumpseat_pre' -and $last -ceq '$__jumpseat_sb') -or ($first -ceq '.' -and $last -ceq ${j}.script)) {
    $first = $last = $null
    if (${j}.command) {
      $tokens = $null
      $null = [System.Management.Automation.Language.Parser]::ParseInput(${j}.command, [ref]$tokens, [ref]$null)
      foreach ($k in $tokens) {
        if ("$($k.Kind)" -cin 'NewLine', 'EndOfInput', 'Comment', 'LineContinuation') { continue }
        $v = if ($k.GetType().Name -clike 'String*Token') { $k.Value } else { $k.Text }
        if ($null -eq $first) { $first = $v }
        $last = $v
      }
    }
    \${global:^} = $first; \${global:$} = $last
  }
  } catch { }`;
}

/** A pwsh dialect running the PowerShell 7 executable at `executable`. */
export function pwshDialect(executable: string): ShellDialect {
  const scriptOf = (context: DialectContext) => `${context.privateDir}/${INTEGRATION_FILE}`;
  const installLine = (context: DialectContext) => `. ${psQuote(scriptOf(context))}`;
  return {
    name: 'pwsh',
    launch(context: DialectContext): ShellLaunch {
      // Written now, not in install(): the launch runs it, and pwsh may be up before an
      // asynchronous write has finished.
      context.deliver(
        INTEGRATION_FILE,
        integrationScript(context, scriptOf(context), installLine(context)),
      );
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
        // SHELL names the shell the session runs, as `login` sets it for a login shell.
        env: {
          NO_COLOR: '1',
          POWERSHELL_TELEMETRY_OPTOUT: '1',
          POWERSHELL_UPDATECHECK: 'Off',
          SHELL: executable,
        },
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
    // pwsh runs its programs in its own group, and its break handler ends pwsh when the
    // SIGINT comes as the pipeline finishes (issue 22).
    ownGroupInterrupt: 'shell-first',
  };
}

/** A PowerShell single-quoted string: only quotes are special (PowerShell also takes the
 *  typographic single quotes as quotes), each doubled. */
function psQuote(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201a\u201b]/g, '$&$&')}'`;
}
