import { describe, expect, it } from 'vitest';
import type { BridgeHandlers } from '../../../preload/contract';
import { leaseTerminals } from '../../../main/app/terminalLease';

function fakeTerminals() {
  const closed: string[] = [];
  let n = 0;
  const handlers = {
    version: () => ({ pilothouse: 'x', commit: 'x', runtime: 'electron', versions: {} }),
    openTerminal: () => ({ id: `t${++n}`, title: `bash ${n}`, missingTools: [] }),
    closeTerminal: (req: { id: string }) => void closed.push(req.id),
  } as unknown as BridgeHandlers;
  return { handlers, closed };
}

describe('leaseTerminals', () => {
  it('closes only the terminals still open, once', async () => {
    const f = fakeTerminals();
    const lease = leaseTerminals(f.handlers);
    const a = await lease.handlers.openTerminal({ cols: 80, rows: 24 });
    const b = await lease.handlers.openTerminal({ cols: 80, rows: 24 });
    await lease.handlers.closeTerminal({ id: a.id });
    expect([...lease.open]).toEqual([b.id]);
    lease.closeAll();
    lease.closeAll();
    await new Promise((r) => setTimeout(r, 0));
    expect(f.closed).toEqual([a.id, b.id]);
    expect(lease.open.size).toBe(0);
  });

  it('passes every other call through unchanged', () => {
    const f = fakeTerminals();
    expect(leaseTerminals(f.handlers).handlers.version).toBe(f.handlers.version);
  });
});
