// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook admission
// plugins: each reads its configurations from the watch cache
// (admissionregistration.k8s.io/v1 {Mutating,Validating}WebhookConfiguration)
// and dispatches the request to the webhooks that match it. Requests on the
// admissionregistration configuration resources themselves never go to
// webhooks, so a broken webhook can always be removed.
//
//   admission: (env) => [..., mutatingWebhookPlugin(env), ..., validatingWebhookPlugin(env), ...]

import { notFound } from '../../api/status';
import type { AdmissionAttributes, AdmissionPlugin } from '../interfaces';
import type { ServerEnv } from '../../serverEnv';
import { StorageError } from '../../storage/interface';
import type { ServiceLookup } from './client';
import { WebhookSource, type WebhookKind } from './hooks';
import type { DispatchDeps } from './invoke';
import { isExemptResource } from './matching';
import { dispatchMutating } from './mutating';
import { dispatchValidating } from './validating';

const GROUP = 'admissionregistration.k8s.io';

function isNotFound(err: unknown): boolean {
  return err instanceof StorageError && err.code === 'KeyNotFound';
}

function dispatchDeps(env: ServerEnv): DispatchDeps {
  const namespaceLabels = async (name: string): Promise<Record<string, string>> => {
    try {
      const ns = await env.storageFor('namespaces').get(env.keyFor('namespaces', '', '', name), { resourceVersion: '0' });
      return ns.metadata.labels ?? {};
    } catch (err) {
      if (isNotFound(err)) throw notFound({ group: '', resource: 'namespaces' }, name);
      throw err;
    }
  };
  const services: ServiceLookup = async (namespace, name) => {
    try {
      const svc = await env.storageFor('services').get(env.keyFor('services', '', namespace, name), { resourceVersion: '0' });
      return (svc.spec ?? {}) as Record<string, unknown>;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  return {
    namespaceLabels,
    services,
    defaults: (attrs: AdmissionAttributes, obj) => {
      const def = env.resources().find((d) => d.group === attrs.group && d.version === attrs.version && d.resource === attrs.resource);
      def?.strategy.defaults(obj);
    },
    log: (line) => env.log(line),
    authorize: (a) => env.authorize(a),
  };
}

function sourceFor(env: ServerEnv, kind: WebhookKind): WebhookSource {
  const resource = kind === 'mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  return new WebhookSource(() => env.storageFor(resource, GROUP), `${env.etcdPrefix}/${resource}/`, kind);
}

export function mutatingWebhookPlugin(env: ServerEnv): AdmissionPlugin {
  const source = sourceFor(env, 'mutating');
  const deps = dispatchDeps(env);
  return {
    name: 'MutatingAdmissionWebhook',
    handles: (attrs) => !isExemptResource(attrs),
    async admit(attrs) {
      if (isExemptResource(attrs)) return 'unchanged';
      const hooks = await source.webhooks();
      if (hooks.length === 0) return 'unchanged';
      await dispatchMutating(hooks, attrs, deps);
    },
  };
}

export function validatingWebhookPlugin(env: ServerEnv): AdmissionPlugin {
  const source = sourceFor(env, 'validating');
  const deps = dispatchDeps(env);
  return {
    name: 'ValidatingAdmissionWebhook',
    handles: (attrs) => !isExemptResource(attrs),
    async validate(attrs) {
      if (isExemptResource(attrs)) return;
      const hooks = await source.webhooks();
      if (hooks.length > 0) await dispatchValidating(hooks, attrs, deps);
    },
  };
}
