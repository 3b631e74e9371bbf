import { describe, expect, it } from 'vitest';
import { readBasePath } from './base-path.ts';

const flag = (raw: string) => ({ raw, source: '--base-path' });

describe('--base-path', () => {
  it('is / by default, else the path of --public-url', () => {
    expect(readBasePath(undefined, null)).toBe('/');
    expect(readBasePath(undefined, 'https://tools.example/jumpseat/')).toBe('/jumpseat/');
  });

  it('starts and ends with a slash whichever way it is written', () => {
    expect(readBasePath(flag('/jumpseat/'), null)).toBe('/jumpseat/');
    expect(readBasePath(flag('jumpseat'), null)).toBe('/jumpseat/');
    expect(readBasePath(flag('/a/b'), null)).toBe('/a/b/');
    expect(readBasePath(flag('/'), null)).toBe('/');
  });

  it('refuses what is not a plain URL path', () => {
    for (const raw of ['/a//b/', '/a/../b/', '/a b/', '/a?x/', '/a#x', '/"x"/', '/./']) {
      expect(() => readBasePath(flag(raw), null), raw).toThrow(
        `--base-path must be a URL path such as /jumpseat/ (got ${JSON.stringify(raw)})`,
      );
    }
  });

  it('must agree with the path of --public-url, which is where browsers see jumpseat', () => {
    expect(readBasePath(flag('/jumpseat'), 'https://tools.example/jumpseat/')).toBe('/jumpseat/');
    expect(readBasePath(flag('/jumpseat/'), 'https://tools.example/')).toBe('/jumpseat/');
    expect(() => readBasePath(flag('/js/'), 'https://tools.example/jumpseat/')).toThrow(
      '--base-path (/js/) and the path of --public-url (/jumpseat/) must be the same: both are where browsers see jumpseat',
    );
  });
});
