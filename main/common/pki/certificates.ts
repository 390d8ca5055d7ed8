// Issuing X.509 certificates for a local cluster's PKI, in-process: keys
// from node:crypto (ECDSA P-256, written as PKCS#8 PEM, which Go's
// tls.X509KeyPair — etcd, kubectl — Node TLS and openssl all read) and
// certificates built and signed by @peculiar/x509 over WebCrypto, so no
// external program runs and nothing blocks the event loop. Profiles follow
// kubeadm's PKI:
//   CA:     CA:TRUE, keyCertSign + cRLSign + digitalSignature, 10 years
//   server: digitalSignature + keyEncipherment, serverAuth + clientAuth, SANs
//   peer:   same as server (members are both ends of a peer connection)
//   client: digitalSignature + keyEncipherment, clientAuth, no SANs
// Leaf certificates are valid for one year, as kubeadm's, and renewed by
// renewal.ts.
//
// A first start issues about twenty certificates, on the critical path of
// `pilothouse up`: keys are made by WebCrypto itself (no PEM round trip
// through node:crypto to import them), and a CA's parsed certificate and
// imported signing key are kept per CA, not parsed again for every leaf.

import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey, generateKeyPair, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

export const CA_DAYS = 3650;
export const LEAF_DAYS = 365;
const DAY_MS = 86_400_000;
/** notBefore is set this far back, so a client whose clock is a little behind still accepts a new certificate. */
const BACKDATE_MS = 5 * 60_000;
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

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

/** When a certificate starts and how long it lasts; tests pass a clock and short lifetimes. */
export interface Validity {
  now?: Date;
  days?: number;
}

export async function newEcdsaKey(): Promise<string> {
  const { privateKey } = await promisify(generateKeyPair)('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** A new P-256 pair as WebCrypto keys, and its private key as PKCS#8 PEM (what newEcdsaKey writes). */
async function newKeyPair(): Promise<{ pem: string; privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey }> {
  const subtle = webcrypto.subtle;
  const pair = await subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const der = Buffer.from(await subtle.exportKey('pkcs8', pair.privateKey));
  return { pem: pkcs8Pem(der), privateKey: pair.privateKey, publicKey: pair.publicKey };
}

/** DER PKCS#8 as PEM, 64 columns, as node:crypto's export writes it. */
function pkcs8Pem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

export async function issueCa(commonName: string, validity: Validity = {}): Promise<KeyAndCert> {
  const { pem: key, privateKey, publicKey } = await newKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: subject(commonName),
    ...period(validity, CA_DAYS),
    signingAlgorithm: SIGNING,
    keys: { privateKey, publicKey },
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
    ],
  });
  return { key, cert: cert.toString('pem') + '\n' };
}

export async function issueLeaf(ca: KeyAndCert, req: LeafRequest, validity: Validity = {}): Promise<KeyAndCert> {
  const { pem: key, publicKey } = await newKeyPair();
  const issuer = await issuerOf(ca);
  const { caCert, caKey } = issuer;
  const hosts = req.profile === 'client' ? [] : (req.hosts ?? []);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(
      req.profile === 'client' ? [x509.ExtendedKeyUsage.clientAuth] : [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth],
    ),
    await x509.SubjectKeyIdentifierExtension.create(publicKey),
    issuer.authorityKeyId,
  ];
  if (hosts.length > 0) {
    extensions.push(new x509.SubjectAlternativeNameExtension(hosts.map((h) => (isIP(h) ? { type: 'ip', value: h } : { type: 'dns', value: h }))));
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: subject(req.commonName, req.organizations),
    // The issuer is the CA's subject as encoded in its certificate, so chains match byte for byte.
    issuer: caCert.subjectName,
    ...period(validity, LEAF_DAYS),
    signingAlgorithm: SIGNING,
    publicKey,
    signingKey: caKey,
    extensions,
  });
  return { key, cert: cert.toString('pem') + '\n' };
}

/** The request a certificate was issued for (profile, names, groups): what a renewal issues again. */
export function leafRequestOf(certPem: string): LeafRequest {
  const parsed = new x509.X509Certificate(certPem);
  const serverAuth = parsed.getExtension(x509.ExtendedKeyUsageExtension)?.usages.includes(x509.ExtendedKeyUsage.serverAuth) ?? false;
  const subjectName = parsed.subjectName;
  const sans = parsed.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON() ?? [];
  const hosts = sans.filter((n) => n.type === 'dns' || n.type === 'ip').map((n) => n.value);
  const organizations = subjectName.getField('O');
  return {
    profile: serverAuth ? 'server' : 'client',
    commonName: subjectName.getField('CN')[0] ?? '',
    hosts: serverAuth ? hosts : undefined,
    organizations: organizations.length > 0 ? organizations : undefined,
  };
}

/** The CA's own key identifier (from its SKI, whoever made it), else one derived from its key. */
async function authorityKeyId(caCert: x509.X509Certificate): Promise<x509.AuthorityKeyIdentifierExtension> {
  const ski = caCert.getExtension(x509.SubjectKeyIdentifierExtension);
  if (ski) return new x509.AuthorityKeyIdentifierExtension(ski.keyId);
  return x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey);
}

interface Issuer {
  caCert: x509.X509Certificate;
  caKey: webcrypto.CryptoKey;
  authorityKeyId: x509.AuthorityKeyIdentifierExtension;
}

/** Issuers by CA certificate and key PEM; a plane has two CAs, tests a few more. */
const issuers = new Map<string, Promise<Issuer>>();
const MAX_ISSUERS = 16;

/** The CA's parsed certificate, imported signing key and key identifier, made once per CA. */
function issuerOf(ca: KeyAndCert): Promise<Issuer> {
  const id = `${ca.cert}\0${ca.key}`;
  let issuer = issuers.get(id);
  if (issuer === undefined) {
    if (issuers.size >= MAX_ISSUERS) issuers.delete(issuers.keys().next().value!);
    issuer = (async () => {
      const caCert = new x509.X509Certificate(ca.cert);
      return { caCert, caKey: (await cryptoKeys(ca.key)).privateKey, authorityKeyId: await authorityKeyId(caCert) };
    })();
    issuers.set(id, issuer);
    issuer.catch(() => issuers.delete(id));
  }
  return issuer;
}

/** WebCrypto keys from a PEM private key of any encoding node reads (PKCS#8, SEC1). */
async function cryptoKeys(pem: string): Promise<{ privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey }> {
  const key = createPrivateKey(pem);
  const subtle = webcrypto.subtle;
  const privateKey = await subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), EC_P256, false, ['sign']);
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const publicKey = await subtle.importKey('spki', spki, EC_P256, true, ['verify']);
  return { privateKey, publicKey };
}

/** Subject RDNs in the order kubeadm writes them: O values, then CN. */
function subject(commonName: string, organizations: string[] = []): x509.JsonName {
  return [...organizations.map((o) => ({ O: [o] })), { CN: [commonName] }];
}

function period(v: Validity, defaultDays: number): { notBefore: Date; notAfter: Date } {
  const now = (v.now ?? new Date()).getTime();
  return { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + (v.days ?? defaultDays) * DAY_MS) };
}

/**
 * Random positive 128-bit serial as hex (RFC 5280: at most 20 octets,
 * positive). The first octet is 0x01–0x7f: its high bit clear keeps the
 * INTEGER positive, and non-zero keeps its DER minimal (Go refuses others).
 */
function serial(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b.toString('hex');
}
