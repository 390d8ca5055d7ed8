// close(): graceful (GOAWAY, in-flight calls finish) and immediate.

import { connect } from 'node:net';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { call, rawClient, startHarness } from './clientHarness';

describe('close', () => {
  const cases = [
    { name: 'with a grace period, an in-flight Range completes', graceMs: 3000, want: 'served' },
    { name: 'without one, it is cut off', graceMs: 0, want: 'failed' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const h = await startHarness();
      const kv = rawClient(h.endpoint, 'KV');
      await call(kv, 'Put', { key: Buffer.from('k'), value: Buffer.from('v') });
      h.fake.rangeDelayMs = 300;
      const pending = call(kv, 'Range', { key: Buffer.from('k') });
      await new Promise((r) => setTimeout(r, 100)); // the call is in the member now
      const started = Date.now();
      await h.handle.close(c.graceMs);
      const closeMs = Date.now() - started;
      const { err, res } = await pending;
      kv.close();
      expect(err ? 'failed' : 'served').toBe(c.want);
      if (c.want === 'served') {
        expect(res.kvs[0].value.toString()).toBe('v');
        // it waited for the call, not for the whole grace period
        expect(closeMs).toBeLessThan(c.graceMs);
      } else {
        expect([GrpcStatus.UNAVAILABLE, GrpcStatus.CANCELLED, GrpcStatus.INTERNAL]).toContain(err!.code);
      }
      // the port no longer accepts connections
      const refused = await new Promise<boolean>((resolve) => {
        const s = connect(Number(h.endpoint.split(':')[1]), '127.0.0.1');
        s.on('connect', () => {
          s.destroy();
          resolve(false);
        });
        s.on('error', () => resolve(true));
      });
      expect(refused).toBe(true);
    });
  }
});
