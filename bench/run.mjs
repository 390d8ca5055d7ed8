// `npm run bench -- <suite>`: runs one benchmark suite after the build.
// Suites: etcd (Pilothouse's member against Debian's etcd 3.4, side by side).

const suites = {
  etcd: () => import('./etcd/index.mjs'),
};

const name = process.argv[2];
if (!name || !(name in suites)) {
  process.stderr.write(`usage: npm run bench -- <suite>   (suites: ${Object.keys(suites).join(', ')})\n`);
  process.exit(2);
}
const suite = await suites[name]();
await suite.run(process.argv.slice(3));
