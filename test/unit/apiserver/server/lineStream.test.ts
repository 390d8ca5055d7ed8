import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LineStream, WRITE_BUFFER_BYTES } from '../../../../main/apiserver/server/lineStream';

// A real loopback socket: the kernel's buffers fill first, then the response's own.
const LINE = 'x'.repeat(16 * 1024);

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

function serve(handler: (stream: LineStream) => void): Promise<void> {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    handler(new LineStream(res));
  });
  return new Promise((r) => server!.listen(0, '127.0.0.1', () => r()));
}

function get(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => request(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/`, { agent: false }, resolve).on('error', reject).end());
}

describe('LineStream', () => {
  it('turns not ready once a client that does not read leaves WRITE_BUFFER_BYTES in the response, ready again when it reads; every line arrives in order', async () => {
    let stream!: LineStream;
    let written = 0;
    let writable = 0;
    await serve((s) => {
      stream = s;
      s.onWritable(() => writable++);
    });
    const res = await get(); // not read: paused
    await vi.waitFor(() => expect(stream).toBeDefined());
    // Write in ticks, as a watch does, until the stream refuses (bounded: the kernel holds a few MiB at most).
    while (stream.ready && written < 4000) {
      for (let i = 0; i < 8 && stream.ready; i++) stream.write(`${written++}:${LINE}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(written).toBeLessThan(4000);
    // Nothing drains while the client does not read.
    const before = writable;
    await new Promise((r) => setTimeout(r, 100));
    expect(stream.ready).toBe(false);
    expect(stream.pending).toBeGreaterThan(0);
    expect(writable).toBe(before);

    const got: number[] = [];
    let rest = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      const parts = (rest + d).split('\n');
      rest = parts.pop()!;
      for (const p of parts) got.push(Number(p.slice(0, p.indexOf(':'))));
    });
    await vi.waitFor(() => expect(writable).toBeGreaterThan(before), { timeout: 10_000 });
    expect(stream.ready).toBe(true);
    stream.end();
    await new Promise((r) => res.on('end', r));
    expect(got).toEqual(Array.from({ length: written }, (_, i) => i));
  });

  it('a fast client: a burst below the budget is taken whole, in one tick', async () => {
    const ready: boolean[] = [];
    await serve((s) => {
      const lines = Math.floor(WRITE_BUFFER_BYTES / 1024) - 1;
      for (let i = 0; i < lines; i++) {
        s.write('y'.repeat(1000));
        ready.push(s.ready);
      }
      s.end();
    });
    const res = await get();
    res.resume();
    await new Promise((r) => res.on('end', r));
    expect(ready.length).toBeGreaterThan(0);
    expect(ready.every(Boolean)).toBe(true);
  });
});
