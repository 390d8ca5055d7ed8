// parseRequestTarget: what Go's url.ParseRequestURI accepts, and the path as
// Go's URL.Path (decoded once, never cleaned).
import { describe, expect, it } from 'vitest';
import { parseRequestTarget } from '../../../../main/apiserver/server/requestTarget';

describe('parseRequestTarget', () => {
  const cases: { raw: string; path?: string; query?: Record<string, string> }[] = [
    { raw: '/api/v1/pods?limit=1&labelSelector=a%3Db', path: '/api/v1/pods', query: { limit: '1', labelSelector: 'a=b' } },
    { raw: '/api/v1/namespaces/%2e%2e/pods', path: '/api/v1/namespaces/../pods' },
    { raw: '/api/v1/namespaces/../pods', path: '/api/v1/namespaces/../pods' },
    { raw: '/api/v1/namespaces/a%2Fb/pods', path: '/api/v1/namespaces/a/b/pods' },
    { raw: '//double/slash', path: '//double/slash' },
    { raw: '/caf%C3%A9', path: '/café' },
    { raw: 'https://elsewhere:6443/version?x=1', path: '/version', query: { x: '1' } },
    { raw: 'http://host', path: '' },
    { raw: '*', path: '*' },
    { raw: '/q?a=%zz&b=1', path: '/q', query: { a: '%zz', b: '1' } },
    // Refused, as net/http refuses them (400 before any handler).
    { raw: 'http://[' },
    { raw: 'https://h:99999999/' },
    { raw: 'api/v1' },
    { raw: 'mailto:x' },
    { raw: '' },
    { raw: '/api/%zz' },
    { raw: '/api/%4' },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.raw), () => {
      const t = parseRequestTarget(c.raw);
      if (c.path === undefined) {
        expect(t).toBeUndefined();
        return;
      }
      expect(t?.pathname).toBe(c.path);
      if (c.query) expect(Object.fromEntries(t!.searchParams)).toEqual(c.query);
    });
  }
});
