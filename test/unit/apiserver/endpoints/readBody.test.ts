// readBody: the body in pieces, each piece handed to the audit tap, 413
// beyond the limit, and an error when the client goes away mid-body.
import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../../../main/apiserver/endpoints/requestBody';

const asRequest = (r: Readable) => r as unknown as IncomingMessage;

describe('readBody', () => {
  it('joins the pieces and shows each to the tap', async () => {
    const seen: string[] = [];
    const body = await readBody({ req: asRequest(Readable.from([Buffer.from('{"a":'), Buffer.from('1}')])), bodyTap: (c) => seen.push(c.toString()) });
    expect(body.toString()).toBe('{"a":1}');
    expect(seen).toEqual(['{"a":', '1}']);
  });

  it('an empty body, and a body already read, are empty', async () => {
    expect((await readBody({ req: asRequest(Readable.from([])) })).length).toBe(0);
    const done = Readable.from([Buffer.from('x')]);
    done.resume();
    await new Promise((r) => done.once('end', r));
    expect((await readBody({ req: asRequest(done) })).length).toBe(0);
  });

  it('refuses a body past the limit with 413 RequestEntityTooLarge, stops reading and closes the connection after the answer', async () => {
    const req = new PassThrough();
    const headers: Record<string, string> = {};
    const res = Object.assign(new PassThrough(), { setHeader: (k: string, v: string) => (headers[k] = v) }) as unknown as Parameters<typeof readBody>[0]['res'];
    const read = readBody({ req: asRequest(req), res }, 8);
    req.write(Buffer.from('12345'));
    req.write(Buffer.from('67890'));
    await expect(read).rejects.toMatchObject({ status: { code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 8' } });
    expect(req.isPaused()).toBe(true);
    expect(req.listenerCount('data')).toBe(0);
    expect(headers).toEqual({ Connection: 'close' });
  });

  it('fails when the connection closes before the body ends', async () => {
    const req = new PassThrough();
    const read = readBody({ req: asRequest(req) });
    req.write(Buffer.from('{"a"'));
    req.destroy();
    await expect(read).rejects.toThrow('the connection closed before the body ended');
  });
});

describe('readBody after the request was answered', () => {
  it('fails once the response has closed (a timed-out request whose body never came)', async () => {
    const req = new PassThrough();
    const res = new PassThrough();
    const read = readBody({ req: asRequest(req), res: res as unknown as Parameters<typeof readBody>[0]['res'] });
    req.write(Buffer.from('{"a"'));
    res.destroy();
    await expect(read).rejects.toThrow('the connection closed before the body ended');
    expect(res.listenerCount('close')).toBe(0);
  });
});
