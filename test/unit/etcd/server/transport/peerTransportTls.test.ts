import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MessageType, type MemberId, type Message } from '../../../../../main/etcd/raft/types';
import { PeerTransport, type PeerTlsOptions } from '../../../../../main/etcd/server/transport';
import { eventually } from '../../../../support/waitFor';

const CLUSTER = 0xabcn;
let dir = '';
let tls: PeerTlsOptions;
const live: PeerTransport[] = [];

// A throwaway CA and one peer certificate for 127.0.0.1, good as server and client.
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'peer-tls-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=test-ca');
  ssl('req', ...ec, '-keyout', 'peer.key', '-out', 'peer.csr', '-subj', '/CN=peer');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  ssl('x509', '-req', '-in', 'peer.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'peer.crt', '-days', '1', '-extfile', 'ext.cnf');
  const read = (f: string) => readFileSync(join(dir, f));
  tls = { cert: read('peer.crt'), key: read('peer.key'), ca: read('ca.crt'), clientCertAuth: true };
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(live.splice(0).map((t) => t.stop()));
});

function transport(id: MemberId, scheme: 'http' | 'https', got: Message[], unreachable: MemberId[]): PeerTransport {
  const t = new PeerTransport({
    localId: id,
    clusterId: CLUSTER,
    listenUrls: [`${scheme}://127.0.0.1:0`],
    tls: scheme === 'https' ? tls : undefined,
    onMessage: (m) => got.push(m),
    onUnreachable: (p) => unreachable.push(p),
  });
  live.push(t);
  return t;
}

const hb = (from: MemberId, to: MemberId, commit: number): Message => ({
  type: MessageType.Heartbeat, to, from, term: 1, logTerm: 0, index: 0, entries: [], commit, reject: false, rejectHint: 0,
});

describe('PeerTransport over https', () => {
  it('exchanges messages between members with peer certificates', async () => {
    const gotA: Message[] = [];
    const gotB: Message[] = [];
    const a = transport(1n, 'https', gotA, []);
    const b = transport(2n, 'https', gotB, []);
    await Promise.all([a.start(), b.start()]);
    a.addPeer(2n, [`https://127.0.0.1:${b.boundPorts[0]}`]);
    b.addPeer(1n, [`https://127.0.0.1:${a.boundPorts[0]}`]);
    a.send([hb(1n, 2n, 1)]);
    b.send([hb(2n, 1n, 2)]);
    await eventually('both delivered', () => gotA.length === 1 && gotB.length === 1, { timeoutMs: 8000, intervalMs: 10 });
    expect([gotA[0]!.commit, gotB[0]!.commit]).toEqual([2, 1]);
  });

  it('refuses a plaintext sender', async () => {
    const gotB: Message[] = [];
    const unreachable: MemberId[] = [];
    const b = transport(2n, 'https', gotB, []);
    const plain = transport(1n, 'http', [], unreachable);
    await Promise.all([b.start(), plain.start()]);
    plain.addPeer(2n, [`http://127.0.0.1:${b.boundPorts[0]}`]);
    plain.send([hb(1n, 2n, 1)]);
    await eventually('unreachable', () => unreachable.includes(2n), { timeoutMs: 8000, intervalMs: 10 });
    expect(plain.isConnected(2n)).toBe(false);
    expect(gotB).toEqual([]);
  });

  it('needs certificates for an https URL', async () => {
    const t = new PeerTransport({ localId: 1n, clusterId: CLUSTER, listenUrls: ['https://127.0.0.1:0'], onMessage: () => {} });
    live.push(t);
    await expect(t.start()).rejects.toThrow(/no peer certificate/);
  });
});
