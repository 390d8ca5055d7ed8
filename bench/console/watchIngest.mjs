// Console benchmark: how the renderer copes with 100,000 watch events, for
// the embedded plane and for a real etcd cluster the console attaches to
// (attachedEtcd.mjs: Debian etcd 3.4 with mutual TLS holding 100,000 keys
// under /registry/), and how soon the Members view paints on each.
//
// Starts `pilothouse web` (built out/main/cli.js) on loopback ports
// 28800 (console) and 28810–28815 (members), opens the Watch events view in
// Debian's Chromium, then writes N keys for real through the embedded
// cluster's client port (etcd3 client, mutual TLS from DIR/etcdctl.env,
// `perTxn` puts per transaction, bounded). It reports:
//   - ingest: time from the first write until the view counts N events, and
//     the event rate the renderer sustained;
//   - frame times while ingesting and while scrolling the 100,000-row list
//     (requestAnimationFrame deltas: p50/p95/p99/max, share over 16.7/50 ms);
//   - renderer memory (CDP Performance.getMetrics JSHeapUsedSize after a GC,
//     DOM node count) before and after.
// Results: bench/console/results/watch-ingest-<time>.json and .md.
//
// Usage: npm run build && node bench/console/watchIngest.mjs [--events 100000] [--per-txn 100]

import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { Etcd3 } from 'etcd3';
import { startAttached } from './attachedEtcd.mjs';

const WEB_PORT = 28800;
const PORT_BASE = 28810;
const BUILD = resolve('out');
// A private copy of the build: out/ is shared, and a rebuild mid-run renames the chunks the host loads lazily.
const APP = resolve('test-results/bench-console-app');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--enable-precise-memory-info'];

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseEnv(text) {
  const env = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let v = m[2];
    if (v.startsWith("'") && v.endsWith("'")) v = v.slice(1, -1).replace(/'\\''/g, "'");
    env[m[1]] = v;
  }
  return env;
}

function percentiles(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const p = (q) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN);
  const r = (x) => Math.round(x * 10) / 10;
  return {
    frames: s.length,
    p50: r(p(0.5)),
    p95: r(p(0.95)),
    p99: r(p(0.99)),
    max: r(s[s.length - 1] ?? NaN),
    over16_7: s.length ? r((100 * s.filter((x) => x > 16.7).length) / s.length) : NaN,
    over50: s.length ? r((100 * s.filter((x) => x > 50).length) / s.length) : NaN,
  };
}

async function startHost() {
  if (!existsSync(join(BUILD, 'main', 'cli.js'))) throw new Error(`${BUILD} has no build: run \`npm run build\` first`);
  rmSync(APP, { recursive: true, force: true });
  cpSync(BUILD, join(APP, 'out'), { recursive: true });
  const CLI = join(APP, 'out', 'main', 'cli.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-console-'));
  const child = spawn(process.execPath, [CLI, 'web', '--data-dir', dataDir, '--port', String(WEB_PORT), '--port-base', String(PORT_BASE), '--no-open'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async () => {
    if (!gone()) {
      child.kill('SIGTERM');
      for (let i = 0; i < 300 && !gone(); i++) await sleep(100);
      if (!gone()) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(APP, { recursive: true, force: true });
  };
  const urlFile = join(dataDir, 'console.url');
  for (let i = 0; !existsSync(urlFile); i++) {
    if (gone() || i > 300) {
      await stop();
      throw new Error(`pilothouse web did not start:\n${out}`);
    }
    await sleep(100);
  }
  const envFile = join(dataDir, 'etcdctl.env');
  for (let i = 0; !existsSync(envFile); i++) {
    if (gone() || i > 600) {
      await stop();
      throw new Error(`pilothouse web wrote no etcdctl.env:\n${out}`);
    }
    await sleep(100);
  }
  const env = parseEnv(readFileSync(envFile, 'utf8'));
  const credentials = env.ETCDCTL_CACERT ? { rootCertificate: readFileSync(env.ETCDCTL_CACERT), certChain: readFileSync(env.ETCDCTL_CERT), privateKey: readFileSync(env.ETCDCTL_KEY) } : undefined;
  return { url: readFileSync(urlFile, 'utf8').trim(), hosts: env.ETCDCTL_ENDPOINTS.split(','), credentials, stop };
}

/** From loading the page to the Members view showing three members and the leader (the cluster already up). */
async function membersFirstPaint(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    const t0 = Date.now();
    await page.goto(url);
    await page.evaluate(() => (location.hash = '#/members'));
    await page.locator('[data-testid^="member-"]').nth(2).waitFor({ timeout: 60_000 });
    await page.getByTestId('leader-badge').first().waitFor({ timeout: 60_000 });
    return Date.now() - t0;
  } finally {
    await page.close();
  }
}

async function heap(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
  return { jsHeapUsedMB: Math.round((m.JSHeapUsedSize / 1048576) * 10) / 10, domNodes: m.Nodes };
}

/** Starts collecting rAF deltas in the page; the returned function stops and returns them. */
async function recordFrames(page) {
  await page.evaluate(() => {
    const w = window;
    w.__frames = [];
    w.__recording = true;
    let last = performance.now();
    const tick = (t) => {
      w.__frames.push(t - last);
      last = t;
      if (w.__recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return async () =>
    page.evaluate(() => {
      window.__recording = false;
      return window.__frames.slice(1);
    });
}

async function receivedCount(page) {
  const text = await page.getByTestId('watch-counts').innerText();
  return Number(/^([\d,]+) received/.exec(text)?.[1].replace(/,/g, '') ?? 0);
}

async function measure(host) {
  const events = arg('events', 100_000);
  const perTxn = arg('per-txn', 100);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  let client;
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    // The URL's fragment is the access token (the page takes it on load); route afterwards.
    await page.goto(host.url);
    await page.evaluate(() => (location.hash = '#/watch'));
    await page.getByTestId('health-line').and(page.locator('[data-health="healthy"]')).waitFor({ timeout: 120_000 });
    await page.getByTestId('view-watch').waitFor();
    const membersPaintMs = await membersFirstPaint(browser, host.url);
    await sleep(1000);
    const base = await receivedCount(page);
    const memBefore = await heap(cdp);

    client = new Etcd3({ hosts: host.hosts, ...(host.credentials && { credentials: host.credentials }) });

    const stopIngestFrames = await recordFrames(page);
    const t0 = Date.now();
    const value = Buffer.from(JSON.stringify({ kind: 'ConfigMap', data: { payload: 'x'.repeat(64) } }));
    let written = 0;
    const writer = (async () => {
      const inflight = new Set();
      for (let i = 0; i < events; i += perTxn) {
        const n = Math.min(perTxn, events - i);
        const success = Array.from({ length: n }, (_, j) => ({ request_put: { key: Buffer.from(`/bench/console/ns-${(i + j) % 10}/key-${i + j}`), value } }));
        const p = client.kv.txn({ compare: [], success, failure: [] }).then(() => {
          written += n;
          inflight.delete(p);
        });
        inflight.add(p);
        if (inflight.size >= 8) await Promise.race(inflight);
      }
      await Promise.all(inflight);
    })();
    await writer;
    const writeMs = Date.now() - t0;
    process.stderr.write(`wrote ${written} events in ${writeMs} ms\n`);
    let seen = 0;
    let lastLog = 0;
    // Bounded: the view must count every event within 5 minutes, or the run reports how far it got.
    const deadline = Date.now() + 300_000;
    while ((seen = (await receivedCount(page)) - base) < events && Date.now() < deadline) {
      if (Date.now() - lastLog > 5000) {
        lastLog = Date.now();
        process.stderr.write(`renderer counted ${seen}/${events}\n`);
      }
      await sleep(250);
    }
    const ingestMs = Date.now() - t0;
    const ingestFrames = percentiles(await stopIngestFrames());
    const memAfter = await heap(cdp);

    // Scroll through the whole list: top to bottom in 2,000 px steps, one per frame.
    await page.getByRole('button', { name: /Pause/ }).click();
    const stopScrollFrames = await recordFrames(page);
    await page.getByTestId('watch-list').waitFor({ timeout: 30_000 });
    const scrolled = await page.evaluate(async () => {
      const el = document.querySelector('[data-testid="watch-list"]');
      el.scrollTop = 0;
      let steps = 0;
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 5 && steps < 5000) {
        el.scrollTop += 2000;
        steps++;
        await new Promise((r) => requestAnimationFrame(r));
      }
      return { steps, heightPx: el.scrollHeight, rowsInDom: el.querySelectorAll('[role="option"]').length };
    });
    const scrollFrames = percentiles(await stopScrollFrames());
    const memScrolled = await heap(cdp);
    await page.screenshot({ path: resolve(`bench/console/results/watch-ingest-last${host.slug === 'embedded' ? '' : `-${host.slug}`}.png`) });

    const result = {
      suite: 'console-watch-ingest',
      cluster: host.label,
      at: new Date().toISOString(),
      membersPaintMs,
      events,
      perTxn,
      written,
      seenByRenderer: seen,
      writeMs,
      ingestMs,
      renderedEventsPerSec: Math.round((seen / ingestMs) * 1000),
      ingestFrames,
      scroll: { ...scrolled, frames: scrollFrames },
      memory: { before: memBefore, afterIngest: memAfter, afterScroll: memScrolled },
      // Frame times are wall-clock: on a shared machine they include waiting for a CPU.
      machine: { cpus: cpus().length, loadavg1m: Math.round(loadavg()[0] * 10) / 10 },
    };
    return result;
  } finally {
    client?.close();
    await browser.close();
    await host.stop();
  }
}

function markdown(r) {
  const f = (x) => `${x.p50} / ${x.p95} / ${x.p99} / ${x.max} ms (${x.over16_7}% > 16.7 ms, ${x.over50}% > 50 ms, ${x.frames} frames)`;
  return [
    `# Console: ${r.events.toLocaleString('en-US')} watch events into the renderer (${r.at})`,
    '',
    '| measure | value |',
    '|---|---|',
    `| cluster | ${r.cluster} |`,
    `| Members view first paint (page load → 3 members and the leader shown) | ${r.membersPaintMs} ms |`,
    `| events written (etcd txns of ${r.perTxn} puts) | ${r.written.toLocaleString('en-US')} in ${r.writeMs} ms |`,
    `| events counted by the Watch view | ${r.seenByRenderer.toLocaleString('en-US')} after ${r.ingestMs} ms (${r.renderedEventsPerSec.toLocaleString('en-US')}/s) |`,
    `| frame time while ingesting p50/p95/p99/max | ${f(r.ingestFrames)} |`,
    `| frame time scrolling ${r.scroll.heightPx.toLocaleString('en-US')} px (${r.scroll.steps} steps) p50/p95/p99/max | ${f(r.scroll.frames)} |`,
    `| rows in the DOM while scrolling | ${r.scroll.rowsInDom} |`,
    `| JS heap after GC: before / after ingest / after scroll | ${r.memory.before.jsHeapUsedMB} / ${r.memory.afterIngest.jsHeapUsedMB} / ${r.memory.afterScroll.jsHeapUsedMB} MB |`,
    `| DOM nodes: before / after ingest / after scroll | ${r.memory.before.domNodes} / ${r.memory.afterIngest.domNodes} / ${r.memory.afterScroll.domNodes} |`,
    `| machine | ${r.machine.cpus} CPUs, load average ${r.machine.loadavg1m} at the end (frame times include waiting for a CPU) |`,
    '',
  ].join('\n');
}

/**
 * Entry for `node bench/console/watchIngest.mjs` and for bench/run.mjs
 * (`suite.run(args)`): the embedded plane, then a Debian etcd 3.4 cluster
 * holding 100,000 keys under /registry/ that the console attaches to
 * (`--attached-keys N`; `--no-attached` skips it).
 */
export async function run() {
  mkdirSync(resolve('bench/console/results'), { recursive: true });
  const results = [];
  const embedded = await startHost();
  try {
    results.push(await measure({ ...embedded, slug: 'embedded', label: 'embedded' }));
  } finally {
    await embedded.stop();
  }
  if (!process.argv.includes('--no-attached') && existsSync('/usr/bin/etcd')) {
    rmSync(APP, { recursive: true, force: true });
    cpSync(BUILD, join(APP, 'out'), { recursive: true });
    const keys = arg('attached-keys', 100_000);
    const attached = await startAttached({ cliJs: join(APP, 'out', 'main', 'cli.js'), webPort: WEB_PORT + 1, etcdBase: PORT_BASE + 10, keys });
    try {
      results.push(await measure({ ...attached, slug: 'attached', label: `attached: Debian etcd 3.4, mutual TLS, ${keys.toLocaleString('en-US')} keys under /registry/` }));
    } finally {
      await attached.stop();
      rmSync(APP, { recursive: true, force: true });
    }
  }
  const stamp = results[0].at.replace(/[:.]/g, '-');
  const md = results.map(markdown).join('\n');
  writeFileSync(resolve(`bench/console/results/watch-ingest-${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(resolve(`bench/console/results/watch-ingest-${stamp}.md`), md);
  process.stdout.write(md);
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
