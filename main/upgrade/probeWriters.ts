// What the availability probe writes through, one writer per channel: each
// write leaves one record of its own, named by the run and the write's
// sequence number, so that every acknowledged write can be looked for alone
// at the end, and all of the run's records removed together.
//
//   etcd       a Put of /pilothouse/upgrade-probe/<runId>/<seq, 8 digits>
//   apiserver  a ConfigMap default/upgrade-probe-<runId>-<seq, 8 digits>,
//              labelled pilothouse.dev/upgrade-probe=<runId>
//
// The etcd client fails over by itself only where a call certainly never
// reached a member; a Put that reached one and failed (the member died under
// it, or it timed out on a member without a leader) fails without moving on.
// The writer then moves the client to the next member itself, so that the
// next write does not wait on the same member: the probe measures the
// cluster, not one member.

import { EtcdClient, prefixEnd } from '../client/etcd/etcdClient';
import type { ChannelTls } from '../client/etcd/etcdChannel';
import { ApiError, type RestClient } from '../client/kube/restClient';
import type { ProbeChannel } from './availabilityTally';

export interface ProbeWriter {
  readonly channel: ProbeChannel;
  /**
   * Writes the record of seq; resolves once acknowledged, rejects when the
   * write failed. Must settle soon after signal aborts (the probe's write
   * timeout): the probe starts no other write on this channel until it has.
   */
  write(seq: number, signal: AbortSignal): Promise<void>;
  /** The seqs of this run's records that are there now (a linearizable read). */
  present(): Promise<Set<number>>;
  /** Removes every record of this run. */
  cleanup(): Promise<void>;
  close(): void;
}

export const ETCD_PROBE_PREFIX = '/pilothouse/upgrade-probe/';
export const PROBE_LABEL = 'pilothouse.dev/upgrade-probe';
const SEQ_DIGITS = 8;
/** Bounds a listing's pages: far more records than a 30-minute run at 10 writes a second leaves. */
const MAX_PAGES = 1_000;
const PAGE = 1_000;
/** A verification or clean-up request's deadline. */
const READ_TIMEOUT_MS = 10_000;

export const seqText = (seq: number): string => String(seq).padStart(SEQ_DIGITS, '0');

/** The seq at the end of a record's key or name, or undefined for anything else. */
function seqAfter(prefix: string, name: string): number | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}

export function etcdProbeWriter(o: { endpoints: string[]; tls?: ChannelTls; runId: string; writeTimeoutMs: number }): ProbeWriter {
  const client = new EtcdClient({ endpoints: o.endpoints, tls: o.tls, callTimeoutMs: o.writeTimeoutMs });
  const prefix = `${ETCD_PROBE_PREFIX}${o.runId}/`;
  return {
    channel: 'etcd',
    async write(seq) {
      const { index } = client.currentEndpoint();
      try {
        await client.txn([], [{ put: { key: prefix + seqText(seq), value: Buffer.from(String(seq)) } }], []);
      } catch (e) {
        client.failover(index);
        throw e;
      }
    },
    async present() {
      const seqs = new Set<number>();
      let from = Buffer.from(prefix);
      const end = prefixEnd(prefix);
      for (let page = 0; page < MAX_PAGES; page++) {
        const r = await client.range({ key: from, rangeEnd: end, keysOnly: true, limit: PAGE });
        for (const kv of r.kvs) {
          const seq = seqAfter(prefix, kv.key.toString('utf8'));
          if (seq !== undefined) seqs.add(seq);
        }
        const last = r.kvs[r.kvs.length - 1];
        if (!r.more || !last) return seqs;
        from = Buffer.concat([last.key, Buffer.from([0])]);
      }
      throw new Error(`more than ${MAX_PAGES * PAGE} keys under ${prefix}`);
    },
    async cleanup() {
      await client.txn([], [{ deleteRange: { key: prefix, rangeEnd: prefixEnd(prefix) } }], []);
    },
    close: () => client.close(),
  };
}

interface ConfigMapList {
  items: { metadata: { name: string } }[];
  metadata?: { continue?: string };
}

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

export function apiServerProbeWriter(o: { rest: RestClient; runId: string }): ProbeWriter {
  const { rest } = o;
  const prefix = `upgrade-probe-${o.runId}-`;
  const labelSelector = `${PROBE_LABEL}=${o.runId}`;
  const timeout = () => AbortSignal.timeout(READ_TIMEOUT_MS);
  const names = async (): Promise<string[]> => {
    const all: string[] = [];
    let cont: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const list = await rest.request<ConfigMapList>('GET', CONFIGMAPS, { query: { labelSelector, limit: PAGE, continue: cont }, signal: timeout() });
      for (const cm of list.items) all.push(cm.metadata.name);
      cont = list.metadata?.continue || undefined;
      if (!cont) return all;
    }
    throw new Error(`more than ${MAX_PAGES * PAGE} ConfigMaps labelled ${labelSelector}`);
  };
  return {
    channel: 'apiserver',
    async write(seq, signal) {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: prefix + seqText(seq), labels: { [PROBE_LABEL]: o.runId } }, data: { seq: String(seq) } };
      await rest.request('POST', CONFIGMAPS, { body, signal });
    },
    async present() {
      const seqs = new Set<number>();
      for (const name of await names()) {
        const seq = seqAfter(prefix, name);
        if (seq !== undefined) seqs.add(seq);
      }
      return seqs;
    },
    async cleanup() {
      try {
        await rest.request('DELETE', CONFIGMAPS, { query: { labelSelector }, signal: timeout() });
        return;
      } catch (e) {
        // A server without deletecollection: one by one.
        if (!(e instanceof ApiError && (e.status === 405 || e.status === 404))) throw e;
      }
      for (const name of await names()) {
        await rest.request('DELETE', `${CONFIGMAPS}/${name}`, { signal: timeout() }).catch((e: unknown) => {
          if (!(e instanceof ApiError && e.status === 404)) throw e;
        });
      }
    },
    close: () => rest.close(),
  };
}
