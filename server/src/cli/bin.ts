/**
 * The process behind `bin/jumpseat.js`: `jumpseat serve …` runs the server; every other
 * command runs through runCli with this process's streams, environment and Ctrl-C.
 */

const [command, ...rest] = process.argv.slice(2);
if (command === 'serve') {
  // Loaded only for serve: the server's modules take a second or more to load.
  const { serveOrExit } = await import('../serve.ts');
  serveOrExit(rest, 'jumpseat serve');
} else if (command === 'host') {
  // A host runs the engine, not the HTTP server: loaded only for it.
  const { runHost } = await import('../host/host-command.ts');
  runHost(rest).catch((error: unknown) => {
    process.stderr.write(
      `jumpseat host: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
} else {
  const { runCli } = await import('./main.ts');
  const interrupt = new AbortController();
  // The first Ctrl-C cancels the call in flight (the server resets that shell).
  process.once('SIGINT', () => interrupt.abort());
  const status = await runCli(process.argv.slice(2), {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    interrupt: interrupt.signal,
  });
  process.exitCode = status;
}
