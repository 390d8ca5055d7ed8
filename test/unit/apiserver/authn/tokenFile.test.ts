import { describe, expect, it } from 'vitest';
import { parseGoCsv, parseTokenFile, tokenFileAuthenticator } from '../../../../main/apiserver/authn/tokenFile';
import { authenticateToken, bearerToken } from '../../../../main/apiserver/authn/tokenAuthenticator';

describe('parseGoCsv (encoding/csv, FieldsPerRecord -1)', () => {
  const cases = [
    { name: 'plain', input: 'a,b,c\n', want: [['a', 'b', 'c']] },
    { name: 'quoted with comma', input: 'tok,jane,1,"devs,ops"\n', want: [['tok', 'jane', '1', 'devs,ops']] },
    { name: 'escaped quote', input: '"a""b",c', want: [['a"b', 'c']] },
    { name: 'crlf and blank lines', input: 'a,b\r\n\r\n\nc,d', want: [['a', 'b'], ['c', 'd']] },
    { name: 'quoted newline', input: '"x\ny",z\nq', want: [['x\ny', 'z'], ['q']] },
    { name: 'empty fields', input: ',,\n', want: [['', '', '']] },
  ];
  for (const c of cases) it(c.name, () => expect(parseGoCsv(c.input)).toEqual(c.want));

  const errs = [
    { name: 'bare quote', input: 'ab"c,d', want: 'parse error on line 1, column 3: bare " in non-quoted-field' },
    { name: 'unterminated quote', input: 'a,"bc', want: 'extraneous or missing " in quoted-field' },
    { name: 'text after closing quote', input: '"a"b,c', want: 'parse error on line 1, column 3: extraneous or missing " in quoted-field' },
  ];
  for (const c of errs) it(`error: ${c.name}`, () => expect(() => parseGoCsv(c.input)).toThrow(c.want));
});

describe('parseTokenFile (kube tokenfile.NewCSV)', () => {
  it('reads users, uids and groups', () => {
    const f = parseTokenFile('/t.csv', 'secret1,jane,u1,"devs,ops"\nsecret2,bob,u2\n');
    expect(f.tokens.get('secret1')).toEqual({ username: 'jane', uid: 'u1', groups: ['devs', 'ops'] });
    expect(f.tokens.get('secret2')).toEqual({ username: 'bob', uid: 'u2', groups: [] });
    expect(f.warnings).toEqual([]);
  });
  it('needs three columns', () => {
    expect(() => parseTokenFile('/t.csv', 'secret1,jane\n')).toThrow("token file '/t.csv' must have at least 3 columns (token, user name, user uid), found 2");
  });
  it('skips empty tokens and warns on duplicates (last one wins)', () => {
    const f = parseTokenFile('/t.csv', ',nobody,0\nx,a,1\nx,b,2\n');
    expect(f.tokens.size).toBe(1);
    expect(f.tokens.get('x')?.username).toBe('b');
    expect(f.warnings).toEqual([
      "empty token has been found in token file '/t.csv', record number '1'",
      "duplicate token has been found in token file '/t.csv', record number '3'",
    ]);
  });
});

describe('bearerToken (kube bearertoken authenticator)', () => {
  const cases = [
    { name: 'bearer', header: 'Bearer abc', want: 'abc' },
    { name: 'lower case scheme', header: 'bearer abc', want: 'abc' },
    { name: 'trailing words ignored', header: 'Bearer abc def', want: 'abc' },
    { name: 'surrounding space trimmed', header: '  Bearer abc  ', want: 'abc' },
    { name: 'double space: empty token', header: 'Bearer  abc', want: undefined },
    { name: 'basic auth', header: 'Basic Zm9vOmJhcg==', want: undefined },
    { name: 'scheme only', header: 'Bearer', want: undefined },
    { name: 'none', header: undefined, want: undefined },
  ];
  for (const c of cases) it(c.name, () => expect(bearerToken({ headers: { authorization: c.header } })).toBe(c.want));
});

describe('authenticateToken (union of token authenticators)', () => {
  const file = tokenFileAuthenticator(parseTokenFile('/t.csv', 'good,jane,u1,devs\n'));
  const refusing = { name: 'serviceaccount', authenticateToken: (t: string) => (t.startsWith('ey') ? Promise.reject(new Error('service account token has expired')) : undefined) };
  it('static token, API audiences', async () => {
    const r = await authenticateToken([file, refusing], 'good', ['https://kubernetes.default.svc'], ['https://kubernetes.default.svc']);
    expect(r).toEqual({ user: { username: 'jane', uid: 'u1', groups: ['devs'] }, audiences: ['https://kubernetes.default.svc'], by: 'token' });
  });
  it('static token is not valid for another audience', async () => {
    await expect(authenticateToken([file], 'good', ['vault'], ['https://kubernetes.default.svc'])).rejects.toThrow('invalid bearer token');
  });
  it('unknown token', async () => {
    await expect(authenticateToken([file, refusing], 'nope', undefined, [])).rejects.toThrow(/^invalid bearer token$/);
  });
  it('a refusal is the error', async () => {
    await expect(authenticateToken([file, refusing], 'eyX', undefined, [])).rejects.toThrow(/^service account token has expired$/);
  });
});
