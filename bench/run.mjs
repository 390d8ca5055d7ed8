// `npm run bench -- <suite>`: runs one benchmark suite after the build.
// Suites: etcd (Pilothouse's member against Debian's etcd 3.4, side by side),
// watch (1,000 watchers under 1,000 puts/s) and snapshot (etcdctl snapshot save
// of a ~100 MB keyspace), both against etcd 3.4 too; apiserver (pod creates
// against raw etcd puts on the same cluster, GET/LIST latency, watch fan-out),
// console (the renderer under 100,000 watch events), lifecycle (Pod
// creation → Running through scheduler, controllers and simulated kubelets)
// and startup (`pilothouse up` cold and warm to ready, per component, beside
// 3 etcd 3.4 members started by hand; `--runs N`); drill (the restore drill's
// RTO and the disaster recovery's time with 10,000 objects; also run after
// snapshot); upgrade (a rolling upgrade of the plane to this checkout built as
// the next minor version, with 1,000 objects and writes flowing; `--runs N`).

const suites = {
  etcd: () => import('./etcd/index.mjs'),
  watch: () => import('./etcd/watch.mjs'),
  snapshot: () => import('./etcd/snapshot.mjs'),
  apiserver: () => import('./apiserver/index.mjs'),
  console: () => import('./console/watchIngest.mjs'),
  lifecycle: () => import('./lifecycle/index.mjs'),
  startup: () => import('./startup/index.mjs'),
  drill: () => import('./backup/drill.mjs'),
  upgrade: () => import('./upgrade/index.mjs'),
};
/** Suites that run after another: the snapshot suite goes on with the drill and restore times. */
const followUps = { snapshot: ['drill'] };

const name = process.argv[2];
if (!name || !(name in suites)) {
  process.stderr.write(`usage: npm run bench -- <suite>   (suites: ${Object.keys(suites).join(', ')})\n`);
  process.exit(2);
}
const suite = await suites[name]();
await suite.run(process.argv.slice(3));
for (const next of followUps[name] ?? []) await (await suites[next]()).run(process.argv.slice(3));
