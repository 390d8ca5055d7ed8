// The keys behind service-account tokens. --service-account-key-file names
// PEM files of public keys that verify tokens (a file may hold several
// blocks: public keys, private keys — their public half counts — and
// certificates; other blocks such as EC PARAMETERS are skipped, as kube's
// keyutil.ParsePublicKeysPEM). --service-account-signing-key-file is the
// private key that signs new tokens. A key's id (the JWT `kid`) is kube's:
// base64url(sha256(DER of the PKIX public key)), unpadded.

import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type JwtAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface VerifyingKey {
  key: KeyObject;
  kid: string;
  alg: JwtAlgorithm;
}

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
  alg: JwtAlgorithm;
}

/** kube's keyIDFromPublicKey. */
export function keyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

/** RS256 for RSA keys; ES256/384/512 by the EC curve (kube's signer choice). */
export function algorithmFor(key: KeyObject): JwtAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error(`unknown private key curve, must be 256, 384, or 521: ${String(curve)}`);
  }
  throw new Error(`unknown private key type ${String(key.asymmetricKeyType)}, must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner`);
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/g;

function publicKeyOfBlock(label: string, pem: string): KeyObject | undefined {
  try {
    if (label === 'CERTIFICATE') return new X509Certificate(pem).publicKey;
    if (label.endsWith('PRIVATE KEY')) return createPublicKey(createPrivateKey(pem));
    if (label.endsWith('PUBLIC KEY')) return createPublicKey(pem);
  } catch {
    // Not a key this block could hold (kube tries each parser and moves on).
  }
  return undefined;
}

/** Every RSA or ECDSA public key in a PEM text (keyutil.ParsePublicKeysPEM). */
export function parsePublicKeysPem(text: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    const key = publicKeyOfBlock(m[1]!, m[0]);
    if (key && (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'ec')) keys.push(key);
  }
  if (keys.length === 0) throw new Error('data does not contain any valid RSA or ECDSA public keys');
  return keys;
}

export function verifyingKeys(keys: KeyObject[]): VerifyingKey[] {
  return keys.map((key) => ({ key, kid: keyId(key), alg: algorithmFor(key) }));
}

/** keyutil.PublicKeysFromFile. */
export function readPublicKeysFile(file: string): VerifyingKey[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`open ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
  try {
    return verifyingKeys(parsePublicKeysPem(text));
  } catch (err) {
    throw new Error(`error reading public key file ${file}: ${(err as Error).message}`);
  }
}

/** The first RSA or ECDSA private key of a PEM text (keyutil.ParsePrivateKeyPEM). */
export function parseSigningKeyPem(text: string): SigningKey {
  for (const m of text.matchAll(PEM_BLOCK)) {
    if (!m[1]!.endsWith('PRIVATE KEY')) continue;
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(m[0]);
    } catch {
      continue;
    }
    if (privateKey.asymmetricKeyType !== 'rsa' && privateKey.asymmetricKeyType !== 'ec') continue;
    const publicKey = createPublicKey(privateKey);
    return { privateKey, publicKey, kid: keyId(publicKey), alg: algorithmFor(publicKey) };
  }
  throw new Error('data does not contain a valid RSA or ECDSA private key');
}

export function readSigningKeyFile(file: string): SigningKey {
  try {
    return parseSigningKeyPem(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`failed to parse service-account-issuer-key-file: ${(err as Error).message}`);
  }
}
