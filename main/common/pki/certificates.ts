// Issuing X.509 certificates for a local cluster's PKI.
//
// Node's crypto makes the keys (ECDSA P-256, PKCS#8 PEM) but cannot build
// certificates, and no X.509 library is among our dependencies, so the
// certificates are signed by the system's `openssl` binary (OpenSSL 3),
// run with argument arrays (no shell) and a small config file of our own,
// so the system openssl.cnf adds nothing. Profiles follow kubeadm's etcd PKI:
//   CA:     CA:TRUE, keyCertSign + cRLSign + digitalSignature, 10 years
//   server: digitalSignature + keyEncipherment, serverAuth + clientAuth, SANs
//   peer:   same as server (members are both ends of a peer connection)
//   client: digitalSignature + keyEncipherment, clientAuth, no SANs
// Leaf certificates are valid for one year, as kubeadm's.

import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';

export const OPENSSL = '/usr/bin/openssl';
const CA_DAYS = 3650;
const LEAF_DAYS = 365;

export interface KeyAndCert {
  /** PKCS#8 PEM. */
  key: string;
  /** PEM. */
  cert: string;
}

export type LeafProfile = 'server' | 'peer' | 'client';

export interface LeafRequest {
  profile: LeafProfile;
  commonName: string;
  /** DNS names and IP addresses (v4 or v6); ignored for client certificates. */
  hosts?: string[];
  /** Subject O values (Kubernetes reads them as the user's groups, e.g. system:masters). */
  organizations?: string[];
}

export function newEcdsaKey(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

export function issueCa(commonName: string): KeyAndCert {
  const key = newEcdsaKey();
  const cert = withWorkDir((dir) => {
    const keyFile = write(dir, 'ca.key', key);
    const config = write(dir, 'ca.cnf', opensslConfig(commonName, [
      'basicConstraints = critical, CA:TRUE',
      'keyUsage = critical, digitalSignature, keyEncipherment, keyCertSign, cRLSign',
      'subjectKeyIdentifier = hash',
    ]));
    return openssl(['req', '-x509', '-new', '-config', config, '-extensions', 'ext', '-key', keyFile, '-sha256', '-days', String(CA_DAYS), '-set_serial', serial()]);
  });
  return { key, cert };
}

export function issueLeaf(ca: KeyAndCert, req: LeafRequest): KeyAndCert {
  const key = newEcdsaKey();
  const hosts = req.profile === 'client' ? [] : (req.hosts ?? []);
  const ext = [
    'basicConstraints = critical, CA:FALSE',
    'keyUsage = critical, digitalSignature, keyEncipherment',
    `extendedKeyUsage = ${req.profile === 'client' ? 'clientAuth' : 'serverAuth, clientAuth'}`,
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid:always',
  ];
  if (hosts.length > 0) ext.push(`subjectAltName = ${hosts.map((h) => (isIP(h) ? `IP:${h}` : `DNS:${h}`)).join(', ')}`);
  const cert = withWorkDir((dir) => {
    const config = write(dir, 'leaf.cnf', opensslConfig(req.commonName, ext, req.organizations));
    const keyFile = write(dir, 'leaf.key', key);
    const caKey = write(dir, 'ca.key', ca.key);
    const caCert = write(dir, 'ca.crt', ca.cert);
    const csr = write(dir, 'leaf.csr', openssl(['req', '-new', '-config', config, '-key', keyFile]));
    return openssl([
      'x509', '-req', '-in', csr, '-CA', caCert, '-CAkey', caKey, '-set_serial', serial(),
      '-days', String(LEAF_DAYS), '-sha256', '-extfile', config, '-extensions', 'ext',
    ]);
  });
  return { key, cert };
}

/** A config with only what we ask for: the subject's CN and one extension section. */
function opensslConfig(commonName: string, extensions: string[], organizations: string[] = []): string {
  for (const name of [commonName, ...organizations]) {
    if (!/^[\w.@:-]+$/.test(name)) throw new Error(`unsupported certificate subject name ${JSON.stringify(name)}`);
  }
  return [
    '[req]',
    'prompt = no',
    'distinguished_name = dn',
    'utf8 = yes',
    '[dn]',
    ...organizations.map((o, i) => `${i}.O = ${o}`),
    `CN = ${commonName}`,
    '[ext]',
    ...extensions,
    '',
  ].join('\n');
}

function openssl(args: string[]): string {
  try {
    return execFileSync(OPENSSL, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim() || (err as Error).message}`);
  }
}

/** Random positive 128-bit serial (RFC 5280: at most 20 octets, positive). */
function serial(): string {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return `0x${b.toString('hex')}`;
}

/** Keys pass through a private temp dir (0700) removed afterwards. */
function withWorkDir<T>(f: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-pki-'));
  try {
    return f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function write(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

