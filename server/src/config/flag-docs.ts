/**
 * The documentation of every flag: its default and meaning as docs/configuration.md gives them
 * (`npm run docs:config` writes that table from FLAGS and this). Keyed by the flags' names, so a
 * flag without its documentation does not compile.
 */
import type { FlagName } from './flags.ts';

export interface FlagDoc {
  /** Markdown; empty for a switch with nothing to default. */
  readonly default: string;
  /** Markdown. */
  readonly meaning: string;
}

export const FLAG_DOCS: Readonly<Record<FlagName, FlagDoc>> = {
  config: {
    default: '—',
    meaning: 'a YAML (or JSON) file of settings, the lowest layer (see above)',
  },
  host: { default: '`127.0.0.1`', meaning: 'address to listen on' },
  port: { default: '`7400`', meaning: 'port; `0` picks a free one (the banner says which)' },
  'public-url': {
    default: '—',
    meaning:
      "the address people reach jumpseat at (`https://js.example.com/`): share links, the banner and the web app's links use it; a browser page on its origin passes the Origin check of `/mcp` and live sockets even when a proxy rewrites `Host`",
  },
  'trust-proxy': {
    default: 'none',
    meaning:
      'the reverse proxies (addresses, CIDRs like `10.0.0.0/8`, or `loopback`, `linklocal`, `uniquelocal`) whose `X-Forwarded-For`, `-Proto` and `-Host` count; the forwarded host then passes the Origin check. Off by default: from anyone else those headers are ignored',
  },
  'base-path': {
    default: 'the path of `--public-url`, else `/`',
    meaning:
      'the path jumpseat is served under behind a proxy (`/jumpseat/`): requests are routed with it (a proxy that passes the path on) or without it (one that strips it); the web app, its API calls, live sockets, login and share links all go under it',
  },
  'tls-cert': {
    default: 'none (plain HTTP)',
    meaning:
      'PEM certificate (with its chain) to serve HTTPS and WSS with, together with `--tls-key`; the pair is checked at start, and read again on `SIGHUP` so a renewed certificate needs no restart (new connections get it)',
  },
  'tls-key': { default: '—', meaning: "PEM private key of `--tls-cert`'s certificate" },
  'token-file': { default: '—', meaning: 'file holding the admin token' },
  'data-dir': {
    default: '`./.jumpseat`',
    meaning:
      'state: admin token, minted tokens (hashed), saved outputs, history (`history.db`, `recordings/`)',
  },
  workspace: {
    default: '`~/.local/share/jumpseat/workspaces` (`$XDG_DATA_HOME` first)',
    meaning:
      "the root of the shells' directories: an agent works in `<DIR>/<agent>`, a person's own shell in `<DIR>/_people/<token id>`, each made on first use; must exist when given, and neither lie in the data dir nor hold it",
  },
  'shared-workspace': {
    default: 'off',
    meaning: "every shell works in `<DIR>` itself (agents then see each other's files)",
  },
  sandbox: {
    default: '`auto`',
    meaning:
      "`auto`: bubblewrap where it works, else unsandboxed with a warning in the banner; `bwrap`: refuse to start without a working sandbox; `off` (see the README's *Security model*)",
  },
  readable: {
    default: '—',
    meaning:
      'a directory every sandboxed shell may read, not write, at its own path (a project whose programs the shells run); not `/`, nor a directory that holds the home, the temp dir, the data dir or the workspace root, nor inside the data dir or the workspace root (the server refuses to start, naming the flag); read as the shell user when the server is root, so its files must be readable by others',
  },
  'shell-user': {
    default: '`jumpseat-shell` (made if missing)',
    meaning: 'when the server is root, the unprivileged user sandboxed shells run as; never root',
  },
  network: {
    default: '`on`',
    meaning:
      "`on`: each sandbox has a network of its own with egress over IPv4 and IPv6 (slirp4netns), never the host's loopback; `off`: a loopback of its own only; `host`: the host's network, loopback included",
  },
  'max-processes': {
    default: '`1024`',
    meaning: 'processes one shell may have at once (at least 16)',
  },
  'max-memory': {
    default: '`4G`',
    meaning:
      'memory one shell may use, its tmpfs files included, no swap, e.g. `512M`, `2G` (at least 64M); `off` for no limit',
  },
  'tmp-size': {
    default: '`1G`',
    meaning: 'size of each tmpfs of a sandbox: /tmp, /dev/shm, the hidden home and /run',
  },
  'cpu-weight': {
    default: '`100`',
    meaning: "one shell's share of the CPU against the others, 1-10000",
  },
  'cpu-max': { default: '`off`', meaning: 'CPUs one shell may use at most, e.g. 1.5' },
  'workspace-quota': {
    default: '`10G`',
    meaning: 'disk one workspace may hold, as a file system of its own (root only)',
  },
  'timeout-ms': { default: '`300000`', meaning: 'wall-clock limit of one call' },
  'max-output-chars': { default: '`16000`', meaning: 'output characters returned before clipping' },
  clip: { default: '`head`', meaning: '`head`, or `head-tail` to keep the start and the end' },
  'bash-timeout-ms': {
    default: 'the general value',
    meaning: 'bash only: overrides --timeout-ms for this dialect',
  },
  'pwsh-timeout-ms': {
    default: 'the general value',
    meaning: 'pwsh only: overrides --timeout-ms for this dialect',
  },
  'bash-max-output-chars': {
    default: 'the general value',
    meaning: 'bash only: overrides --max-output-chars for this dialect',
  },
  'pwsh-max-output-chars': {
    default: 'the general value',
    meaning: 'pwsh only: overrides --max-output-chars for this dialect',
  },
  pwsh: {
    default: '`pwsh` on `PATH`, else `~/.dotnet/tools/pwsh`',
    meaning: 'the PowerShell 7 executable; must be an executable file when given',
  },
  'pass-env': {
    default: '—',
    meaning:
      'server variables shells get beyond the allowlist (`PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `TERM`, `TZ`, `TMPDIR`, `LANG`, `LANGUAGE`, `LC_*`); repeatable; the former `--env-pass`/`JUMPSEAT_ENV_PASS` is still read (see [security-model.md](security-model.md))',
  },
  'env-pass': { default: '—', meaning: 'the former name of --pass-env; still read' },
  'control-idle-ms': {
    default: '`900000`',
    meaning:
      "a controller who types nothing this long hands an agent's shell back (warned a minute before)",
  },
  'record-keystrokes': {
    default: '`off`',
    meaning: "put controllers' keystrokes in recordings (they can hold passwords)",
  },
  'recording-max-file-bytes': {
    default: '`67108864` (64 MiB)',
    meaning: 'a recording rotates to its next part past this size (at least 4096)',
  },
  'recording-max-total-bytes': {
    default: '`1073741824` (1 GiB)',
    meaning:
      "held as bytes are written: the oldest recordings of ended shells are deleted to make room; past that a live shell's new output is not recorded, and a marker in its recording says so (another when recording resumes); at least 65536",
  },
  'recording-max-age-days': {
    default: '`30`',
    meaning:
      'recording files not written for this long are deleted; past shells that ended, and auth events, longer ago are forgotten',
  },
  'needs-human-after-ms': {
    default: '`2000`',
    meaning: 'a shell waiting for input longer than this is marked "needs a human" in the web app',
  },
  log: { default: '`off`', meaning: 'structured logs (pino); tokens are never logged' },
  'live-per-token': {
    default: '`32`',
    meaning:
      'live WebSockets (shell streams and dashboards) one token may have open at once; past it a new one is closed with code 4429 and the reason',
  },
  'live-per-shell': {
    default: '`64`',
    meaning:
      'viewers one shell may have at once; past it a new one is closed with code 4429 and the reason',
  },
  'input-pending-max-bytes': {
    default: '`262144` (256 KiB)',
    meaning:
      "a controller's keys waiting for a shell that does not read them (ours and the terminal's queue); past it a frame of keys is dropped, not queued, and the controller is told (`input_dropped`); Ctrl-C is never dropped (at least 1024)",
  },
  'mcp-sessions-per-token': {
    default: '`64`',
    meaning:
      "MCP sessions one token may have open; a new one past it ends that token's own least recently used idle session (never another token's), or is refused with `429 TOO_MANY_MCP_SESSIONS` when all of its own are running calls",
  },
  help: { default: '', meaning: 'print the usage and exit' },
  'audit-max-rows': {
    default: '`100000`',
    meaning:
      'rows the auth audit keeps (at least 100); past it the oldest refusals and first uses go first, then the oldest of the rest',
  },
  'spill-max-file-bytes': {
    default: '`268435456` (256 MiB)',
    meaning:
      "a clipped call's saved full output is cut past this size, with a line saying so (at least 65536)",
  },
  'spill-max-agent-bytes': {
    default: '`1073741824` (1 GiB)',
    meaning:
      "one agent's saved outputs together, held as they are written: its oldest go first, then the file being written is cut",
  },
  database: {
    default: 'the embedded SQLite in the data dir',
    meaning:
      'a `postgres://user:password@host:5432/db` URL: the control plane keeps its state in PostgreSQL, and replicas pointed at the same database share it (README, *High availability*). Give it as `JUMPSEAT_DATABASE_URL` rather than the flag, which any user can read in `ps`; the banner and errors show it with the password masked',
  },
  'replica-url': {
    default:
      'its listening address (`http://HOST:PORT` under the base path; on `0.0.0.0` the first address of this machine)',
    meaning:
      'with `--database` and `--local-shells off`: the `http(s)://` URL at which the other replicas reach this one, which they dial to reach the hosts linked here (docs/high-availability.md). Set it when the listening address is not what the other replicas can reach (a container, NAT, a wildcard address)',
  },
  'local-shells': {
    default: '`on`',
    meaning:
      '`off`: a pure control plane; every shell runs on a host joined with `jumpseat host --join URL` (see [scaling.md](scaling.md))',
  },
  'host-grace-ms': {
    default: '`60000`',
    meaning:
      "how long a joined host's shells (and calls running on them) wait for its link to come back before they are lost",
  },
  'spill-max-total-bytes': {
    default: '`4294967296` (4 GiB)',
    meaning: "every agent's saved outputs together, the same way",
  },
};
