import { describe, expect, it } from 'vitest';
import { newToken, offeredProtocols, tokenEquals } from '../../../main/web/token';

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

describe('offeredProtocols', () => {
  const cases = [
    { name: 'none', header: undefined, want: { bridge: false } },
    { name: 'bridge and token', header: 'pilothouse.bridge, pilothouse.token.T-_1', want: { bridge: true, token: 'T-_1' } },
    { name: 'token first, no spaces', header: 'pilothouse.token.T,pilothouse.bridge', want: { bridge: true, token: 'T' } },
    { name: 'token only', header: 'pilothouse.token.T', want: { bridge: false, token: 'T' } },
    { name: 'first token wins', header: 'pilothouse.bridge, pilothouse.token.A, pilothouse.token.B', want: { bridge: true, token: 'A' } },
    { name: 'look-alikes', header: 'pilothouse.bridgex, xpilothouse.token.T, pilothouse.tokenT', want: { bridge: false } },
    { name: 'empty token', header: 'pilothouse.bridge, pilothouse.token.', want: { bridge: true, token: '' } },
  ];
  it.each(cases)('$name', ({ header, want }) => expect(offeredProtocols(header)).toEqual(want));
});
