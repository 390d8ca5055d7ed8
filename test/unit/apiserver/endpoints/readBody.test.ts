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

  it('refuses a body past the limit with 413 RequestEntityTooLarge and stops reading', async () => {
    const req = new PassThrough();
    const read = readBody({ req: asRequest(req) }, 8);
    req.write(Buffer.from('12345'));
    req.write(Buffer.from('67890'));
    await expect(read).rejects.toMatchObject({ status: { code: 413, reason: 'RequestEntityTooLarge', message: 'the server has received a request that is too large: limit is 8 bytes' } });
    expect(req.destroyed).toBe(true);
  });

  it('fails when the connection closes before the body ends', async () => {
    const req = new PassThrough();
    const read = readBody({ req: asRequest(req) });
    req.write(Buffer.from('{"a"'));
    req.destroy();
    await expect(read).rejects.toThrow('the connection closed before the body ended');
  });
});
