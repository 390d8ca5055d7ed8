import { describe, expect, it } from 'vitest';
import { parseListenUrl } from '../../../../main/etcd/api/listenUrl';

describe('parseListenUrl', () => {
  const ok = [
    { url: 'http://127.0.0.1:2379', host: '127.0.0.1', port: 2379, scheme: 'http' },
    { url: 'http://localhost:0', host: '127.0.0.1', port: 0, scheme: 'http' },
    { url: 'https://[::1]:2379', host: '::1', port: 2379, scheme: 'https' },
  ];
  for (const c of ok) {
    it(c.url, () => {
      expect(parseListenUrl(c.url)).toEqual({ url: c.url, host: c.host, port: c.port, scheme: c.scheme });
    });
  }
  const bad = [
    { url: '127.0.0.1:2379', error: 'invalid listen URL' },
    { url: 'unix://sock', error: 'scheme must be http or https' },
    { url: 'http://127.0.0.1', error: 'needs a port' },
    { url: 'http://127.0.0.1:2379/v3', error: 'must not have a path' },
    { url: 'not a url', error: 'invalid listen URL' },
  ];
  for (const c of bad) {
    it(`rejects ${c.url}`, () => {
      expect(() => parseListenUrl(c.url)).toThrow(c.error);
    });
  }
});
