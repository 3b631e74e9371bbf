import { describe, expect, it } from 'vitest';
import { loginUrl, serverUrl } from './urls.ts';

describe('banner URLs', () => {
  it.each([
    ['127.0.0.1', 7400, 'http://127.0.0.1:7400/'],
    ['localhost', 80, 'http://localhost:80/'],
    ['::1', 9000, 'http://[::1]:9000/'],
    ['::', 1234, 'http://[::]:1234/'],
  ])('writes %s port %d as %s', (host, port, url) => {
    expect(serverUrl(host, port)).toBe(url);
  });

  it('URL-encodes the token of the login URL', () => {
    expect(loginUrl('http://[::1]:9000/', 'a+b/c=&d')).toBe(
      'http://[::1]:9000/login?token=a%2Bb%2Fc%3D%26d',
    );
  });
});
