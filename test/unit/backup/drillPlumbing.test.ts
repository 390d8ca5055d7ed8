import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blockFree, freePortBlock } from '../../../main/backup/drillPorts';
import { defaultUpCommand, hostCommand } from '../../../main/backup/recoveryHost';
import { planeEndpoints } from '../../../main/backup/recoveryTarget';
import { clusterLayout, etcdctlEnv, pkiFor } from '../../../main/controlplane/localCluster';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'ph-drill-plumbing-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the live plane as DIR/etcdctl.env describes it', () => {
  it('reads the endpoints and the client certificate up writes, quoted paths included', () => {
    const opts = { dataDir: join(dir, "it's here"), portBase: 23910, program: { command: '', args: [] }, tls: true };
    const layout = clusterLayout(opts);
    writeFileSync(join(dir, 'etcdctl.env'), etcdctlEnv(layout, pkiFor(opts, layout)));
    expect(planeEndpoints(dir)).toEqual({
      urls: ['https://127.0.0.1:23910', 'https://127.0.0.1:23912', 'https://127.0.0.1:23914'],
      caFile: join(dir, "it's here", 'pki', 'ca.crt'),
      certFile: join(dir, "it's here", 'pki', 'client.crt'),
      keyFile: join(dir, "it's here", 'pki', 'client.key'),
    });
  });

  it('has none without the file, and starts `up` with its port base and members when no host runs', () => {
    expect(planeEndpoints(dir)).toBeUndefined();
    expect(() => defaultUpCommand(dir, '/x/cli.js')).toThrow(/no control plane \(no etcdctl.env\)/);
    const layout = clusterLayout({ dataDir: dir, portBase: 23920, members: 5, program: { command: '', args: [] } });
    writeFileSync(join(dir, 'etcdctl.env'), etcdctlEnv(layout));
    expect(defaultUpCommand(dir, '/x/cli.js').argv).toEqual([process.execPath, '/x/cli.js', 'up', '--data-dir', dir, '--port-base', '23920', '--members', '5']);
  });

  it('refuses a host that is not `pilothouse up` (this test runner is one)', () => {
    expect(() => hostCommand(process.pid)).toThrow(/not by `pilothouse up`: restore it from the console/);
  });
});

describe('ports for the scratch cluster', () => {
  it('sees a bound port in a block and finds a block with every port free', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const taken = (s.address() as AddressInfo).port;
    try {
      expect(await blockFree(taken - 3, 7)).toBe(false);
      const base = await freePortBlock(7);
      expect(await blockFree(base, 7)).toBe(true);
    } finally {
      s.close();
    }
  });

  it('gives up with the reason when every block it draws is taken', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(23990, '127.0.0.1', r));
    try {
      // draws the block starting at 23990 every time (20000 + floor(r × (12000 − 7)))
      const r = (23990 - 20_000 + 0.5) / (12_000 - 7);
      await expect(freePortBlock(7, 3, () => r)).rejects.toThrow('no 7 consecutive free ports found in 20000..32000');
    } finally {
      s.close();
    }
  });
});
