#!/usr/bin/env node
// The `jumpseat` command. The CLI is TypeScript, run through tsx (a dependency), as `npm
// start` runs the server.
import { register } from 'tsx/esm/api';

register();
await import('../server/src/cli/bin.ts');
