import { describe, expect, it } from 'vitest';
import { guardRequest } from '../../../main/web/requestGuard';

const port = 28403;
const token = 'tok';
const host = `127.0.0.1:${port}`;

describe('guardRequest', () => {
  const cases = [
    { name: 'page with query token', req: { url: '/?token=tok', headers: { host } }, want: { status: 200, setCookie: true } },
    { name: 'asset with cookie', req: { url: '/assets/x.js', headers: { host, cookie: `pilothouse_token_${port}=tok` } }, want: { status: 200, setCookie: false } },
    { name: 'query and cookie', req: { url: '/?token=tok', headers: { host, cookie: `pilothouse_token_${port}=tok` } }, want: { status: 200, setCookie: false } },
    { name: 'no token', req: { url: '/', headers: { host } }, want: { status: 401 } },
    { name: 'wrong token', req: { url: '/bridge?token=nope', headers: { host } }, want: { status: 401 } },
    { name: 'rebinding host, right token', req: { url: '/?token=tok', headers: { host: `evil.example:${port}` } }, want: { status: 403 } },
    { name: 'no host', req: { url: '/?token=tok', headers: {} }, want: { status: 403 } },
    { name: 'foreign origin, right token', req: { url: '/bridge?token=tok', headers: { host, origin: 'http://evil.example' } }, want: { status: 403 } },
    { name: 'own origin', req: { url: '/bridge?token=tok', headers: { host, origin: `http://localhost:${port}` } }, want: { status: 200, setCookie: true } },
  ];
  it.each(cases)('$name', ({ req, want }) => {
    expect(guardRequest(req, port, token)).toMatchObject(want);
  });

  it('401 says where the tokened URL is', () => {
    const v = guardRequest({ url: '/', headers: { host } }, port, token);
    expect(v.status === 401 && v.reason).toContain('console.url');
  });
});
