// The console's Content-Security-Policy, one definition for both hosts: the
// Electron shell sends it as a header on every pilothouse://app response
// (rendererProtocol.ts; there 'self' is that origin alone, not every local
// file as on file://), the web host on every HTTP response, and
// renderer/index.html carries the same policy in a meta tag (minus what a
// meta tag cannot express) as a second line of defence.
//
// Why each source is there:
// - script-src 'self': the built renderer's bundles only; no inline scripts,
//   no eval (Vue's runtime-only build needs neither).
// - style-src 'unsafe-inline': naive-ui and xterm.js write <style> elements and
//   style attributes at run time; styles cannot run code.
// - img-src/font-src data:: icons and fonts inlined by the bundler.
// - connect-src 'self': the web host's /bridge WebSocket (CSP 3 lets 'self'
//   match ws: on the same host and port); in Electron the bridge is IPC, so no
//   network at all is needed there.
// Pure: no Electron import, so the web host and the tests can use it.

export type ConsoleRuntime = 'electron' | 'web';

const BASE: readonly [string, string][] = [
  ['default-src', "'none'"],
  ['script-src', "'self'"],
  ['style-src', "'self' 'unsafe-inline'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self' data:"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['object-src', "'none'"],
];

/** The policy as a header value for the given host. */
export function consoleCsp(runtime: ConsoleRuntime): string {
  const directives = [...BASE];
  if (runtime === 'web') directives.push(['connect-src', "'self'"]);
  // Only honoured in a header, not in the meta tag: no framing (clickjacking).
  directives.push(['frame-ancestors', "'none'"]);
  return directives.map(([k, v]) => `${k} ${v}`).join('; ');
}

/** The policy for renderer/index.html's meta tag: the web variant minus frame-ancestors (ignored in meta). */
export function consoleMetaCsp(): string {
  return consoleCsp('web')
    .split('; ')
    .filter((d) => !d.startsWith('frame-ancestors'))
    .join('; ');
}
