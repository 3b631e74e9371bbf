/**
 * The process behind `bin/jumpseat.js`: `jumpseat serve …` runs the server; every other
 * command runs through runCli with this process's streams, environment and Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [command, ...rest] = process.argv.slice(2);
if (command === 'serve') {
  // As `npm start`'s prestart does: build the web app when it is missing or stale (not just
  // to print the help).
  if (!rest.some((arg) => arg === '--help' || arg === '-h')) {
    const script = fileURLToPath(
      new URL('../../../scripts/build-web-if-stale.mjs', import.meta.url),
    );
    execFileSync(process.execPath, [script], { stdio: 'inherit' });
  }
  // Loaded only for serve: the server's modules take a second or more to load.
  const { serveOrExit } = await import('../serve.ts');
  serveOrExit(rest, 'jumpseat serve');
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
