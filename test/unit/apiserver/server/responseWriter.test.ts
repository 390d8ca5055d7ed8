// Response compression as kube's deferredResponseWriter does it: gzip only
// above 128 KiB and only when Accept-Encoding names gzip; small bodies, HEAD
// and other encodings go out as they are.

import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../../main/apiserver/server/context';
import { wantsGzip, writeRaw } from '../../../../main/apiserver/server/responseWriter';

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
