// kube-apiserver's secure serving flags (k8s.io/apiserver
// pkg/server/options/serving.go) and the client CA of x509 authentication.

import { intOption } from '../../common/intOption';
import type { ApiServerOptionGroup } from './optionGroup';

export const secureServingOptions: ApiServerOptionGroup = {
  name: 'secure serving',
  register(cmd) {
    cmd
      .option('--bind-address <ip>', 'address of the secure port', '127.0.0.1')
      .option('--secure-port <port>', 'HTTPS port', intOption('--secure-port', 0, 65535), 6443)
      .requiredOption('--tls-cert-file <file>', 'serving certificate')
      .requiredOption('--tls-private-key-file <file>', 'serving key')
      .option('--client-ca-file <file>', 'CA that authenticates client certificates (CN = user, O = groups)');
  },
  apply(flags, cfg) {
    cfg.bindAddress = String(flags.bindAddress ?? '127.0.0.1');
    cfg.securePort = Number(flags.securePort ?? 6443);
    cfg.tlsCertFile = String(flags.tlsCertFile);
    cfg.tlsPrivateKeyFile = String(flags.tlsPrivateKeyFile);
    cfg.clientCaFile = typeof flags.clientCaFile === 'string' ? flags.clientCaFile : undefined;
  },
};
