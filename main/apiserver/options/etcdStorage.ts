// kube-apiserver's etcd and storage flags (k8s.io/apiserver
// pkg/server/options/etcd.go): where etcd is and how to reach it, the key
// prefix, the stored encoding, and the watch cache sizes.

import { PROTOBUF_MEDIA_TYPE, JSON_MEDIA_TYPE } from '../../kube/codec';
import { intOption } from '../../common/intOption';
import type { ApiServerOptionGroup } from './optionGroup';

/** --watch-cache-sizes: "resource[.group]#size,..." (kube's format). */
export function parseWatchCacheSizes(v: string | undefined): Map<string, number> {
  const m = new Map<string, number>();
  if (!v) return m;
  for (const item of v.split(',')) {
    const [res, size] = item.split('#');
    if (!res || size === undefined || !/^\d+$/.test(size)) throw new Error(`invalid value of watch cache size: ${item}`);
    m.set(res, Number(size));
  }
  return m;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export const etcdStorageOptions: ApiServerOptionGroup = {
  name: 'etcd storage',
  register(cmd) {
    cmd
      .requiredOption('--etcd-servers <urls>', 'comma-separated etcd client URLs')
      .option('--etcd-cafile <file>', 'CA that signed the etcd members\' certificates')
      .option('--etcd-certfile <file>', 'client certificate for etcd')
      .option('--etcd-keyfile <file>', 'client key for etcd')
      .option('--etcd-prefix <prefix>', 'prefix of every key in etcd', '/registry')
      .option('--storage-media-type <type>', `how objects are stored: ${PROTOBUF_MEDIA_TYPE} or ${JSON_MEDIA_TYPE}`, PROTOBUF_MEDIA_TYPE)
      .option('--watch-cache-sizes <list>', 'per-resource watch cache sizes: resource[.group]#size,...')
      .option('--default-watch-cache-size <n>', 'events each watch cache keeps (not adaptive here)', intOption('--default-watch-cache-size', 1, 10_000_000), 10_000);
  },
  apply(flags, cfg) {
    const mediaType = String(flags.storageMediaType ?? PROTOBUF_MEDIA_TYPE);
    if (mediaType !== PROTOBUF_MEDIA_TYPE && mediaType !== JSON_MEDIA_TYPE) throw new Error(`--storage-media-type: unsupported media type "${mediaType}"`);
    const certFile = str(flags.etcdCertfile);
    const keyFile = str(flags.etcdKeyfile);
    cfg.etcdServers = String(flags.etcdServers ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
    cfg.etcdTls = certFile && keyFile ? { caFile: str(flags.etcdCafile), certFile, keyFile } : undefined;
    cfg.etcdPrefix = String(flags.etcdPrefix ?? '/registry');
    cfg.storageMediaType = mediaType;
    cfg.watchCacheSizes = parseWatchCacheSizes(str(flags.watchCacheSizes));
    cfg.defaultWatchCacheSize = Number(flags.defaultWatchCacheSize ?? 10_000);
  },
};
