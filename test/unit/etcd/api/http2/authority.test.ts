// Which :authority values nghttp2 refuses, and the host:port they become.

import { describe, expect, it } from 'vitest';
import { isAcceptedAuthority, repairAuthority } from '../../../../../main/etcd/api/http2/authority';

describe('repairAuthority', () => {
  const cases = [
    { input: '127.0.0.1:2379', want: '127.0.0.1:2379' },
    { input: 'localhost', want: 'localhost' },
    { input: '[::1]:2379', want: '[::1]:2379' },
    { input: '', want: '' },
    { input: 'http://127.0.0.1:25380', want: '127.0.0.1:25380' },
    { input: 'https://etcd-0.example:2379', want: 'etcd-0.example:2379' },
    { input: 'http://[::1]:2379/', want: '[::1]:2379' },
    { input: 'http://h:1/v3/kv?x=1#f', want: 'h:1' },
    { input: 'unix://sock:0', want: 'sock:0' },
    { input: 'unixs:///tmp/etcd.sock', want: '' },
    { input: 'http://user:pw@h:1', want: 'h:1' },
    { input: 'h:1/path', want: 'h:1' },
    { input: 'h ost:1', want: 'h%20ost:1' },
    { input: 'h\xe9:1', want: 'h%E9:1' },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.input), () => {
      const got = repairAuthority(c.input);
      expect(got).toBe(c.want);
      expect(isAcceptedAuthority(got)).toBe(true);
    });
  }

  it('refuses what nghttp2 refuses', () => {
    for (const v of ['http://h:1', 'h/1', 'a@b', 'a b', 'a\tb', 'a"b', 'a<b', 'a{b', 'a^b', 'a\x7f', '\xff']) {
      expect(isAcceptedAuthority(v), v).toBe(false);
    }
    expect(isAcceptedAuthority("!$%&'()*+,-.:;=[]_~azAZ09")).toBe(true);
  });
});
