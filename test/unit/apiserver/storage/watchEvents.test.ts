import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { bookmarkEvent, toWatchEvent, type ObjectEvent } from '../../../../main/apiserver/storage/watchEvents';

const o = (app: string): KObject => ({ metadata: { name: 'p', labels: { app } } });
const isY = (x: KObject) => x.metadata.labels?.app === 'y';

describe('etcd change → watch event under a predicate', () => {
  const cases: { name: string; ev: ObjectEvent; want: string | undefined }[] = [
    { name: 'create matching', ev: { type: 'PUT', key: 'k', rev: 5n, obj: o('y') }, want: 'ADDED y' },
    { name: 'create not matching', ev: { type: 'PUT', key: 'k', rev: 5n, obj: o('x') }, want: undefined },
    { name: 'update both matching', ev: { type: 'PUT', key: 'k', rev: 5n, obj: o('y'), prevObj: o('y') }, want: 'MODIFIED y' },
    { name: 'update enters the selector', ev: { type: 'PUT', key: 'k', rev: 5n, obj: o('y'), prevObj: o('x') }, want: 'ADDED y' },
    { name: 'update leaves the selector: the old object', ev: { type: 'PUT', key: 'k', rev: 5n, obj: o('x'), prevObj: o('y') }, want: 'DELETED y' },
    { name: 'update never matching', ev: { type: 'PUT', key: 'k', rev: 5n, obj: o('x'), prevObj: o('z') }, want: undefined },
    { name: 'delete of a matching object', ev: { type: 'DELETE', key: 'k', rev: 5n, prevObj: o('y') }, want: 'DELETED y' },
    { name: 'delete of a non-matching object', ev: { type: 'DELETE', key: 'k', rev: 5n, prevObj: o('x') }, want: undefined },
    { name: 'delete without prev_kv (compacted)', ev: { type: 'DELETE', key: 'k', rev: 5n }, want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = toWatchEvent(c.ev, isY);
      expect(e ? `${e.type} ${(e.object as KObject).metadata.labels?.app}` : undefined).toBe(c.want);
    });
  }

  it('bookmarks carry only kind, apiVersion, resourceVersion and the initial-events-end annotation', () => {
    expect(bookmarkEvent({ apiVersion: 'v1', kind: 'Pod' }, 12746n)).toEqual({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '12746' } } });
    expect(bookmarkEvent({ apiVersion: 'apps/v1', kind: 'Deployment' }, 7n, true).object).toEqual({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { resourceVersion: '7', annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
  });
});
