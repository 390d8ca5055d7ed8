import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../../main/client/kube/clock';
import {
  INDEX_NAMESPACE,
  INDEX_NODE_NAME,
  INDEX_OWNER_UID,
  SharedIndexInformer,
  type KubeObject,
  type ListResult,
  type ListerWatcher,
} from '../../../../main/client/kube/informer';
import { ApiError, type WatchEvent } from '../../../../main/client/kube/rest';

const pod = (name: string, rv: string, extra: { node?: string; owner?: string; ns?: string } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: extra.ns ?? 'default', resourceVersion: rv, uid: `uid-${name}`, ownerReferences: extra.owner ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: extra.owner }] : undefined },
  spec: extra.node ? { nodeName: extra.node } : {},
});

/** A scripted server: each watch call takes the next script (events, then how it ends). */
class FakeLW implements ListerWatcher {
  lists: ListResult[] = [];
  watches: { events: WatchEvent[]; end?: Error }[] = [];
  watchedFrom: string[] = [];
  private idle: (() => void)[] = [];
  async list(): Promise<ListResult> {
    const l = this.lists.shift();
    if (!l) throw new Error('no list scripted');
    return l;
  }
  async watch(rv: string, onEvent: (e: WatchEvent) => void, signal: AbortSignal): Promise<Error | undefined> {
    this.watchedFrom.push(rv);
    const w = this.watches.shift();
    if (!w) {
      await new Promise<void>((r) => {
        this.idle.push(r);
        signal.addEventListener('abort', () => r(), { once: true });
      });
      return undefined;
    }
    for (const e of w.events) onEvent(e);
    return w.end;
  }
}

async function settle(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
}

describe('SharedIndexInformer', () => {
  it('lists, watches from the list resourceVersion, follows bookmarks, and relists on 410 telling handlers only the difference', async () => {
    const lw = new FakeLW();
    lw.lists.push({ items: [pod('a', '10', { node: 'n1' }), pod('b', '11', { node: 'n2' })], resourceVersion: '12' });
    lw.watches.push({
      events: [
        { type: 'ADDED', object: pod('c', '13', { node: 'n1', owner: 'rs-1' }) },
        { type: 'MODIFIED', object: pod('a', '14', { node: 'n2' }) },
        { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '20' } } },
      ],
    });
    // The stream ended; the re-watch from 20 is told 410 inside the stream.
    lw.watches.push({ events: [{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 20 (30)' } }] });
    // The relist: a gone, c unchanged, b modified, d new.
    lw.lists.push({ items: [pod('b', '25', { node: 'n2' }), pod('c', '13', { node: 'n1', owner: 'rs-1' }), pod('d', '31')], resourceVersion: '32' });
    // And a 410 as the answer to the next watch request: one more relist.
    lw.watches.push({ events: [], end: new ApiError(410, { code: 410, reason: 'Expired' }) });
    lw.lists.push({ items: [pod('d', '31')], resourceVersion: '40' });

    const inf = new SharedIndexInformer(lw, { clock: new FakeClock() });
    const log: string[] = [];
    inf.addEventHandler({
      add: (o) => log.push(`add ${o.metadata!.name}@${o.metadata!.resourceVersion}`),
      update: (o, n) => log.push(`update ${n.metadata!.name} ${o.metadata!.resourceVersion}->${n.metadata!.resourceVersion}`),
      delete: (o) => log.push(`delete ${o.metadata!.name}`),
    });
    const ctl = new AbortController();
    const done = inf.run(ctl.signal);
    expect(await inf.waitForSync(ctl.signal)).toBe(true);
    await settle(() => lw.watchedFrom.length >= 4);
    ctl.abort();
    await done;

    expect(lw.watchedFrom).toEqual(['12', '20', '32', '40']);
    expect(inf.listCount).toBe(3);
    expect(log).toEqual([
      'add a@10',
      'add b@11',
      'add c@13',
      'update a 10->14',
      'update b 11->25',
      'add d@31',
      'delete a',
      'delete b',
      'delete c',
    ]);
    expect(inf.keys()).toEqual(['default/d']);
    expect(inf.hasSynced()).toBe(true);
  });

  it('keeps the namespace, spec.nodeName and owner uid indexes in step with updates and deletes', async () => {
    const lw = new FakeLW();
    lw.lists.push({ items: [pod('a', '1', { node: 'n1', owner: 'o1' }), pod('b', '2', { node: 'n1', ns: 'kube-system' })], resourceVersion: '2' });
    lw.watches.push({
      events: [
        { type: 'MODIFIED', object: pod('a', '3', { node: 'n2', owner: 'o1' }) },
        { type: 'DELETED', object: pod('b', '4', { node: 'n1', ns: 'kube-system' }) },
      ],
    });
    const inf = new SharedIndexInformer(lw, { clock: new FakeClock() });
    const ctl = new AbortController();
    const done = inf.run(ctl.signal);
    await settle(() => lw.watchedFrom.length >= 2);
    const names = (objs: KubeObject[]) => objs.map((o) => o.metadata!.name).sort();
    const cases = [
      { index: INDEX_NODE_NAME, value: 'n1', want: [] as string[] },
      { index: INDEX_NODE_NAME, value: 'n2', want: ['a'] },
      { index: INDEX_OWNER_UID, value: 'o1', want: ['a'] },
      { index: INDEX_NAMESPACE, value: 'kube-system', want: [] as string[] },
      { index: INDEX_NAMESPACE, value: 'default', want: ['a'] },
    ];
    for (const c of cases) expect(names(inf.byIndex(c.index, c.value)), `${c.index}=${c.value}`).toEqual(c.want);
    expect(inf.getByName('default', 'a')?.metadata?.resourceVersion).toBe('3');
    ctl.abort();
    await done;
  });

  it('resync replays cached objects to update handlers on the clock, and a late handler gets adds', async () => {
    const lw = new FakeLW();
    lw.lists.push({ items: [pod('a', '1')], resourceVersion: '1' });
    const clock = new FakeClock();
    const inf = new SharedIndexInformer(lw, { clock, resyncMs: 30_000 });
    const updates: string[] = [];
    inf.addEventHandler({ update: (o, n) => updates.push(`${o.metadata!.resourceVersion}=${n.metadata!.resourceVersion}`) });
    const ctl = new AbortController();
    const done = inf.run(ctl.signal);
    await inf.waitForSync();
    clock.step(29_999);
    expect(updates).toEqual([]);
    clock.step(1);
    expect(updates).toEqual(['1=1']);
    clock.step(30_000);
    expect(updates).toEqual(['1=1', '1=1']);
    const late: string[] = [];
    inf.addEventHandler({ add: (o) => late.push(o.metadata!.name!) });
    expect(late).toEqual(['a']);
    ctl.abort();
    await done;
  });

  it('retries a failed list with backoff and is not synced until one succeeds', async () => {
    const lw = new FakeLW();
    const clock = new FakeClock();
    const errors: string[] = [];
    const inf = new SharedIndexInformer(lw, { clock, onError: (e) => errors.push(e.message) });
    const ctl = new AbortController();
    const done = inf.run(ctl.signal);
    await settle(() => errors.length === 1);
    expect(inf.hasSynced()).toBe(false);
    lw.lists.push({ items: [], resourceVersion: '5' });
    clock.step(800);
    expect(await inf.waitForSync(ctl.signal)).toBe(true);
    expect(errors).toEqual(['no list scripted']);
    ctl.abort();
    await done;
  });

  it('stops while its list is still waiting for the server: the list is aborted and run() returns', async () => {
    let listSignal: AbortSignal | undefined;
    const lw: ListerWatcher = {
      // A server that accepted the request and never answers.
      list: (signal) =>
        new Promise<ListResult>((_, reject) => {
          listSignal = signal;
          signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
      watch: async () => undefined,
    };
    const errors: Error[] = [];
    const inf = new SharedIndexInformer(lw, { clock: new FakeClock(), onError: (e) => errors.push(e) });
    const ctl = new AbortController();
    const done = inf.run(ctl.signal);
    await settle(() => listSignal !== undefined);
    expect(listSignal).toBe(ctl.signal);
    ctl.abort();
    await done;
    expect(inf.hasSynced()).toBe(false);
    expect(errors).toEqual([]); // stopping is not a list failure
  });
});
