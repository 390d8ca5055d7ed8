// Loaded with `NODE_OPTIONS=--require` when BENCH_PROFILE=DIR is set (Node
// refuses --cpu-prof in NODE_OPTIONS): profiles the `pilothouse apiserver`
// process only and writes DIR/apiserver-<pid>.cpuprofile when it exits.
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

if (process.argv.includes('apiserver') && process.env.BENCH_PROFILE) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  // The in-thread inspector session answers synchronously, so this works in 'exit'.
  process.on('exit', () => {
    session.post('Profiler.stop', (err, res) => {
      if (!err) writeFileSync(join(process.env.BENCH_PROFILE, `apiserver-${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
