// The `paths` of one group-version's OpenAPI v3 document, one entry per
// REST path we serve, shaped like kube-openapi's: path-level name/namespace/
// pretty parameters; operations carrying operationId, x-kubernetes-action and
// x-kubernetes-group-version-kind; write operations with dryRun,
// fieldManager and fieldValidation; PATCH accepting the four patch media
// types. kubectl reads these to find a resource's kind (`kubectl explain`)
// and to see that the server validates fields (`kubectl apply`).

import type { GroupVersionKind } from '../../../kube/object';
import type { ResourceDef, Verb } from '../../registry/rest/resourceDef';
import { messageForGvk } from '../../../kube/schema/index';
import { schemaRef, type Components, type JsonObject } from './components';
import { PATCH_MEDIA_TYPES, deleteCollectionParams, deleteParams, listParams, params, patchParams, writeParams } from './parameters';

const RESPONSE_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

function groupVersionId(gvk: { group: string; version: string }): string {
  const group = gvk.group === '' ? 'core' : gvk.group.split('.')[0];
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  return `${cap(group)}${cap(gvk.version)}`;
}

function tag(gvk: { group: string; version: string }): string {
  return `${gvk.group === '' ? 'core' : gvk.group.split('.')[0]}_${gvk.version}`;
}

function content(schemaName: string, types = RESPONSE_TYPES): JsonObject {
  return Object.fromEntries(types.map((t) => [t, { schema: { $ref: schemaRef(schemaName) } }]));
}

function responses(schemaName: string, codes: string[]): JsonObject {
  const text: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };
  const out: JsonObject = {};
  for (const c of codes) out[c] = { description: text[c], content: content(schemaName) };
  out['401'] = { description: 'Unauthorized' };
  return out;
}

interface OpSpec {
  action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  operationId: string;
  description: string;
  gvk: GroupVersionKind;
  parameters: JsonObject[];
  requestBody?: JsonObject;
  responses: JsonObject;
}

function operation(op: OpSpec): JsonObject {
  const out: JsonObject = { tags: [tag(op.gvk)], description: op.description, operationId: op.operationId };
  if (op.parameters.length > 0) out.parameters = op.parameters;
  if (op.requestBody) out.requestBody = op.requestBody;
  out.responses = op.responses;
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return out;
}

const bodyOf = (schemaName: string): JsonObject => ({ content: { '*/*': { schema: { $ref: schemaRef(schemaName) } } }, required: true });

/** Adds the paths of one resource (and its subresources) to `paths`. */
export function addResourcePaths(paths: Record<string, JsonObject>, def: ResourceDef, components: Components): void {
  const gvk: GroupVersionKind = { group: def.group, version: def.version, kind: def.kind };
  const std = components.standard();
  components.declareKind(def.protoType, gvk);
  const kindSchema = components.message(def.protoType);
  const listSchema = components.list(def.protoType, gvk, def.listKind);
  const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const collection = def.namespaced ? `${base}/namespaces/{namespace}/${def.resource}` : `${base}/${def.resource}`;
  const item = `${collection}/{name}`;
  const gv = groupVersionId(gvk);
  const scope = def.namespaced ? 'Namespaced' : '';
  const has = (v: Verb) => def.verbs.includes(v);
  const scopeParams = def.namespaced ? [params.namespace] : [];

  const coll: JsonObject = {};
  if (has('list')) {
    coll.get = operation({
      action: 'list',
      operationId: `list${gv}${scope}${def.kind}`,
      description: `list or watch objects of kind ${def.kind}`,
      gvk,
      parameters: listParams(),
      responses: responses(listSchema, ['200']),
    });
  }
  if (has('create')) {
    coll.post = operation({
      action: 'post',
      operationId: `create${gv}${scope}${def.kind}`,
      description: `create a ${def.kind}`,
      gvk,
      parameters: writeParams(),
      requestBody: bodyOf(kindSchema),
      responses: responses(kindSchema, ['200', '201', '202']),
    });
  }
  if (has('deletecollection')) {
    coll.delete = operation({
      action: 'deletecollection',
      operationId: `delete${gv}Collection${scope}${def.kind}`,
      description: `delete collection of ${def.kind}`,
      gvk,
      parameters: deleteCollectionParams(),
      requestBody: { content: { '*/*': { schema: { $ref: schemaRef(std.deleteOptions) } } } },
      responses: responses(std.status, ['200']),
    });
  }
  if (Object.keys(coll).length > 0) paths[collection] = { ...coll, parameters: [...scopeParams, params.pretty] };

  const one: JsonObject = {};
  if (has('get')) {
    one.get = operation({
      action: 'get',
      operationId: `read${gv}${scope}${def.kind}`,
      description: `read the specified ${def.kind}`,
      gvk,
      parameters: [],
      responses: responses(kindSchema, ['200']),
    });
  }
  if (has('update')) {
    one.put = operation({
      action: 'put',
      operationId: `replace${gv}${scope}${def.kind}`,
      description: `replace the specified ${def.kind}`,
      gvk,
      parameters: writeParams(),
      requestBody: bodyOf(kindSchema),
      responses: responses(kindSchema, ['200', '201']),
    });
  }
  if (has('patch')) {
    one.patch = operation({
      action: 'patch',
      operationId: `patch${gv}${scope}${def.kind}`,
      description: `partially update the specified ${def.kind}`,
      gvk,
      parameters: patchParams(),
      requestBody: { content: content(std.patch, PATCH_MEDIA_TYPES), required: true },
      responses: responses(kindSchema, ['200', '201']),
    });
  }
  if (has('delete')) {
    one.delete = operation({
      action: 'delete',
      operationId: `delete${gv}${scope}${def.kind}`,
      description: `delete a ${def.kind}`,
      gvk,
      parameters: deleteParams(),
      requestBody: { content: { '*/*': { schema: { $ref: schemaRef(std.deleteOptions) } } } },
      responses: responses(std.status, ['200', '202']),
    });
  }
  if (Object.keys(one).length > 0) paths[item] = { ...one, parameters: [params.name(def.kind), ...scopeParams, params.pretty] };

  if (def.namespaced && has('list')) {
    paths[`${base}/${def.resource}`] = {
      get: operation({
        action: 'list',
        operationId: `list${gv}${def.kind}ForAllNamespaces`,
        description: `list or watch objects of kind ${def.kind}`,
        gvk,
        parameters: [],
        responses: responses(listSchema, ['200']),
      }),
      parameters: [...listParams(), params.pretty],
    };
  }

  for (const sub of def.subresources) {
    const subGvk = sub.kind;
    const subProto = messageForGvk(subGvk);
    if (!subProto) continue;
    components.declareKind(subProto, subGvk);
    const subSchema = components.message(subProto);
    const Sub = sub.name.charAt(0).toUpperCase() + sub.name.slice(1);
    const what = `${sub.name} of the specified ${def.kind}`;
    const ops: JsonObject = {};
    if (sub.verbs.includes('get')) {
      ops.get = operation({ action: 'get', operationId: `read${gv}${scope}${def.kind}${Sub}`, description: `read ${what}`, gvk: subGvk, parameters: [], responses: responses(subSchema, ['200']) });
    }
    if (sub.verbs.includes('create')) {
      ops.post = operation({
        action: 'post',
        operationId: `create${gv}${scope}${def.kind}${Sub}`,
        description: `create ${sub.name} of a ${def.kind}`,
        gvk: subGvk,
        parameters: writeParams(),
        requestBody: bodyOf(subSchema),
        responses: responses(subSchema, ['200', '201', '202']),
      });
    }
    if (sub.verbs.includes('update')) {
      ops.put = operation({
        action: 'put',
        operationId: `replace${gv}${scope}${def.kind}${Sub}`,
        description: `replace ${what}`,
        gvk: subGvk,
        parameters: writeParams(),
        requestBody: bodyOf(subSchema),
        responses: responses(subSchema, ['200', '201']),
      });
    }
    if (sub.verbs.includes('patch')) {
      ops.patch = operation({
        action: 'patch',
        operationId: `patch${gv}${scope}${def.kind}${Sub}`,
        description: `partially update ${what}`,
        gvk: subGvk,
        parameters: patchParams(),
        requestBody: { content: content(std.patch, PATCH_MEDIA_TYPES), required: true },
        responses: responses(subSchema, ['200', '201']),
      });
    }
    if (Object.keys(ops).length > 0) {
      paths[`${item}/${sub.name}`] = { ...ops, parameters: [params.name(sub.kind.kind), ...scopeParams, params.pretty] };
    }
  }
}
