// The web host's access token on the page. `pilothouse web` opens
// http://127.0.0.1:PORT/#token=...: the fragment never reaches a server. At
// start-up (before the router reads the hash) the token moves into this tab's
// sessionStorage — it survives reloads and in-page navigation, dies with the
// tab, and is never sent anywhere by the browser on its own — and the
// fragment is replaced away, so the address bar, the tab's history entry and
// anything copied from them no longer carry it. The bridge sends it only in
// its WebSocket handshake (bridge.ts).

/** The sessionStorage key. */
export const TOKEN_KEY = 'pilothouse.token';

/** What the module touches of the page (the DOM's location, history and sessionStorage fit). */
export interface TokenPage {
  location: { pathname: string; search: string; hash: string };
  history: { state: unknown; replaceState(data: unknown, unused: string, url: string): void };
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
}

const FRAGMENT = /^#token=([A-Za-z0-9_-]+)$/;

/**
 * Move a #token= fragment into sessionStorage and out of the URL; return the
 * tab's token (from the fragment just taken, or an earlier load), if any.
 */
export function takeAccessToken(page: TokenPage): string | undefined {
  const m = FRAGMENT.exec(page.location.hash);
  if (m) {
    page.sessionStorage.setItem(TOKEN_KEY, m[1]!);
    page.history.replaceState(page.history.state, '', page.location.pathname + page.location.search);
  }
  return page.sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}
