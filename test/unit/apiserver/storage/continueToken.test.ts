import { describe, expect, it } from 'vitest';
import { decodeContinue, encodeContinue } from '../../../../main/apiserver/storage/continueToken';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('continue tokens (kube pkg/storage/continue.go)', () => {
  it('encodes base64url JSON {v, rv, start} with the key after the list prefix', () => {
    const t = encodeContinue('/registry/pods/default/b\u0000', '/registry/pods/', 42n);
    expect(t).not.toMatch(/[=+/]/);
    expect(JSON.parse(Buffer.from(t, 'base64url').toString())).toEqual({ v: 'meta.k8s.io/v1', rv: 42, start: 'default/b\u0000' });
    expect(decodeContinue(t, '/registry/pods/')).toEqual({ fromKey: '/registry/pods/default/b\u0000', rv: 42n });
  });

  const bad = [
    { name: 'not base64', token: 'a!b', want: /^continue key is not valid: illegal base64 data at input byte 1$/ },
    { name: 'not JSON', token: Buffer.from('nope').toString('base64url'), want: /^continue key is not valid: / },
    { name: 'unknown version', token: b64({ v: 'v2', rv: 1, start: 'a' }), want: /^continue key is not valid: server does not recognize this encoded version v2$/ },
    { name: 'zero rv', token: b64({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }), want: /^continue key is not valid: incorrect encoded start resourceVersion \(version meta.k8s.io\/v1\)$/ },
    { name: 'empty start', token: b64({ v: 'meta.k8s.io/v1', rv: 3, start: '' }), want: /^continue key is not valid: encoded start key empty \(version meta.k8s.io\/v1\)$/ },
    { name: 'climbs out of the prefix', token: b64({ v: 'meta.k8s.io/v1', rv: 3, start: '../secrets/x' }), want: /^continue key is not valid: \.\.\/secrets\/x$/ },
    { name: 'unclean path', token: b64({ v: 'meta.k8s.io/v1', rv: 3, start: 'a//b' }), want: /^continue key is not valid: a\/\/b$/ },
  ];
  for (const c of bad) {
    it(`rejects ${c.name}`, () => {
      expect(() => decodeContinue(c.token, '/registry/pods/')).toThrow(c.want);
    });
  }

  it('accepts rv -1, the token kube hands out to continue at the newest revision after compaction', () => {
    expect(decodeContinue(b64({ v: 'meta.k8s.io/v1', rv: -1, start: 'default/b\u0000' }), '/registry/pods/')).toEqual({ fromKey: '/registry/pods/default/b\u0000', rv: -1n });
  });

  it('refuses to encode a key outside the prefix', () => {
    expect(() => encodeContinue('/registry/secrets/a', '/registry/pods/', 1n)).toThrow('the key and key prefix do not match');
  });
});
