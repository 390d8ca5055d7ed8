// renderer/src/accessToken.ts against an in-memory page: the fragment moves
// into sessionStorage and out of the URL; a reload finds it there.

import { describe, expect, it } from 'vitest';
import { TOKEN_KEY, takeAccessToken, type TokenPage } from '../../../renderer/src/accessToken';

function page(hash: string, stored?: string) {
  const storage = new Map<string, string>(stored ? [[TOKEN_KEY, stored]] : []);
  const replaced: { state: unknown; url: string }[] = [];
  const p: TokenPage = {
    location: { pathname: '/', search: '', hash },
    history: { state: { back: null }, replaceState: (state, _unused, url) => void replaced.push({ state, url }) },
    sessionStorage: { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v) },
  };
  return { p, storage, replaced };
}

describe('takeAccessToken', () => {
  it('moves #token= into sessionStorage and replaces the URL without it, keeping the history state', () => {
    const { p, storage, replaced } = page('#token=abc_-DEF123');
    expect(takeAccessToken(p)).toBe('abc_-DEF123');
    expect(storage.get(TOKEN_KEY)).toBe('abc_-DEF123');
    expect(replaced).toEqual([{ state: { back: null }, url: '/' }]);
  });

  it('keeps the path and query', () => {
    const { p, replaced } = page('#token=T');
    p.location.pathname = '/index.html';
    p.location.search = '?x=1';
    takeAccessToken(p);
    expect(replaced[0]!.url).toBe('/index.html?x=1');
  });

  it('a reload (no fragment) finds the stored token and touches no URL', () => {
    const { p, replaced } = page('#/members', 'T');
    expect(takeAccessToken(p)).toBe('T');
    expect(replaced).toEqual([]);
  });

  it('a new fragment replaces the stored token', () => {
    const { p } = page('#token=NEW', 'OLD');
    expect(takeAccessToken(p)).toBe('NEW');
  });

  const untouched = ['', '#/overview', '#token=', '#token=a b', '#token=abc&x=1', '#xtoken=abc'];
  it.each(untouched)('no token in %j: nothing stored, no URL change', (hash) => {
    const { p, storage, replaced } = page(hash);
    expect(takeAccessToken(p)).toBeUndefined();
    expect(storage.size).toBe(0);
    expect(replaced).toEqual([]);
  });
});
