// The attached side of the console benchmark: a real etcd cluster the
// console does not run — three Debian etcd 3.4 members with mutual TLS on
// loopback ports base..base+5, certificates made with openssl (a CA, one
// server certificate for 127.0.0.1, a client certificate) — preloaded with
// `keys` keys under /registry/, and `pilothouse web` attached to it with
// --etcd-endpoints/--etcd-cacert/--etcd-cert/--etcd-key.

import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function openssl(args, cwd) {
  execFileSync('/usr/bin/openssl', args, { cwd, stdio: 'ignore' });
}

/** A CA, a server certificate for 127.0.0.1 (server and client use, as etcd's peers need) and a client certificate, in dir. */
function makeCerts(dir) {
  mkdirSync(dir, { recursive: true });
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=bench-etcd-ca'], dir);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, cn] of [['server', 'bench-etcd'], ['client', 'root']]) {
    openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`], dir);
  }
  return { ca: join(dir, 'ca.crt'), cert: join(dir, 'client.crt'), key: join(dir, 'client.key'), serverCert: join(dir, 'server.crt'), serverKey: join(dir, 'server.key') };
}

function startMembers(dir, base, pki) {
  const members = [0, 1, 2].map((i) => ({ name: `m${i + 1}`, client: `https://127.0.0.1:${base + 2 * i}`, peer: `https://127.0.0.1:${base + 2 * i + 1}` }));
  const initial = members.map((m) => `${m.name}=${m.peer}`).join(',');
  const tls = ['--cert-file', pki.serverCert, '--key-file', pki.serverKey, '--trusted-ca-file', pki.ca, '--client-cert-auth', '--peer-cert-file', pki.serverCert, '--peer-key-file', pki.serverKey, '--peer-trusted-ca-file', pki.ca, '--peer-client-cert-auth'];
  const children = members.map((m) => {
    const log = openSync(join(dir, `${m.name}.log`), 'a');
    const child = spawn('/usr/bin/etcd', ['--name', m.name, '--data-dir', join(dir, m.name), '--listen-client-urls', m.client, '--advertise-client-urls', m.client, '--listen-peer-urls', m.peer, '--initial-advertise-peer-urls', m.peer, '--initial-cluster', initial, '--initial-cluster-state', 'new', '--initial-cluster-token', 'bench-attached', ...tls], { stdio: ['ignore', log, log] });
    closeSync(log);
    return child;
  });
  return { endpoints: members.map((m) => m.client), children };
}

async function preload(client, keys) {
  const value = Buffer.alloc(256, 'v');
  const inflight = new Set();
  for (let i = 0; i < keys; i += 100) {
    const success = Array.from({ length: Math.min(100, keys - i) }, (_, j) => ({ request_put: { key: Buffer.from(`/registry/configmaps/ns-${(i + j) % 50}/cm-${i + j}`), value } }));
    const p = client.kv.txn({ compare: [], success, failure: [] }).then(() => inflight.delete(p));
    inflight.add(p);
    if (inflight.size >= 8) await Promise.race(inflight);
  }
  await Promise.all(inflight);
}

/**
 * The cluster, loaded, and `pilothouse web` attached to it (cliJs on webPort).
 * Returns what the measurements need and a stop() that ends everything by PID.
 */
export async function startAttached({ cliJs, webPort, etcdBase, keys }) {
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-attached-'));
  const pki = makeCerts(join(dir, 'pki'));
  const { endpoints, children } = startMembers(dir, etcdBase, pki);
  const credentials = { rootCertificate: readFileSync(pki.ca), certChain: readFileSync(pki.cert), privateKey: readFileSync(pki.key) };
  const client = new Etcd3({ hosts: endpoints, credentials });
  const procs = [...children];
  const gone = (c) => c.exitCode !== null || c.signalCode !== null;
  const stop = async () => {
    client.close();
    for (const c of procs) if (!gone(c)) c.kill('SIGTERM');
    for (let i = 0; i < 300 && procs.some((c) => !gone(c)); i++) await sleep(100);
    for (const c of procs) if (!gone(c)) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      try {
        await client.put('bench-ready').value('1');
        break;
      } catch (err) {
        if (i > 150) throw new Error(`etcd 3.4 members did not start: ${err.message}`);
        await sleep(200);
      }
    }
    const t0 = Date.now();
    await preload(client, keys);
    process.stderr.write(`attached: ${keys} keys under /registry/ in ${Date.now() - t0} ms\n`);
    const consoleDir = join(dir, 'console');
    const web = spawn(process.execPath, [cliJs, 'web', '--data-dir', consoleDir, '--port', String(webPort), '--no-open', '--etcd-endpoints', endpoints.join(','), '--etcd-cacert', pki.ca, '--etcd-cert', pki.cert, '--etcd-key', pki.key], { stdio: ['ignore', 'pipe', 'pipe'] });
    procs.push(web);
    let out = '';
    web.stdout.on('data', (d) => (out += d));
    web.stderr.on('data', (d) => (out += d));
    const urlFile = join(consoleDir, 'console.url');
    for (let i = 0; !existsSync(urlFile); i++) {
      if (gone(web) || i > 300) throw new Error(`pilothouse web (attached) did not start:\n${out}`);
      await sleep(100);
    }
    return { url: readFileSync(urlFile, 'utf8').trim(), hosts: endpoints, credentials, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
