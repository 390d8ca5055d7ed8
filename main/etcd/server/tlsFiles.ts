// The TLS material named by --cert-file/--key-file/--trusted-ca-file (and the
// --peer-* equivalents), read once at startup into what the client listener
// (api/tlsTermination.ts) and the peer transport (transport/peerUrls.ts) take.

import { readFileSync } from 'node:fs';

/** etcd's transport.TLSInfo as flags give it: PEM file paths ('' when not given). */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  trustedCaFile: string;
  /** Require and verify a client certificate on inbound connections. */
  clientCertAuth: boolean;
}

/** A certificate, key or CA file that cannot be read; etcd logs it as "etcdmain: <message>" and exits 1. */
export class TlsFileError extends Error {
  override name = 'TlsFileError';
}

export interface LoadedTls {
  cert: Buffer;
  key: Buffer;
  /** Absent when no trusted CA file was given (Node's default roots then apply). */
  ca?: Buffer;
  clientCertAuth: boolean;
}

/** Reads the PEM files; a missing file fails with Go's wording ("open PATH: no such file or directory"), as etcd reports it. */
export function loadTlsFiles(files: TlsFiles | undefined): LoadedTls | undefined {
  if (files === undefined) return undefined;
  return {
    cert: readPem(files.certFile),
    key: readPem(files.keyFile),
    ...(files.trustedCaFile !== '' && { ca: readPem(files.trustedCaFile) }),
    clientCertAuth: files.clientCertAuth,
  };
}

function readPem(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new TlsFileError(`open ${path}: no such file or directory`);
    if (code === 'EACCES') throw new TlsFileError(`open ${path}: permission denied`);
    if (code === 'EISDIR') throw new TlsFileError(`read ${path}: is a directory`);
    throw err;
  }
}
