// serveRenderer, the pilothouse://app handler, against a temp renderer dir:
// files under it with their content types and the console CSP, nothing
// outside it (however the path is spelled), only the app's host, GET/HEAD.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleCsp } from '../../../main/common/rendererHost/csp';
import { APP_INDEX_URL, APP_SCHEME_PRIVILEGES, isAppPage, serveRenderer } from '../../../main/app/rendererProtocol';

const parent = mkdtempSync(join(tmpdir(), 'pilothouse-protocol-'));
const root = join(parent, 'renderer');
mkdirSync(join(root, 'assets'), { recursive: true });
writeFileSync(join(root, 'index.html'), '<!doctype html><title>Pilothouse</title>');
writeFileSync(join(root, 'assets', 'index-abc.js'), 'export {}');
writeFileSync(join(root, 'assets', 'index-abc.css'), 'body{}');
writeFileSync(join(root, 'assets', 'font.woff2'), 'w');
writeFileSync(join(root, 'assets', 'logo.svg'), '<svg/>');
writeFileSync(join(root, 'assets', 'blob.bin'), 'b');
// Next to the renderer dir: what a traversal would reach.
writeFileSync(join(parent, 'secret.txt'), 'secret');
mkdirSync(join(parent, 'renderer-evil'), { recursive: true });
writeFileSync(join(parent, 'renderer-evil', 'x.js'), 'evil');
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const get = (url: string, method = 'GET') => serveRenderer(root, { url, method });

describe('serveRenderer', () => {
  const types = [
    { path: '/index.html', type: 'text/html; charset=utf-8', body: '<!doctype html><title>Pilothouse</title>' },
    { path: '/', type: 'text/html; charset=utf-8', body: '<!doctype html><title>Pilothouse</title>' },
    { path: '/assets/index-abc.js', type: 'text/javascript; charset=utf-8', body: 'export {}' },
    { path: '/assets/index-abc.css', type: 'text/css; charset=utf-8', body: 'body{}' },
    { path: '/assets/font.woff2', type: 'font/woff2', body: 'w' },
    { path: '/assets/logo.svg', type: 'image/svg+xml', body: '<svg/>' },
    { path: '/assets/blob.bin', type: 'application/octet-stream', body: 'b' },
  ];
  it.each(types)('$path → 200 $type', async ({ path, type, body }) => {
    const res = await get(`pilothouse://app${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('content-security-policy')).toBe(consoleCsp('electron'));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(body);
  });

  it('index.html is never cached; hashed assets may be', async () => {
    expect((await get(APP_INDEX_URL)).headers.get('cache-control')).toBe('no-store');
    expect((await get('pilothouse://app/assets/index-abc.js')).headers.get('cache-control')).toContain('immutable');
  });

  // The URL as Electron hands it over: already parsed, so some spellings arrive normalized; each must stay inside.
  const outside = [
    'pilothouse://app/../secret.txt',
    'pilothouse://app/assets/../../secret.txt',
    'pilothouse://app/%2e%2e/secret.txt',
    'pilothouse://app/..%2fsecret.txt',
    'pilothouse://app/assets%2f..%2f..%2fsecret.txt',
    'pilothouse://app/..%5csecret.txt',
    'pilothouse://app/../renderer-evil/x.js',
    'pilothouse://app/%2e%2e%2frenderer-evil%2fx.js',
    'pilothouse://app/secret.txt%00.js',
    `pilothouse://app/${encodeURIComponent(join(parent, 'secret.txt'))}`,
    'pilothouse://app/missing.js',
    'pilothouse://app/%zz.js',
  ];
  it.each(outside)('%s → 404, nothing outside the renderer dir', async (url) => {
    const res = await get(url);
    expect(res.status).toBe(404);
    const body = await res.text();
    expect(body).not.toContain('secret');
    expect(body).not.toContain('evil');
  });

  it.each(['pilothouse://evil/index.html', 'pilothouse://app.evil/index.html', 'file:///index.html', 'https://app/index.html'])('other hosts and schemes → 404: %s', async (url) => {
    expect((await get(url)).status).toBe(404);
  });

  it('only GET and HEAD', async () => {
    const post = await get(APP_INDEX_URL, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await get(APP_INDEX_URL, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('an unparsable URL → 400', async () => {
    expect((await get('not a url')).status).toBe(400);
  });
});

describe('the scheme', () => {
  it('is standard and secure, with fetch, and none of the privileges that loosen it', () => {
    expect(APP_SCHEME_PRIVILEGES).toEqual({ scheme: 'pilothouse', privileges: { standard: true, secure: true, supportFetchAPI: true } });
  });

  const pages = [
    { url: 'pilothouse://app/index.html', want: true },
    { url: 'pilothouse://app/index.html#/members', want: true },
    { url: 'pilothouse://app/', want: false },
    { url: 'pilothouse://app/assets/index-abc.js', want: false },
    { url: 'pilothouse://other/index.html', want: false },
    { url: 'file:///index.html', want: false },
  ];
  it.each(pages)('isAppPage($url) → $want', ({ url, want }) => expect(isAppPage(url)).toBe(want));
});
