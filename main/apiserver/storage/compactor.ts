// kube-apiserver's etcd compactor (k8s.io/apiserver pkg/storage/etcd3/compact.go):
// every interval (--etcd-compaction-interval, default 5 min) it compacts etcd
// to the revision it saw one interval earlier, so at least one interval of
// history stays for watches and continue tokens. Several API servers share
// the work through the key "compact_rev_key": each round is
//   Txn(Version(compact_rev_key) = t).Then(Put(compact_rev_key, rev)).Else(Get(compact_rev_key))
// and only the server whose txn wins compacts; the others learn the new
// version t from the Else branch and try again next interval.

import type { EtcdClient } from '../../client/etcd/etcdClient';

export const COMPACT_REV_KEY = 'compact_rev_key';
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60 * 1000;

export interface CompactRound {
  /** compact_rev_key's version after this round (kube's "t"). */
  version: bigint;
  /** The revision observed this round; the next round compacts to it. */
  revision: bigint;
  /** The revision this round compacted to, if it did. */
  compacted?: bigint;
}

/** One round: claim the round with the version compare, then compact to lastRevision (0n: first round, nothing yet). */
export async function compactOnce(client: EtcdClient, version: bigint, lastRevision: bigint): Promise<CompactRound> {
  const res = await client.txn(
    [{ key: COMPACT_REV_KEY, version }],
    [{ put: { key: COMPACT_REV_KEY, value: Buffer.from(lastRevision.toString()) } }],
    [{ range: { key: COMPACT_REV_KEY } }],
  );
  if (!res.succeeded) {
    // Another API server compacted in this round; take its version.
    return { version: res.responses[0]?.kvs?.[0]?.version ?? version, revision: res.revision };
  }
  const next = { version: version + 1n, revision: res.revision };
  if (lastRevision === 0n) return next;
  try {
    await client.compact(lastRevision, false);
  } catch (e) {
    // Compacted already (e.g. etcd's own auto-compaction went further): fine.
    if (!(e as { compacted?: boolean }).compacted) throw e;
  }
  return { ...next, compacted: lastRevision };
}

/** Runs rounds every intervalMs until stopped; errors are reported and the next round retries. */
export function startCompactor(client: EtcdClient, intervalMs = DEFAULT_COMPACTION_INTERVAL_MS, onError: (e: unknown) => void = () => {}): { stop(): void; rounds: () => CompactRound[] } {
  let version = 0n;
  let revision = 0n;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const done: CompactRound[] = [];
  const round = async () => {
    try {
      const r = await compactOnce(client, version, revision);
      version = r.version;
      revision = r.revision;
      done.push(r);
      if (done.length > 100) done.shift();
    } catch (e) {
      onError(e);
    }
    if (!stopped) timer = setTimeout(() => void round(), intervalMs);
  };
  timer = setTimeout(() => void round(), intervalMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    rounds: () => [...done],
  };
}
