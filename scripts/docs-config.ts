// `npm run docs:config`: writes the option table of docs/configuration.md from the flag table.
import { readFileSync, writeFileSync } from 'node:fs';
import { withOptionTable } from '../server/src/config/configuration-doc.ts';

const PAGE = new URL('../docs/configuration.md', import.meta.url);
const before = readFileSync(PAGE, 'utf8');
const after = withOptionTable(before);
writeFileSync(PAGE, after);
console.log(
  before === after ? 'docs/configuration.md: up to date' : 'docs/configuration.md: rewritten',
);
