import { describe, expect, it } from 'vitest';
import { clusterLayout, etcdctlEnv, memberFlags, pkiFor } from '../../../main/controlplane/localCluster';
import { encodeRangeRequest } from '../../../main/controlplane/etcdReadProbe';

const program = { command: '/bin/false', args: [] };

describe('local cluster layout', () => {
  it('puts every port of three members in [base, base+5], clients even, peers odd', () => {
    const layout = clusterLayout({ dataDir: '/d', portBase: 2379, program });
    expect(layout.map((m) => [m.name, m.clientUrl, m.peerUrl, m.dataDir, m.logFile])).toEqual([
      ['m1', 'http://127.0.0.1:2379', 'http://127.0.0.1:2380', '/d/m1', '/d/logs/m1.log'],
      ['m2', 'http://127.0.0.1:2381', 'http://127.0.0.1:2382', '/d/m2', '/d/logs/m2.log'],
      ['m3', 'http://127.0.0.1:2383', 'http://127.0.0.1:2384', '/d/m3', '/d/logs/m3.log'],
    ]);
    expect(etcdctlEnv(layout)).toBe('export ETCDCTL_API=3\nexport ETCDCTL_ENDPOINTS=127.0.0.1:2379,127.0.0.1:2381,127.0.0.1:2383\n');
  });

  it('gives each member the same initial cluster and its own URLs', () => {
    const opts = { dataDir: '/d', portBase: 30000, program, clusterToken: 't' };
    const layout = clusterLayout(opts);
    const flags = memberFlags(layout[1]!, layout, opts);
    const value = (flag: string) => flags[flags.indexOf(flag) + 1];
    expect(value('--name')).toBe('m2');
    expect(value('--listen-client-urls')).toBe('http://127.0.0.1:30002');
    expect(value('--initial-advertise-peer-urls')).toBe('http://127.0.0.1:30003');
    expect(value('--initial-cluster')).toBe('m1=http://127.0.0.1:30001,m2=http://127.0.0.1:30003,m3=http://127.0.0.1:30005');
    expect(value('--initial-cluster-state')).toBe('new');
    expect(value('--initial-cluster-token')).toBe('t');
  });

  it('with tls, gives members https URLs, the PKI files and cert auth, and etcdctl the CA and client certificate', () => {
    const opts = { dataDir: '/d', portBase: 30000, program, tls: true };
    const layout = clusterLayout(opts);
    const flags = memberFlags(layout[1]!, layout, opts);
    const value = (flag: string) => flags[flags.indexOf(flag) + 1];
    expect(value('--listen-client-urls')).toBe('https://127.0.0.1:30002');
    expect(value('--initial-cluster')).toBe('m1=https://127.0.0.1:30001,m2=https://127.0.0.1:30003,m3=https://127.0.0.1:30005');
    expect(value('--cert-file')).toBe('/d/pki/m2/server.crt');
    expect(value('--key-file')).toBe('/d/pki/m2/server.key');
    expect(value('--trusted-ca-file')).toBe('/d/pki/ca.crt');
    expect(value('--peer-cert-file')).toBe('/d/pki/m2/peer.crt');
    expect(value('--peer-key-file')).toBe('/d/pki/m2/peer.key');
    expect(value('--peer-trusted-ca-file')).toBe('/d/pki/ca.crt');
    expect(flags).toContain('--client-cert-auth');
    expect(flags).toContain('--peer-client-cert-auth');
    expect(etcdctlEnv(layout, pkiFor(opts, layout))).toBe(
      'export ETCDCTL_API=3\n' +
        'export ETCDCTL_ENDPOINTS=https://127.0.0.1:30000,https://127.0.0.1:30002,https://127.0.0.1:30004\n' +
        'export ETCDCTL_CACERT=/d/pki/ca.crt\nexport ETCDCTL_CERT=/d/pki/client.crt\nexport ETCDCTL_KEY=/d/pki/client.key\n',
    );
    const spaced = { ...opts, dataDir: "/my d's" };
    expect(etcdctlEnv(layout, pkiFor(spaced, layout))).toContain(`export ETCDCTL_CACERT='/my d'\\''s/pki/ca.crt'\n`);
  });

  const bad = [
    { name: 'zero members', opts: { members: 0 } },
    { name: 'privileged port', opts: { portBase: 80 } },
    { name: 'ports past 65535', opts: { portBase: 65530 } },
  ];
  for (const c of bad) {
    it(`rejects ${c.name}`, () => {
      expect(() => clusterLayout({ dataDir: '/d', program, ...c.opts })).toThrow();
    });
  }

  it('encodes a RangeRequest with only the key field', () => {
    expect([...encodeRangeRequest(Buffer.from('ab'))]).toEqual([0x0a, 2, 0x61, 0x62]);
  });
});
