import { describe, expect, it } from 'vitest';
import { checkUpgradeRequest } from '../../../main/console/upgradeRequest';

describe('checkUpgradeRequest', () => {
  const accepted = [
    { name: 'nothing: the defaults', input: undefined, want: { set: [], timeout: '5m', timeoutMs: 300_000, rehearse: true, rehearseBadFlag: false, force: false } },
    {
      name: 'every field',
      input: { to: '/builds/next', set: ['etcd.quota-backend-bytes=4294967296'], timeout: '1m30s', rehearse: false, rehearseBadFlag: true, force: true },
      want: { to: '/builds/next', set: ['etcd.quota-backend-bytes=4294967296'], timeout: '1m30s', timeoutMs: 90_000, rehearse: false, rehearseBadFlag: true, force: true },
    },
    { name: 'empty strings are unset', input: { to: '', timeout: '' }, want: { set: [], timeout: '5m', timeoutMs: 300_000 } },
  ];
  for (const c of accepted) it(`accepts ${c.name}`, () => expect(checkUpgradeRequest(c.input)).toMatchObject(c.want));

  const refused = [
    { name: 'a non-object', input: 'etcd', want: /upgrade must be an object/ },
    { name: 'an unknown field', input: { yes: true }, want: /upgrade\.yes: no such field/ },
    { name: 'a relative target', input: { to: 'out' }, want: /upgrade\.to must be an absolute path/ },
    { name: 'a target that is not a string', input: { to: 3 }, want: /upgrade\.to must be a directory path/ },
    { name: 'set not a list', input: { set: 'etcd.x=1' }, want: /upgrade\.set must be a list/ },
    { name: 'set with a non-string', input: { set: [1] }, want: /upgrade\.set must be a list/ },
    { name: 'a malformed setting', input: { set: ['quota=1'] }, want: /want COMPONENT\.FLAG=VALUE/ },
    { name: 'a layout flag', input: { set: ['etcd.name=x'] }, want: /the plane's layout sets --name/ },
    { name: 'a bad duration', input: { timeout: '5 minutes' }, want: /upgrade\.timeout: time: unknown unit/ },
    { name: 'a zero duration', input: { timeout: '0' }, want: /must be positive/ },
    { name: 'a numeric timeout', input: { timeout: 300 }, want: /must be a Go duration/ },
    { name: 'a non-boolean rehearse', input: { rehearse: 'yes' }, want: /upgrade\.rehearse must be true or false/ },
    { name: 'a non-boolean force', input: { force: 1 }, want: /upgrade\.force must be true or false/ },
  ];
  for (const c of refused) it(`refuses ${c.name}`, () => expect(() => checkUpgradeRequest(c.input)).toThrow(c.want));
});
