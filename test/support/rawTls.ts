// Raw TLS connections to a server, for requests Node's HTTP client refuses
// to send (malformed request lines, bad lengths, slow headers): the bytes go
// out as given and everything the server sends until it closes is collected.

import { connect, type TLSSocket } from 'node:tls';

export interface RawExchange {
  /** Everything the server sent, as latin1 text. */
  text: string;
  /** True when the server closed the connection (false: still open at the time limit). */
  closed: boolean;
}

export interface RawOptions {
  cert?: Buffer;
  key?: Buffer;
  /** How long to wait for the server to close (default 15 s). */
  waitMs?: number;
}

export function openTls(port: number, opts: RawOptions = {}): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, cert: opts.cert, key: opts.key }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Sends `payload` on a new TLS connection and reads until the server closes it (or waitMs passes). */
export async function rawExchange(port: number, payload: string | Buffer | (string | Buffer)[], opts: RawOptions = {}): Promise<RawExchange> {
  const s = await openTls(port, opts);
  let text = '';
  s.setEncoding('latin1');
  s.on('data', (d: string) => (text += d));
  s.on('error', () => {});
  const closed = new Promise<boolean>((resolve) => {
    s.once('close', () => resolve(true));
    setTimeout(() => resolve(false), opts.waitMs ?? 15_000).unref();
  });
  for (const p of Array.isArray(payload) ? payload : [payload]) s.write(p);
  const wasClosed = await closed;
  s.destroy();
  return { text, closed: wasClosed };
}

/** The status line, headers (lower-cased names) and body of one HTTP/1.1 response in `text`. */
export function parseResponse(text: string): { status: string; code: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const [status = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  let body = end < 0 ? '' : text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  return { status, code: Number(status.split(' ')[1]), headers, body: Buffer.from(body, 'latin1').toString('utf8') };
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const nl = rest.indexOf('\r\n');
    if (nl < 0) return out;
    const size = parseInt(rest.slice(0, nl), 16);
    if (!(size > 0)) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}
