// etcd 3.4's TLS flags (--cert-file ... --peer-client-cert-auth) into
// MemberConfig.clientTls / peerTls, and etcd's refusal of https:// listen
// URLs without a certificate and key (texts checked against Debian's etcd).

import { describe, expect, it } from 'vitest';
import { FlagError, parseEtcdFlags } from '../../../main/cmd/etcdFlags';

function config(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseEtcdFlags(argv, env);
  if (parsed.kind !== 'run') throw new Error(`expected run, got ${parsed.kind}`);
  return parsed.config;
}

function failure(argv: string[]): FlagError {
  try {
    parseEtcdFlags(argv, {});
  } catch (err) {
    if (err instanceof FlagError) return err;
    throw err;
  }
  throw new Error('expected a FlagError');
}

const https = [
  '--listen-client-urls', 'https://127.0.0.1:2379', '--advertise-client-urls', 'https://127.0.0.1:2379',
  '--listen-peer-urls', 'https://127.0.0.1:2380', '--initial-advertise-peer-urls', 'https://127.0.0.1:2380',
];

describe('TLS flags', () => {
  it('leaves TLS off by default', () => {
    const c = config([]);
    expect(c.clientTls).toBeUndefined();
    expect(c.peerTls).toBeUndefined();
  });

  it('reads the client and peer TLS files and the cert-auth switches', () => {
    const c = config([
      ...https,
      '--cert-file', 's.crt', '--key-file=s.key', '-trusted-ca-file', 'ca.crt', '--client-cert-auth',
      '--peer-cert-file', 'p.crt', '--peer-key-file', 'p.key', '--peer-trusted-ca-file', 'pca.crt', '--peer-client-cert-auth=false',
    ]);
    expect(c.clientTls).toEqual({ certFile: 's.crt', keyFile: 's.key', trustedCaFile: 'ca.crt', clientCertAuth: true });
    expect(c.peerTls).toEqual({ certFile: 'p.crt', keyFile: 'p.key', trustedCaFile: 'pca.crt', clientCertAuth: false });
  });

  it('takes the ETCD_* forms', () => {
    const c = config(https, {
      ETCD_CERT_FILE: 's.crt', ETCD_KEY_FILE: 's.key', ETCD_CLIENT_CERT_AUTH: 'true',
      ETCD_PEER_CERT_FILE: 'p.crt', ETCD_PEER_KEY_FILE: 'p.key', ETCD_PEER_TRUSTED_CA_FILE: 'ca.crt', ETCD_PEER_CLIENT_CERT_AUTH: '1',
    });
    expect(c.clientTls).toEqual({ certFile: 's.crt', keyFile: 's.key', trustedCaFile: '', clientCertAuth: true });
    expect(c.peerTls).toEqual({ certFile: 'p.crt', keyFile: 'p.key', trustedCaFile: 'ca.crt', clientCertAuth: true });
  });

  it('ignores a trusted CA and cert auth without a certificate or key (etcd: TLSInfo empty)', () => {
    expect(config(['--trusted-ca-file', 'ca.crt', '--client-cert-auth']).clientTls).toBeUndefined();
  });

  const refusals = [
    {
      name: 'an https peer URL without peer certificate (checked first, as etcd opens peer listeners first)',
      argv: [...https, '--cert-file', 's.crt', '--key-file', 's.key'],
      want: 'cannot listen on TLS for 127.0.0.1:2380: KeyFile and CertFile are not presented',
    },
    {
      name: 'an https client URL without client certificate',
      argv: [...https, '--peer-cert-file', 'p.crt', '--peer-key-file', 'p.key'],
      want: 'TLS key/cert (--cert-file, --key-file) must be provided for client url https://127.0.0.1:2379 with HTTPS scheme',
    },
  ];
  for (const c of refusals) {
    it(`refuses ${c.name}`, () => {
      const err = failure(c.argv);
      expect(err.message).toBe(c.want);
      expect(err.exitCode).toBe(1);
      expect(err.logPrefix).toBe('etcdmain: ');
      expect(err.showUsage).toBe(false);
    });
  }

  it('rejects a non-boolean --client-cert-auth as Go flag does', () => {
    expect(failure(['--client-cert-auth=yes']).message).toBe('invalid value "yes" for flag -client-cert-auth: parse error');
  });
});
