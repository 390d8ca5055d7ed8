// --request-timeout, --max-requests-inflight, --max-mutating-requests-inflight:
// kube's defaults, Go durations, and ServerRunOptions.Validate's messages.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { ApiServerConfig } from '../../../../main/apiserver/config';
import { serverRunOptions } from '../../../../main/apiserver/options/serverRun';

function applyArgs(args: string[]): ApiServerConfig {
  const cmd = new Command().exitOverride();
  serverRunOptions.register(cmd);
  cmd.parse(args, { from: 'user' });
  const cfg = {} as ApiServerConfig;
  serverRunOptions.apply(cmd.opts(), cfg);
  return cfg;
}

describe('serverRunOptions', () => {
  const cases = [
    { args: [], want: { requestTimeoutMs: 60_000, maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 } },
    { args: ['--request-timeout=1m30s', '--max-requests-inflight=0', '--max-mutating-requests-inflight=5'], want: { requestTimeoutMs: 90_000, maxRequestsInflight: 0, maxMutatingRequestsInflight: 5 } },
    { args: ['--request-timeout=250ms'], want: { requestTimeoutMs: 250, maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 } },
  ];
  for (const c of cases) it(c.args.join(' ') || 'defaults', () => expect(applyArgs(c.args).limits).toEqual(c.want));

  it('refuses negative values as kube does', () => {
    expect(() => applyArgs(['--max-requests-inflight=-1'])).toThrow('--max-requests-inflight can not be negative value');
    expect(() => applyArgs(['--request-timeout=-1s', '--max-mutating-requests-inflight=-2'])).toThrow(
      '[--max-mutating-requests-inflight can not be negative value, --request-timeout can not be negative value]',
    );
    expect(() => applyArgs(['--request-timeout=soon'])).toThrow('time: invalid duration "soon"');
  });
});
