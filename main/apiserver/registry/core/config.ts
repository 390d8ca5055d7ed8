// core/v1 configmaps, secrets and serviceaccounts: key syntax, the
// `immutable` flag, secret types (default Opaque; stringData merged into
// base64 data as the v1 conversion does), size limits.

import type { KObject } from '../../../kube/object';
import { type ErrorList, forbidden, immutable, invalid, required, tooLong } from '../../api/validation/field';
import { deepEqual } from '../../api/validation/field';
import { maxLenError, nameIsDNSSubdomain, regexError } from '../../api/validation/names';
import { type Rec, isRec, setDefault } from '../common/obj';
import { ALL_VERBS, metaFields, simpleStrategy } from '../common/define';
import type { ResourceDef } from '../rest/resourceDef';
import { configMapTable, secretTable, serviceAccountTable } from '../tables/core';

const configKeyFmt = '[-._a-zA-Z0-9]+';

/** IsConfigMapKey. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push(maxLenError(253));
  if (!new RegExp(`^${configKeyFmt}$`).test(key)) errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const keys = (v: unknown): string[] => (isRec(v) ? Object.keys(v) : []);

function validateKeys(obj: KObject, fields: string[]): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  for (const f of fields) {
    for (const k of keys(obj[f])) {
      for (const m of isConfigMapKey(k)) errs.push(invalid(`${f}[${k}]`, k, m));
      if (seen.has(k)) errs.push(invalid(`${f}[${k}]`, k, 'duplicate of key present in data'));
      seen.add(k);
    }
  }
  return errs;
}

function validateImmutable(obj: KObject, old: KObject, fields: string[]): ErrorList {
  if (old.immutable !== true) return [];
  const errs: ErrorList = [];
  if (obj.immutable !== true) errs.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (!deepEqual(obj[f] ?? {}, old[f] ?? {})) errs.push(forbidden(f, 'field is immutable when `immutable` is set'));
  return errs;
}

const cmStrategy = simpleStrategy({
  namespaced: true,
  nameFn: nameIsDNSSubdomain,
  validate(obj) {
    const errs = validateKeys(obj, ['data', 'binaryData']);
    let size = 0;
    for (const v of Object.values(isRec(obj.data) ? obj.data : {})) size += Buffer.byteLength(String(v));
    for (const v of Object.values(isRec(obj.binaryData) ? obj.binaryData : {})) size += Buffer.from(String(v), 'base64').length;
    if (size > 1024 * 1024) errs.push(tooLong('', `must have at most ${1024 * 1024} bytes`));
    return errs;
  },
  validateUpdate: (obj, old) => validateImmutable(obj, old, ['data', 'binaryData']),
});

export const configmaps: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  resource: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  shortNames: ['cm'],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'configmaps',
  protoType: 'k8s.io.api.core.v1.ConfigMap',
  subresources: [],
  strategy: cmStrategy,
  table: configMapTable,
  selectableFields: (obj) => metaFields(obj, true),
};

/** The v1 → internal conversion folds stringData into data (base64), stringData winning. */
function mergeStringData(obj: KObject): void {
  if (!isRec(obj.stringData)) return;
  const data: Rec = isRec(obj.data) ? (obj.data as Rec) : {};
  for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
  obj.data = data;
  delete obj.stringData;
}

function validateSecretType(obj: KObject): ErrorList {
  const data = isRec(obj.data) ? (obj.data as Rec) : {};
  const errs: ErrorList = [];
  switch (obj.type) {
    case 'kubernetes.io/tls':
      for (const k of ['tls.crt', 'tls.key']) if (!(k in data)) errs.push(required(`data[${k}]`));
      break;
    case 'kubernetes.io/dockerconfigjson':
      if (!('.dockerconfigjson' in data)) errs.push(required('data[.dockerconfigjson]'));
      break;
    case 'kubernetes.io/dockercfg':
      if (!('.dockercfg' in data)) errs.push(required('data[.dockercfg]'));
      break;
    case 'kubernetes.io/basic-auth':
      if (!('username' in data) && !('password' in data)) errs.push(required('data[username]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!('ssh-privatekey' in data)) errs.push(required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/service-account-token':
      if (!obj.metadata.annotations?.['kubernetes.io/service-account.name']) errs.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
  }
  return errs;
}

const secretStrategy = simpleStrategy({
  namespaced: true,
  nameFn: nameIsDNSSubdomain,
  defaults(obj) {
    setDefault(obj as Rec, 'type', 'Opaque');
  },
  prepareForCreate: mergeStringData,
  prepareForUpdate: mergeStringData,
  validate(obj) {
    const errs = [...validateKeys(obj, ['data']), ...validateSecretType(obj)];
    let size = 0;
    for (const v of Object.values(isRec(obj.data) ? obj.data : {})) size += Buffer.from(String(v), 'base64').length;
    if (size > 1024 * 1024) errs.push(tooLong('data', `must have at most ${1024 * 1024} bytes`));
    return errs;
  },
  validateUpdate: (obj, old) => [...immutable(obj.type, old.type, 'type'), ...validateImmutable(obj, old, ['data'])],
});

export const secrets: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  listKind: 'SecretList',
  resource: 'secrets',
  singular: 'secret',
  namespaced: true,
  shortNames: [],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'secrets',
  protoType: 'k8s.io.api.core.v1.Secret',
  subresources: [],
  strategy: secretStrategy,
  table: secretTable,
  selectableFields: (obj) => ({ ...metaFields(obj, true), type: typeof obj.type === 'string' ? obj.type : '' }),
};

export const serviceaccounts: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  namespaced: true,
  shortNames: ['sa'],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'serviceaccounts',
  protoType: 'k8s.io.api.core.v1.ServiceAccount',
  subresources: [],
  strategy: simpleStrategy({ namespaced: true, nameFn: nameIsDNSSubdomain }),
  table: serviceAccountTable,
  selectableFields: (obj) => metaFields(obj, true),
};
