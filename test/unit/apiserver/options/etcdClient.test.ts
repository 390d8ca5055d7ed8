// --etcd-client-transport: parsed by commander as `pilothouse apiserver`
// registers it, checked against its choices, and carried into the config
// the etcd client is made from.

import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { etcdClientOptions } from '../../../../main/apiserver/options/etcdClient';
import type { ApiServerConfig } from '../../../../main/apiserver/config';

function parse(args: string[]): { transport?: string; error?: string } {
  const cmd = new Command('apiserver').exitOverride().configureOutput({ writeErr: () => {} });
  etcdClientOptions.register(cmd);
  try {
    cmd.parse(args, { from: 'user' });
  } catch (e) {
    return { error: (e as Error).message };
  }
  const cfg = {} as ApiServerConfig;
  etcdClientOptions.apply(cmd.opts(), cfg);
  return { transport: cfg.etcdClientTransport };
}

describe('--etcd-client-transport', () => {
  const cases = [
    { name: 'unset: our own HTTP/2 client', args: [], want: { transport: 'builtin' } },
    { name: 'builtin', args: ['--etcd-client-transport=builtin'], want: { transport: 'builtin' } },
    { name: 'grpc-js', args: ['--etcd-client-transport', 'grpc-js'], want: { transport: 'grpc-js' } },
    { name: 'anything else is refused with the choices', args: ['--etcd-client-transport=nghttp2'], want: { error: "error: option '--etcd-client-transport <transport>' argument 'nghttp2' is invalid. Allowed choices are builtin, grpc-js." } },
  ];
  it.each(cases)('$name', ({ args, want }) => {
    expect(parse(args)).toEqual(want);
  });
});
