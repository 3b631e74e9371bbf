import { describe, expect, it } from 'vitest';
import { stripBasePath } from './base-path-routing.ts';

describe('stripBasePath', () => {
  it('routes a path under the base as the path below it', () => {
    expect(stripBasePath('/jumpseat/api/sessions?state=ended', '/jumpseat/')).toBe(
      '/api/sessions?state=ended',
    );
    expect(stripBasePath('/jumpseat/', '/jumpseat/')).toBe('/');
    expect(stripBasePath('/jumpseat', '/jumpseat/')).toBe('/');
    expect(stripBasePath('/jumpseat?x=1', '/jumpseat/')).toBe('/?x=1');
    expect(stripBasePath('/a/b/login?token=t', '/a/b/')).toBe('/login?token=t');
  });

  it('leaves other paths alone: a stripping proxy, a name that only starts alike', () => {
    expect(stripBasePath('/api/sessions', '/jumpseat/')).toBe('/api/sessions');
    expect(stripBasePath('/jumpseats/x', '/jumpseat/')).toBe('/jumpseats/x');
    expect(stripBasePath('/api/x', '/')).toBe('/api/x');
  });
});
