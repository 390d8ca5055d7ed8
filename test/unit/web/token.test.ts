import { describe, expect, it } from 'vitest';
import { newToken, parseCookies, presentedToken, tokenCookie, tokenCookieName, tokenEquals } from '../../../main/web/token';

describe('newToken', () => {
  it('is 32 random bytes in base64url', () => {
    const a = newToken();
    const b = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe('tokenEquals', () => {
  const token = 'abcDEF_-123';
  const cases = [
    { name: 'same', given: token, want: true },
    { name: 'undefined', given: undefined, want: false },
    { name: 'empty', given: '', want: false },
    { name: 'prefix', given: token.slice(0, -1), want: false },
    { name: 'longer', given: `${token}x`, want: false },
    { name: 'case differs', given: token.toLowerCase(), want: false },
  ];
  it.each(cases)('$name', ({ given, want }) => expect(tokenEquals(given, token)).toBe(want));
});

describe('cookies', () => {
  it('names the cookie by port and sets it HttpOnly, SameSite=Strict, Path=/', () => {
    expect(tokenCookieName(7380)).toBe('pilothouse_token_7380');
    expect(tokenCookie(7380, 'T')).toBe('pilothouse_token_7380=T; Path=/; HttpOnly; SameSite=Strict');
  });
  const cases = [
    { name: 'none', header: undefined, want: [] },
    { name: 'one', header: 'a=1', want: [['a', '1']] },
    { name: 'several, spaces', header: 'a=1;  b=2 ; c=x=y', want: [['a', '1'], ['b', '2'], ['c', 'x=y']] },
    { name: 'first wins, junk skipped', header: 'a=1; junk; a=2', want: [['a', '1']] },
  ];
  it.each(cases)('parseCookies: $name', ({ header, want }) => expect([...parseCookies(header)]).toEqual(want));
});

describe('presentedToken', () => {
  const port = 28401;
  const cases = [
    { name: 'query', url: '/?token=T', cookie: undefined, want: { query: 'T', cookie: undefined } },
    { name: 'cookie of this port', url: '/assets/a.js', cookie: 'pilothouse_token_28401=T', want: { query: undefined, cookie: 'T' } },
    { name: 'cookie of another port', url: '/', cookie: 'pilothouse_token_7380=T', want: { query: undefined, cookie: undefined } },
    { name: 'both', url: '/bridge?token=X', cookie: 'a=b; pilothouse_token_28401=T', want: { query: 'X', cookie: 'T' } },
    { name: 'nothing', url: '/', cookie: undefined, want: { query: undefined, cookie: undefined } },
  ];
  it.each(cases)('$name', ({ url, cookie, want }) => {
    expect(presentedToken(new URL(url, 'http://127.0.0.1'), cookie, port)).toEqual(want);
  });
});
