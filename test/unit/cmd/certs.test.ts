// `pilothouse certs`: kubeadm's text (tabwriter columns, Go's date layout,
// ShortHumanDuration), every certificate of a plane listed with its expiry,
// and renew all's lines and its SIGHUP to the control plane's pid.

import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatExpiry, runCheckExpiration, runRenewAll, shortHumanDuration, tabwrite } from '../../../main/cmd/certs';
import { apiServerLayout, writeKubeconfig } from '../../../main/controlplane/apiserverLayout';
import { ensureClusterPki } from '../../../main/common/pki/clusterPki';
import { expirationOf, pkiInventory } from '../../../main/common/pki/renewal';

const S = 1000;
const H = 3600 * S;
const D = 24 * H;

describe('kubeadm text', () => {
  const durations = [
    { ms: -5 * S, want: '<invalid>' },
    { ms: -1500, want: '0s' },
    { ms: 59 * S, want: '59s' },
    { ms: 59 * 60 * S, want: '59m' },
    { ms: 23 * H, want: '23h' },
    { ms: 364 * D + 23 * H, want: '364d' },
    { ms: 9 * 365 * D + 300 * D, want: '9y' },
  ];
  for (const c of durations) it(`ShortHumanDuration ${c.ms} ms is ${c.want}`, () => expect(shortHumanDuration(c.ms)).toBe(c.want));

  it("formats dates as Go's \"Jan 02, 2006 15:04 MST\" in UTC", () => {
    expect(formatExpiry(new Date('2026-08-09T09:03:59Z'))).toBe('Aug 09, 2026 09:03 UTC');
  });

  it('aligns columns as tabwriter(minwidth 10, padding 3) and writes the last cell as is', () => {
    expect(tabwrite([['CERTIFICATE', 'X', 'no      '], ['a', 'longer-cell', 'no      ']])).toBe(
      'CERTIFICATE   X             no      \n' + 'a             longer-cell   no      \n',
    );
  });
});

describe('certs commands on a plane', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pilothouse-certs-cmd-'));
    const layout = await apiServerLayout(dir, 22950, 1, await ensureClusterPki(join(dir, 'pki'), ['m1']));
    writeKubeconfig(layout);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('check-expiration lists every certificate and CA with its expiry', () => {
    let out = '';
    const now = new Date();
    expect(runCheckExpiration(dir, now, (t) => (out += t))).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^CERTIFICATE {13}EXPIRES {18}RESIDUAL TIME {3}CERTIFICATE AUTHORITY {3}EXTERNALLY MANAGED$/);
    const { certs, cas } = pkiInventory(dir);
    for (const c of [...certs, ...cas]) {
      const row = lines.find((l) => l.startsWith(`${c.name} `));
      expect(row, c.name).toContain(formatExpiry(expirationOf(c).notAfter));
    }
    expect(lines.filter((l) => / 364d {12}(ca|etcd-ca) +no {6}$/.test(l))).toHaveLength(certs.length);
    expect(out).toContain('\n\nCERTIFICATE AUTHORITY   EXPIRES                  RESIDUAL TIME   EXTERNALLY MANAGED\n');
    expect(lines.filter((l) => /^(ca|etcd-ca) +\w{3} \d\d, \d{4} \d\d:\d\d UTC   9y {14}no {6}$/.test(l))).toHaveLength(2);
  });

  it('renew all prints each renewed certificate and signals a live control plane', async () => {
    // This test process stands for the plane: it started before it wrote the pid file.
    writeFileSync(join(dir, 'controlplane.pid'), `${process.pid}\n`);
    let out = '';
    const signalled: number[] = [];
    expect(await runRenewAll(dir, (t) => (out += t), () => {}, (pid) => (signalled.push(pid), true))).toBe(0);
    expect(signalled).toEqual([process.pid]);
    expect(out).toContain('certificate for serving etcd (m1) renewed\n');
    expect(out).toContain('certificate embedded in the kubeconfig file for the admin to use renewed\n');
    expect(out.split('\n').filter((l) => l.endsWith(' renewed'))).toHaveLength(pkiInventory(dir).certs.length);
    expect(out).toContain(`\nDone renewing certificates. The control plane is restarting the components in turn (pid ${process.pid}).\n`);
  });

  it('does not signal a process that started after the pid file was written (a reused pid)', async () => {
    const file = join(dir, 'controlplane.pid');
    writeFileSync(file, `${process.pid}\n`);
    const longAgo = new Date(Date.now() - 30 * 86_400_000);
    utimesSync(file, longAgo, longAgo);
    const signalled: number[] = [];
    let out = '';
    expect(await runRenewAll(dir, (t) => (out += t), () => {}, (pid) => (signalled.push(pid), true))).toBe(0);
    expect(signalled).toEqual([]);
    expect(out).toContain('You must restart');
  });

  it('renew all without a live control plane says what to restart', async () => {
    let out = '';
    expect(await runRenewAll(dir, (t) => (out += t), () => {}, () => false)).toBe(0);
    expect(out).toContain('\nDone renewing certificates. You must restart the etcd members, the API server and the controllers');
  });
});
