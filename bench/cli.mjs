// The `pilothouse` command of this checkout as the benchmarks run it: a CLI
// call an operator would make, timed wall-clock (its own start included),
// rejected with the tail of its output when it exits non-zero.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { CLI_JS } from './etcd/common.mjs';

/** Runs `pilothouse ...args`; resolves {seconds, stdout, stderr}, rejects on a non-zero exit or after timeoutMs. */
export function pilothouse(args, timeoutMs = 600_000) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [CLI_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const seconds = (performance.now() - start) / 1000;
      if (code !== 0) reject(new Error(`pilothouse ${args.join(' ')} exited ${code}:\n${stdout.slice(-3000)}\n${stderr.slice(-2000)}`));
      else resolve({ seconds, stdout, stderr });
    });
  });
}
