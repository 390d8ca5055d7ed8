// The console page's own origin in the Electron app: pilothouse://app.
// A file:// page's 'self' is every local file (a script or frame could load
// anything on the disk), so the renderer is not loaded from file:// but
// through this protocol, which serves the built renderer directory and
// nothing else (staticFiles.ts: no traversal, fixed content types), every
// response carrying the console's CSP.
//
// The scheme is registered as privileged before the app is ready: standard
// (a real origin, so 'self', relative URLs and sessionStorage work as on
// https), secure (a secure context), supportFetchAPI (module scripts are
// fetched). Not corsEnabled (that would let other origins read it), not
// bypassCSP, no service workers.

import type { CustomScheme } from 'electron';
import { staticFile } from '../common/rendererHost/staticFiles';
import { consoleCsp } from '../common/rendererHost/csp';

export const APP_SCHEME = 'pilothouse';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** What the console window loads. */
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

export const APP_SCHEME_PRIVILEGES: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true },
};

/** True for a URL of the console's own page (any route in its query or fragment), nothing else. */
export function isAppPage(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST && u.username === '' && u.password === '' && u.port === '' && u.pathname === '/index.html';
}

function plain(status: number, text: string, extra: Record<string, string> = {}): Response {
  return new Response(`${status} ${text}\n`, {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Security-Policy': consoleCsp('electron'), 'X-Content-Type-Options': 'nosniff', ...extra },
  });
}

/** protocol.handle's handler for APP_SCHEME: files under rendererDir, and only for the app's host. */
export async function serveRenderer(rendererDir: string, request: { url: string; method: string }): Promise<Response> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return plain(400, 'bad request');
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return plain(404, 'not found');
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed', { Allow: 'GET, HEAD' });
  const file = await staticFile(rendererDir, url.pathname);
  if (!file) return plain(404, 'not found');
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(file.body), {
    status: 200,
    headers: {
      'Content-Type': file.contentType,
      'Cache-Control': file.cacheControl,
      'Content-Security-Policy': consoleCsp('electron'),
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
