// Test helper: in-process members on loopback with temp data dirs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemberConfig } from '../../../../main/etcd/server/memberConfig';
import { startMember, type Member } from '../../../../main/etcd/server/index';
import { eventually } from '../../../support/waitFor';

export interface HarnessMember {
  name: string;
  config: MemberConfig;
  member?: Member;
  logs: string[];
}

/** Three members; `ports` holds (peer, client) pairs, m1's first: take them from `freePorts(6)`. */
export function makeConfigs(ports: readonly number[], overrides: Partial<MemberConfig> = {}): { dir: string; members: HarnessMember[] } {
  if (ports.length < 6) throw new Error(`makeConfigs needs 6 ports, got ${ports.length}`);
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-member-'));
  const names = ['m1', 'm2', 'm3'];
  const peer = (i: number) => `http://127.0.0.1:${ports[2 * i]}`;
  const client = (i: number) => `http://127.0.0.1:${ports[2 * i + 1]}`;
  const initialCluster = new Map(names.map((n, i) => [n, [peer(i)]]));
  const members = names.map((name, i) => {
    const logs: string[] = [];
    const config: MemberConfig = {
      name,
      dataDir: join(dir, name),
      listenClientUrls: [client(i)],
      advertiseClientUrls: [client(i)],
      listenPeerUrls: [peer(i)],
      initialAdvertisePeerUrls: [peer(i)],
      initialCluster,
      initialClusterState: 'new',
      initialClusterToken: 'member-test',
      heartbeatInterval: 50,
      electionTimeout: 500,
      snapshotCount: 100000,
      quotaBackendBytes: 0,
      maxRequestBytes: 1.5 * 1024 * 1024,
      maxTxnOps: 128,
      logger: (line) => logs.push(line),
      ...overrides,
    };
    return { name, config, logs };
  });
  return { dir, members };
}

export async function start(m: HarnessMember, serveClients?: boolean): Promise<Member> {
  m.member = await startMember(m.config, { serveClients: serveClients ?? false });
  return m.member;
}

export async function stop(m: HarnessMember): Promise<void> {
  const member = m.member;
  m.member = undefined;
  await member?.stop();
}

export async function stopAll(dir: string, members: HarnessMember[]): Promise<void> {
  await Promise.all(members.map(stop));
  rmSync(dir, { recursive: true, force: true });
}

/** The leader id once every running member agrees on one. */
export async function agreedLeader(members: HarnessMember[], other?: bigint): Promise<bigint> {
  return eventually('an agreed leader', async () => {
    const running = members.filter((m) => m.member);
    const leads = await Promise.all(running.map(async (m) => (await m.member!.status()).result.leader));
    const first = leads[0];
    return first && first !== 0n && first !== other && leads.every((l) => l === first) ? first : undefined;
  }, { timeoutMs: 10_000, intervalMs: 20 });
}

const enc = new TextEncoder();
const dec = new TextDecoder();
export const bytes = (s: string) => enc.encode(s);
export const text = (b: Uint8Array) => dec.decode(b);

export function rangeReq(key: string, serializable = false) {
  return {
    key: bytes(key),
    rangeEnd: new Uint8Array(0),
    limit: 0,
    revision: 0,
    sortOrder: 0,
    sortTarget: 0,
    serializable,
    keysOnly: false,
    countOnly: false,
    minModRevision: 0,
    maxModRevision: 0,
    minCreateRevision: 0,
    maxCreateRevision: 0,
  };
}

export function putReq(key: string, value: string) {
  return { key: bytes(key), value: bytes(value), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false };
}
