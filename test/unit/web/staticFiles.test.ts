import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rendererDir, staticFile } from '../../../main/common/rendererHost/staticFiles';

const parent = mkdtempSync(join(tmpdir(), 'pilothouse-static-'));
const root = join(parent, 'renderer');
mkdirSync(join(root, 'assets'), { recursive: true });
writeFileSync(join(root, 'index.html'), '<!doctype html>');
writeFileSync(join(root, 'assets', 'index-abc.js'), 'export {}');
writeFileSync(join(root, 'assets', 'index-abc.css'), 'body{}');
writeFileSync(join(root, 'favicon.svg'), '<svg/>');
writeFileSync(join(parent, 'secret.txt'), 'secret');
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('staticFile', () => {
  const cases = [
    { name: 'root', path: '/', want: { file: 'index.html', type: 'text/html; charset=utf-8', cache: 'no-store' } },
    { name: 'index.html', path: '/index.html', want: { file: 'index.html', type: 'text/html; charset=utf-8', cache: 'no-store' } },
    { name: 'client route', path: '/members/m1', want: { file: 'index.html', type: 'text/html; charset=utf-8', cache: 'no-store' } },
    { name: 'hashed script', path: '/assets/index-abc.js', want: { file: 'assets/index-abc.js', type: 'text/javascript; charset=utf-8', cache: 'private, max-age=31536000, immutable' } },
    { name: 'stylesheet', path: '/assets/index-abc.css', want: { file: 'assets/index-abc.css', type: 'text/css; charset=utf-8', cache: 'private, max-age=31536000, immutable' } },
    { name: 'svg outside assets', path: '/favicon.svg', want: { file: 'favicon.svg', type: 'image/svg+xml', cache: 'no-store' } },
    { name: 'missing asset', path: '/assets/nope.js', want: undefined },
    { name: 'dot-dot', path: '/../secret.txt', want: undefined },
    { name: 'encoded dot-dot', path: '/%2e%2e/secret.txt', want: undefined },
    { name: 'encoded slash dot-dot', path: '/assets%2f..%2f..%2fsecret.txt', want: undefined },
    { name: 'bad escape', path: '/%zz.js', want: undefined },
    { name: 'nul byte', path: '/index.html%00.js', want: undefined },
  ];
  it.each(cases)('$name', async ({ path, want }) => {
    const got = await staticFile(root, path);
    if (!want) return expect(got).toBeUndefined();
    expect(got).toMatchObject({ path: join(root, want.file), contentType: want.type, cacheControl: want.cache });
  });
});

describe('rendererDir', () => {
  it('finds out/renderer above the sources and above the build', () => {
    const proj = join(parent, 'proj');
    mkdirSync(join(proj, 'out', 'renderer'), { recursive: true });
    mkdirSync(join(proj, 'out', 'main', 'chunks'), { recursive: true });
    mkdirSync(join(proj, 'main', 'web'), { recursive: true });
    writeFileSync(join(proj, 'out', 'renderer', 'index.html'), '');
    expect(rendererDir(join(proj, 'main', 'web'))).toBe(join(proj, 'out', 'renderer'));
    expect(rendererDir(join(proj, 'out', 'main', 'chunks'))).toBe(join(proj, 'out', 'renderer'));
  });
  it('says to build when there is none', () => {
    expect(() => rendererDir(join(parent, 'renderer', 'assets'))).toThrow(/npm run build/);
  });
});
