// The PodSecurity admission plugin (kube's plugin/pkg/admission/security/
// podsecurity): a validating plugin that judges pods, namespaces and pod
// templates against the namespace's Pod Security labels. Its warnings go out
// as `Warning: 299` headers, its findings into the request's audit
// annotations under `pod-security.kubernetes.io/`, its refusals as kube's
// 403 / 422 Status.
//
// Namespaces and pods are read through the server's watch caches; like
// kube's informer-backed lister, a namespace not in the cache yet is read
// from etcd before it is reported missing.

import type { KObject } from '../../../kube/object';
import type { AdmissionPlugin } from '../interfaces';
import type { ServerEnv } from '../../serverEnv';
import { StorageError } from '../../storage/interface';
import { AUDIT_ANNOTATION_PREFIX } from './api';
import { PodSecurityAdmission, judgesResource } from './admission';
import { loadConfig } from './config';
import { newEvaluator } from './registry';

export { PodSecurityAdmission } from './admission';
export { loadConfig } from './config';

/** config: the plugin's PodSecurityConfiguration from --admission-control-config-file (object or YAML text); undefined for kube's defaults. */
export function podSecurityPlugin(env: ServerEnv, config?: unknown): AdmissionPlugin {
  const loaded = loadConfig(config);
  const psa = new PodSecurityAdmission({
    config: loaded.config,
    defaultPolicy: loaded.defaultPolicy,
    evaluator: newEvaluator(),
    async getNamespace(name) {
      const store = env.storageFor('namespaces');
      const key = env.keyFor('namespaces', '', '', name);
      try {
        return await store.get(key, { resourceVersion: '0', shareObject: true });
      } catch (err) {
        if (!(err instanceof StorageError && err.code === 'KeyNotFound')) throw err;
      }
      try {
        return await store.get(key);
      } catch (err) {
        if (err instanceof StorageError && err.code === 'KeyNotFound') return undefined;
        throw err;
      }
    },
    async listPods(namespace) {
      const prefix = env.keyFor('pods', '', namespace, '');
      const list = await env.storageFor('pods').getList(prefix, { resourceVersion: '0', shareItems: true });
      return list.items as KObject[];
    },
  });
  return {
    name: 'PodSecurity',
    async validate(a) {
      if (!judgesResource(a.group, a.resource)) return;
      const r = await psa.validate(a);
      // kube's warning recorder drops repeats (an update retried after a conflict runs admission again).
      for (const w of r.warnings) if (!a.warnings.includes(w)) a.warnings.push(w);
      for (const [k, v] of Object.entries(r.auditAnnotations)) a.auditAnnotations[AUDIT_ANNOTATION_PREFIX + k] = v;
      if (!r.allowed && r.status) throw r.status;
    },
  };
}
