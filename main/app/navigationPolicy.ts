// Where the console window may go: nowhere but its own page
// (pilothouse://app/index.html, any route; rendererProtocol.ts). Other
// navigations and new windows are refused; an http(s) link the console shows
// (docs, install pages) opens in the user's browser through the OS, never
// inside the app. Permission
// requests (camera, notifications, ...) are all refused: the console needs
// none. The CSP header is added to every response the session loads.

import { consoleCsp } from '../common/rendererHost/csp';
import { isAppPage } from './rendererProtocol';

/** The URL if it is safe to hand to the OS browser (http or https), else undefined. */
export function externalHttpUrl(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** The webContents surface the policy needs (Electron's WebContents fits). */
export interface GuardedContents {
  on(event: 'will-navigate' | 'will-redirect', listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export function guardNavigation(contents: GuardedContents, openExternal: (url: string) => void): void {
  const refuse = (event: { preventDefault(): void }, url: string) => {
    if (isAppPage(url)) return;
    event.preventDefault();
    const external = externalHttpUrl(url);
    if (external) openExternal(external);
  };
  contents.on('will-navigate', refuse);
  contents.on('will-redirect', refuse);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalHttpUrl(url);
    if (external) openExternal(external);
    return { action: 'deny' };
  });
}

/** Every permission request is refused. */
export function permissionAllowed(_permission: string): boolean {
  return false;
}

/** Response headers with the console's CSP set (replacing any other spelling of the header). */
export function withCsp(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() !== 'content-security-policy') out[k] = v;
  out['Content-Security-Policy'] = [consoleCsp('electron')];
  return out;
}
