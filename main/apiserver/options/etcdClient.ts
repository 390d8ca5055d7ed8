// How the API server talks to etcd: --etcd-client-transport picks the gRPC
// channel under the etcd client (storage/etcdChannel.ts). "builtin", the
// default, is our own HTTP/2 client (main/client/etcd/grpcChannel.ts, the cheaper one
// on every write); "grpc-js" is @grpc/grpc-js, to compare against when a
// member misbehaves. kube-apiserver has no such flag: its client is grpc-go.

import { Option } from 'commander';
import { CHANNEL_TRANSPORTS, type ChannelTransport } from '../../client/etcd/etcdChannel';
import type { ApiServerOptionGroup } from './optionGroup';

export const etcdClientOptions: ApiServerOptionGroup = {
  name: 'etcd client',
  register(cmd) {
    cmd.addOption(
      new Option('--etcd-client-transport <transport>', 'the gRPC client to etcd: builtin (our own HTTP/2 client) or grpc-js (@grpc/grpc-js)').choices(CHANNEL_TRANSPORTS).default('builtin'),
    );
  },
  apply(flags, cfg) {
    cfg.etcdClientTransport = (flags.etcdClientTransport ?? 'builtin') as ChannelTransport;
  },
};
