// Serving the built renderer (out/renderer) read-only: files under the root
// and nothing outside it, index.html for client-side routes, content types
// the browser will not second-guess (nosniff is set by the host).

import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

export interface StaticFile {
  path: string;
  contentType: string;
  /** index.html must never be cached (it names the current bundles); hashed assets may be. */
  cacheControl: string;
  body: Buffer;
}

/**
 * The file for a URL path, or undefined (404). Paths with an extension must
 * exist; paths without one are client-side routes and get index.html.
 */
export async function staticFile(root: string, pathname: string): Promise<StaticFile | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const base = resolve(root);
  let file = resolve(base, `.${decoded.startsWith('/') ? decoded : `/${decoded}`}`);
  // resolve() has already collapsed '..'; anything that left the root is refused.
  if (file !== base && !file.startsWith(base + sep)) return undefined;
  if (file === base || (!extname(file) && !isFile(file))) file = join(base, 'index.html');
  if (!isFile(file)) return undefined;
  const ext = extname(file).toLowerCase();
  const isIndex = file === join(base, 'index.html');
  return {
    path: file,
    contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream',
    cacheControl: isIndex || !file.startsWith(join(base, 'assets') + sep) ? 'no-store' : 'private, max-age=31536000, immutable',
    body: await readFile(file),
  };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * out/renderer, found like resources/ is: walking up from this module, which
 * runs from the sources (main/web) or the build (out/main, out/main/chunks).
 */
export function rendererDir(from = import.meta.dirname): string {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'out', 'renderer');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const sibling = join(dir, 'renderer');
    if (dir.endsWith(`${sep}out`) && existsSync(join(sibling, 'index.html'))) return sibling;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`the built renderer (out/renderer/index.html) was not found above ${from}; run \`npm run build\``);
}
