// kube-apiserver's encryption-at-rest flag: --encryption-provider-config, an
// EncryptionConfiguration file read once at start (a bad file stops the
// server with kube's "error while parsing file: ..." message). Unset: values
// are stored as the codec writes them.

import { loadEncryptionConfig } from '../encryption/config';
import { encryptionTransformer } from '../encryption/transformer';
import type { ApiServerOptionGroup } from './optionGroup';

export const encryptionOptions: ApiServerOptionGroup = {
  name: 'encryption',
  register(cmd) {
    cmd.option('--encryption-provider-config <file>', 'the file containing configuration for encryption providers to be used for storing secrets in etcd');
  },
  apply(flags, cfg) {
    const path = flags.encryptionProviderConfig;
    if (typeof path !== 'string' || path === '') return;
    const config = loadEncryptionConfig(path);
    cfg.plugins ??= {};
    cfg.plugins.valueTransformer = (env) => encryptionTransformer(config, env.etcdPrefix, env.resources);
  },
};
