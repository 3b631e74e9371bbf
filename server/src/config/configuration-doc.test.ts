import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { optionTable, withOptionTable } from './configuration-doc.ts';
import { FLAGS } from './flags.ts';

const PAGE = new URL('../../../docs/configuration.md', import.meta.url);

describe('docs/configuration.md', () => {
  it('holds the option table as the flag table writes it (run npm run docs:config)', () => {
    const committed = readFileSync(PAGE, 'utf8');
    expect(committed).toBe(withOptionTable(committed));
  });

  it('has a row for every flag, with its variable', () => {
    const table = optionTable();
    for (const [name, flag] of Object.entries(FLAGS)) {
      expect(table).toContain(`| \`--${name}`);
      if ('env' in flag) expect(table).toContain(`\`${flag.env}`);
    }
    expect(table).toContain(
      '| `--tls-cert FILE` | `JUMPSEAT_TLS_CERT` | none (plain HTTP) | PEM certificate',
    );
  });
});
