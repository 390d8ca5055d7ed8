// DNS-rebinding and cross-site guard. A page on evil.example can make the
// browser resolve its own name to 127.0.0.1 and talk to our port; such
// requests carry `Host: evil.example`. A page on another origin can also open
// a WebSocket to us (WebSockets are not bound by the same-origin policy); its
// handshake carries that page's `Origin`. Only our own names pass.

const LOCAL_NAMES = ['127.0.0.1', 'localhost'];

/** `Host` must name this host on loopback with our port. */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (!host) return false;
  return LOCAL_NAMES.some((name) => host.toLowerCase() === `${name}:${port}`);
}

/**
 * `Origin`, when present, must be our own page. Absent is fine: same-origin
 * GETs and non-browser clients (curl, tests) send none, and a browser always
 * sends one on cross-origin requests and on every WebSocket handshake.
 */
export function originAllowed(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return LOCAL_NAMES.some((name) => origin.toLowerCase() === `http://${name}:${port}`);
}
