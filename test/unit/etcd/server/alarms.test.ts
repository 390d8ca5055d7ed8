import { describe, expect, it } from 'vitest';
import { AlarmAction, AlarmType } from '../../../../main/etcd/api/etcdServer';
import {
  AlarmStore,
  applyAlarm,
  costPut,
  costTxn,
  formatAlarm,
  quotaAvailable,
  rejectWhenCapped,
  rejectWhenNoSpace,
} from '../../../../main/etcd/server/alarms';
import { putReq } from './clusterHarness';

describe('alarms', () => {
  it('activates, lists, deactivates like etcd’s alarm store', () => {
    const s = new AlarmStore();
    expect(applyAlarm(s, { action: AlarmAction.Activate, memberId: 7n, alarm: AlarmType.None })).toEqual([]);
    expect(applyAlarm(s, { action: AlarmAction.Activate, memberId: 9n, alarm: AlarmType.NoSpace })).toEqual([{ memberId: 9n, alarm: AlarmType.NoSpace }]);
    applyAlarm(s, { action: AlarmAction.Activate, memberId: 3n, alarm: AlarmType.NoSpace });
    applyAlarm(s, { action: AlarmAction.Activate, memberId: 1n, alarm: AlarmType.Corrupt });
    expect(applyAlarm(s, { action: AlarmAction.Get, memberId: 0n, alarm: AlarmType.None }).map(formatAlarm)).toEqual([
      'memberID:3 alarm:NOSPACE ',
      'memberID:9 alarm:NOSPACE ',
      'memberID:1 alarm:CORRUPT ',
    ]);
    expect(applyAlarm(s, { action: AlarmAction.Get, memberId: 0n, alarm: AlarmType.Corrupt })).toHaveLength(1);
    expect(applyAlarm(s, { action: AlarmAction.Deactivate, memberId: 4n, alarm: AlarmType.NoSpace })).toEqual([]);
    expect(applyAlarm(s, { action: AlarmAction.Deactivate, memberId: 3n, alarm: AlarmType.NoSpace })).toHaveLength(1);
    expect(s.has(AlarmType.NoSpace)).toBe(true);
    applyAlarm(s, { action: AlarmAction.Deactivate, memberId: 9n, alarm: AlarmType.NoSpace });
    expect(s.has(AlarmType.NoSpace)).toBe(false);
    const copy = AlarmStore.fromSnapshot(JSON.parse(JSON.stringify(s.toSnapshot())));
    expect(copy.get()).toEqual(s.get());
  });

  it('while NOSPACE is active rejects puts, txns that put and lease grants only', () => {
    const s = new AlarmStore();
    const put = putReq('k', 'v');
    const readTxn = { compare: [], success: [], failure: [] };
    const putTxn = { compare: [], success: [], failure: [{ put }] };
    expect(() => rejectWhenNoSpace(s, { put })).not.toThrow();
    s.activate(1n, AlarmType.NoSpace);
    expect(() => rejectWhenNoSpace(s, { put })).toThrow('etcdserver: mvcc: database space exceeded');
    expect(() => rejectWhenNoSpace(s, { txn: putTxn })).toThrow('etcdserver: mvcc: database space exceeded');
    expect(() => rejectWhenNoSpace(s, { leaseGrant: { id: 1n, ttl: 5 } })).toThrow('etcdserver: mvcc: database space exceeded');
    expect(() => rejectWhenNoSpace(s, { txn: readTxn })).not.toThrow();
    expect(() => rejectWhenNoSpace(s, { compaction: { revision: 2, physical: false } })).not.toThrow();
    expect(() => rejectWhenNoSpace(s, { deleteRange: {} })).not.toThrow();
  });

  it('while CORRUPT is active rejects every keyspace and lease change, not alarms', () => {
    const s = new AlarmStore();
    s.activate(1n, AlarmType.Corrupt);
    const corrupt = 'etcdserver: corrupt cluster';
    expect(() => rejectWhenCapped(s, { put: putReq('k', 'v') })).toThrow(corrupt);
    expect(() => rejectWhenCapped(s, { deleteRange: {} })).toThrow(corrupt);
    expect(() => rejectWhenCapped(s, { compaction: { revision: 2, physical: false } })).toThrow(corrupt);
    expect(() => rejectWhenCapped(s, { leaseRevoke: { id: 1n } })).toThrow(corrupt);
    expect(() => rejectWhenCapped(s, { alarm: { action: AlarmAction.Deactivate, memberId: 1n, alarm: AlarmType.Corrupt } })).not.toThrow();
    expect(() => rejectWhenCapped(s, { memberAttrSet: {} })).not.toThrow();
    s.deactivate(1n, AlarmType.Corrupt);
    s.activate(1n, AlarmType.NoSpace);
    expect(() => rejectWhenCapped(s, { put: putReq('k', 'v') })).toThrow('etcdserver: mvcc: database space exceeded');
  });

  it('costs requests as etcd’s quota does', () => {
    const put = putReq('key', 'value');
    expect(costPut(put)).toBe(256 + 3 + 5);
    expect(costTxn({ compare: [], success: [{ put }], failure: [{ put }, { put }] })).toBe(2 * costPut(put));
    expect(quotaAvailable(1000, 10, 1011)).toBe(true);
    expect(quotaAvailable(1000, 11, 1011)).toBe(false);
    expect(quotaAvailable(1000, 11, 0)).toBe(true); // 0: etcd's default, 2 GiB
    expect(quotaAvailable(2 ** 31, 0, 0)).toBe(false);
    expect(quotaAvailable(2 ** 40, 11, -1)).toBe(true); // negative: no quota
  });
});

describe('alarms in the state machine', () => {
  it('are proposed, applied, cap writes, and survive a snapshot', async () => {
    const { encodeInternalRequest, decodeInternalRequest } = await import('../../../../main/etcd/server/internalRequest');
    const { StateMachine } = await import('../../../../main/etcd/server/stateMachine');
    const activate = { id: 5n, alarm: { action: AlarmAction.Activate, memberId: 0xfedcba9876543210n, alarm: AlarmType.NoSpace } };
    expect(decodeInternalRequest(encodeInternalRequest(activate))).toEqual(activate);

    const sm = new StateMachine();
    expect(sm.applyNormal(1, encodeInternalRequest({ id: 1n, put: putReq('a', '1') }))).toMatchObject({ id: 1n, value: { revision: 2 } });
    const member = { memberId: activate.alarm.memberId, alarm: AlarmType.NoSpace };
    expect(sm.applyNormal(2, encodeInternalRequest(activate))).toEqual({ id: 5n, value: [member] });
    const refused = sm.applyNormal(3, encodeInternalRequest({ id: 3n, put: putReq('b', '2') }));
    expect(refused).toMatchObject({ id: 3n, error: { message: 'etcdserver: mvcc: database space exceeded' } });
    expect(sm.store.currentRevision).toBe(2);

    const copy = new StateMachine();
    copy.restore(sm.snapshotData());
    expect(copy.alarms.get()).toEqual([member]);
    const deactivate = { id: 6n, alarm: { ...activate.alarm, action: AlarmAction.Deactivate } };
    expect(copy.applyNormal(4, encodeInternalRequest(deactivate))).toEqual({ id: 6n, value: [member] });
    expect(copy.applyNormal(5, encodeInternalRequest({ id: 7n, put: putReq('b', '2') }))).toMatchObject({ value: { revision: 3 } });
  });
});
