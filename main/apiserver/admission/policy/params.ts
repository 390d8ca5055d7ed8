// The params of one binding (generic.CollectParams): the policy's paramKind
// names a served resource; the binding's paramRef picks objects of it by
// name or label selector, in paramRef.namespace or else the request's
// namespace. Read from the watch cache the REST layer serves. An empty
// result with parameterNotFoundAction Deny is an error; with Allow the
// binding validates nothing. A policy without paramKind, or a binding
// without paramRef, validates once with params = null.

import { labelSelectorAsSelector, type MetaLabelSelector } from '../../api/labelSelector';
import { apiVersionOf, type KObject } from '../../../kube/object';
import type { ResourceDef } from '../../registry/rest/resourceDef';
import { type Rec, recOpt, str } from '../../registry/common/obj';
import type { ServerEnv } from '../../serverEnv';
import { StorageError } from '../../storage/interface';

/** The served resource behind a paramKind, or kube's configuration error. */
export function resolveParamKind(env: ServerEnv, paramKind: Rec): ResourceDef {
  const apiVersion = str(paramKind, 'apiVersion');
  const kind = str(paramKind, 'kind');
  const parts = apiVersion.split('/');
  if (parts.length > 2) throw new Error(`failed to parse paramKind apiVersion: unexpected GroupVersion string: ${apiVersion}`);
  const [group, version] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!];
  const def = env.resources().find((d) => d.group === group && d.version === version && d.kind === kind && !d.virtualCreate);
  if (!def) throw new Error(`failed to find resource referenced by paramKind: '${group}/${version}, Kind=${kind}'`);
  return def;
}

/** Stored objects may lack apiVersion/kind; CEL sees them as kube's wrappedParam does, with both set. */
function withTypeMeta(def: ResourceDef, o: KObject): KObject {
  if (o.apiVersion && o.kind) return o;
  return { ...o, apiVersion: apiVersionOf(def), kind: def.kind };
}

export async function collectParams(env: ServerEnv, def: ResourceDef | undefined, paramRef: Rec | undefined, requestNamespace: string): Promise<(KObject | null)[]> {
  if (!def || !paramRef) return [null];
  const refNamespace = str(paramRef, 'namespace');
  let namespace = '';
  if (def.namespaced) {
    namespace = refNamespace || requestNamespace;
    if (!namespace) throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (refNamespace) {
    throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  const storage = env.storageFor(def.resource, def.group);
  let params: KObject[] = [];
  const name = str(paramRef, 'name');
  const selector = recOpt(paramRef, 'selector');
  if (name) {
    if (selector) throw new Error('paramRef.name and paramRef.selector are mutually exclusive');
    try {
      params = [await storage.get(env.keyFor(def.resource, def.group, namespace, name), { resourceVersion: '0' })];
    } catch (e) {
      if (!(e instanceof StorageError && e.code === 'KeyNotFound')) throw e;
    }
  } else if (selector) {
    const sel = labelSelectorAsSelector(selector as MetaLabelSelector);
    const prefix = `${env.etcdPrefix}/${def.storagePrefix}/${namespace ? `${namespace}/` : ''}`;
    const matches = (o: KObject): boolean => sel.matches(o.metadata?.labels ?? {});
    const list = await storage.getList(prefix, { resourceVersion: '0', shareItems: true, predicate: matches });
    params = list.items.filter(matches);
  } else {
    throw new Error('one of name or selector must be provided');
  }
  if (params.length === 0 && str(paramRef, 'parameterNotFoundAction') === 'Deny') {
    throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  return params.map((p) => withTypeMeta(def, p));
}
