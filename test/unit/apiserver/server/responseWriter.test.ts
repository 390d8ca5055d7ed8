// Response compression as kube's deferredResponseWriter does it: gzip only
// above 128 KiB and only when Accept-Encoding names gzip; small bodies, HEAD
// and other encodings go out as they are.

import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../../main/apiserver/server/context';
import { wantsGzip, writeParts, writeRaw } from '../../../../main/apiserver/server/responseWriter';

interface Sent {
  code?: number;
  headers: Record<string, unknown>;
  body?: Buffer;
}

/** A RequestContext with just what writeRaw touches; resolves once the response has ended. */
function fakeCtx(method: string, acceptEncoding: string | undefined): { ctx: RequestContext; done: Promise<Sent> } {
  const sent: Sent = { headers: {} };
  let ended!: (s: Sent) => void;
  const done = new Promise<Sent>((r) => (ended = r));
  const res = {
    headersSent: false,
    writeHead(code: number, headers: Record<string, unknown>) {
      sent.code = code;
      sent.headers = headers;
      res.headersSent = true;
    },
    end(body?: string | Buffer) {
      sent.body = body === undefined ? undefined : Buffer.from(body);
      ended(sent);
    },
    destroy(err: Error) {
      throw err;
    },
  };
  const ctx = {
    req: { method, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } },
    res,
    warnings: [],
    trace: { trace: { id: 'audit-id' }, respond: () => undefined },
  } as unknown as RequestContext;
  return { ctx, done };
}

const big = `${JSON.stringify({ items: Array.from({ length: 5000 }, (_, i) => ({ name: `pod-${i}`, image: 'nginx:1.27' })) })}\n`;
const small = '{"kind":"Status"}\n';

describe('response compression', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate', true],
    [' deflate ,gzip ', true],
    ['deflate, br', false],
    ['gzip;q=1.0', false], // kube compares whole tokens
    ['GZIP', false],
    ['', false],
  ])('Accept-Encoding %j → gzip %s', (header, want) => {
    expect(wantsGzip(header)).toBe(want);
  });

  it('a body over 128 KiB with Accept-Encoding gzip is gzipped, with Content-Encoding and Vary', async () => {
    expect(Buffer.byteLength(big)).toBeGreaterThan(128 * 1024);
    const { ctx, done } = fakeCtx('GET', 'gzip');
    writeRaw(ctx, 200, 'application/json', big);
    const sent = await done;
    expect(sent.code).toBe(200);
    expect(sent.headers).toMatchObject({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding', 'Audit-Id': 'audit-id' });
    expect(sent.body!.length).toBeLessThan(Buffer.byteLength(big) / 4);
    expect(gunzipSync(sent.body!).toString()).toBe(big);
  });

  it.each([
    ['a small body', 'GET', 'gzip', small],
    ['a big body without gzip accepted', 'GET', undefined, big],
    ['a big body, other encodings only', 'GET', 'deflate', big],
  ])('%s goes out as it is', async (_name, method, enc, body) => {
    const { ctx, done } = fakeCtx(method, enc);
    writeRaw(ctx, 200, 'application/json', body);
    const sent = await done;
    expect(sent.headers['Content-Encoding']).toBeUndefined();
    expect(sent.body!.toString()).toBe(body);
  });

  it('HEAD sends no body, compressed or not', async () => {
    const { ctx, done } = fakeCtx('HEAD', 'gzip');
    writeRaw(ctx, 200, 'application/json', big);
    const sent = await done;
    expect(sent.headers['Content-Encoding']).toBeUndefined();
    expect(sent.body).toBeUndefined();
  });
});

describe('a body in parts (a list), gzipped', () => {
  /** A response that is a real Writable (pipeline writes into it), counting the writes. */
  function streamCtx(): { ctx: RequestContext; writes: Buffer[]; headers: () => Record<string, unknown>; done: Promise<void> } {
    const writes: Buffer[] = [];
    let headers: Record<string, unknown> = {};
    let finished!: () => void;
    const done = new Promise<void>((r) => (finished = r));
    const res = new Writable({
      write(chunk: Buffer, _enc, cb) {
        writes.push(chunk);
        cb();
      },
      final(cb) {
        finished();
        cb();
      },
    }) as Writable & { headersSent: boolean; writeHead: (code: number, h: Record<string, unknown>) => void };
    res.headersSent = false;
    res.writeHead = (_code, h) => {
      headers = h;
      res.headersSent = true;
    };
    const ctx = {
      req: { method: 'GET', headers: { 'accept-encoding': 'gzip' } },
      res,
      warnings: [],
      trace: { trace: { id: 'audit-id' }, respond: () => undefined },
    } as unknown as RequestContext;
    return { ctx, writes, headers: () => headers, done };
  }

  it('streams through zlib as it goes (several compressed writes, not one joined body) and gunzips to the same bytes', async () => {
    // Incompressible items, so the compressed output spans many writes.
    const parts = [Buffer.from('{"items":['), ...Array.from({ length: 400 }, (_, i) => Buffer.from(`${i ? ',' : ''}"${randomBytes(3000).toString('base64')}"`)), Buffer.from(']}\n')];
    const { ctx, writes, headers, done } = streamCtx();
    writeParts(ctx, 200, 'application/json', parts);
    await done;
    expect(headers()).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding', 'Content-Type': 'application/json' });
    expect(headers()['Content-Length']).toBeUndefined();
    expect(writes.length).toBeGreaterThan(10);
    expect(gunzipSync(Buffer.concat(writes)).equals(Buffer.concat(parts))).toBe(true);
  });
});

