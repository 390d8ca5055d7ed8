// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration: cluster-scoped lists of webhooks the
// admission chain calls. Defaults are v1's SetDefaults_* (failurePolicy Fail,
// matchPolicy Equivalent, empty selectors, timeoutSeconds 10, rule scope "*",
// service port 443, mutating reinvocationPolicy Never); validation follows
// pkg/apis/admissionregistration/validation with kube's field paths and texts,
// matchConditions compiled (must be bool) by the webhook plugin's CEL layer.

import type { KObject } from '../../../kube/object';
import { type ErrorList, duplicate, invalid, notSupported, required } from '../../api/validation/field';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, isValidPortNum, nameIsDNSSubdomain } from '../../api/validation/names';
import { validateLabelSelector } from '../apps/workload';
import { type Rec, arr, isRec, num, recOpt, str } from '../common/obj';
import { ALL_VERBS, metaFields, simpleStrategy } from '../common/define';
import type { ResourceDef, TableConvertor } from '../rest/resourceDef';
import { ageColumn, col, nameColumn } from '../tables/columns';
import { translateTimestampSince } from '../tables/duration';
import { validateResources } from './ruleResources';
import { compileMatchCondition } from '../../admission/webhook/matchConditions';

const GROUP = 'admissionregistration.k8s.io';

/** SetDefaults_MutatingWebhook / SetDefaults_ValidatingWebhook, SetDefaults_Rule, SetDefaults_ServiceReference. */
export function defaultWebhooks(obj: KObject, mutating: boolean): void {
  for (const hook of arr(obj as Rec, 'webhooks')) {
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= 'Never';
    for (const rule of arr(hook, 'rules')) rule.scope ??= '*';
    const svc = recOpt(recOpt(hook, 'clientConfig'), 'service');
    if (svc) svc.port ??= 443;
  }
}

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const hasWildcard = (xs: string[]) => xs.includes('*');
const strings = (o: Rec, k: string): string[] => (Array.isArray(o[k]) ? (o[k] as unknown[]).map(String) : []);

function validateRuleWithOperations(rule: Rec, path: string): ErrorList {
  const errs: ErrorList = [];
  const ops = strings(rule, 'operations');
  if (ops.length === 0) errs.push(required(`${path}.operations`));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(invalid(`${path}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = strings(rule, 'apiGroups');
  if (groups.length === 0) errs.push(required(`${path}.apiGroups`));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = strings(rule, 'apiVersions');
  if (versions.length === 0) errs.push(required(`${path}.apiVersions`));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(invalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(strings(rule, 'resources'), `${path}.resources`));
  if (typeof rule.scope === 'string' && !SCOPES.includes(rule.scope)) errs.push(notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

/** utilvalidation.IsFullyQualifiedName. */
function validateHookName(name: string, path: string): ErrorList {
  if (!name) return [required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

const URL_FORM = '; desired format: https://host[/path]';

/** webhook.ValidateWebhookURL with forceHttps. */
export function validateWebhookURL(raw: string, path: string): ErrorList {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // Go's url.Parse accepts relative references; the scheme and host checks then report them.
    const errs: ErrorList = [invalid(path, '', `'https' is the only allowed URL scheme${URL_FORM}`)];
    errs.push(invalid(path, '', `host must be specified${URL_FORM}`));
    return errs;
  }
  const errs: ErrorList = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(invalid(path, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (!u.host) errs.push(invalid(path, u.host, `host must be specified${URL_FORM}`));
  if (u.username || u.password) errs.push(invalid(path, u.password ? `${u.username}:xxxxx` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService. */
function validateWebhookService(svc: Rec, path: string): ErrorList {
  const errs: ErrorList = [];
  if (!str(svc, 'name')) errs.push(required(`${path}.name`));
  if (!str(svc, 'namespace')) errs.push(required(`${path}.namespace`));
  const port = num(svc, 'port') ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (typeof svc.path !== 'string') return errs;
  const p = svc.path;
  if (p === '/' || p === '') return errs;
  if (p === '//') return [...errs, invalid(`${path}.path`, p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(invalid(`${path}.path`, p, "must start with a '/'"));
  let check = p.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') {
      errs.push(invalid(`${path}.path`, p, `segment[${i}] may not be empty`));
      return;
    }
    for (const f of isDNS1123Subdomain(step)) errs.push(invalid(`${path}.path`, p, `segment[${i}]: ${f}`));
  });
  return errs;
}

function validateAdmissionReviewVersions(versions: string[], path: string): ErrorList {
  if (versions.length < 1) return [required(path, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)];
  const errs: ErrorList = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const e of isDNS1035Label(v)) errs.push(invalid(`${path}[${i}]`, v, e));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (!accepted) errs.push(invalid(path, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

function validateMatchConditions(conds: Rec[], path: string): ErrorList {
  const errs: ErrorList = [];
  if (conds.length > 64) errs.push({ type: 'FieldValueTooMany', field: path, badValue: conds.length, detail: 'must have at most 64 items' });
  const names = new Set<string>();
  conds.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const expr = str(c, 'expression');
    if (expr.trim() === '') errs.push(required(`${p}.expression`));
    else {
      const why = compileMatchCondition(expr.trim());
      if (why) errs.push(invalid(`${p}.expression`, expr.trim(), why));
    }
    const name = str(c, 'name');
    if (!name) errs.push(required(`${p}.name`));
    else for (const m of isQualifiedName(name)) errs.push(invalid(`${p}.name`, name, m));
    if (name) {
      if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

function validateWebhook(hook: Rec, path: string, mutating: boolean): ErrorList {
  const errs: ErrorList = [...validateHookName(str(hook, 'name'), `${path}.name`)];
  arr(hook, 'rules').forEach((r, i) => errs.push(...validateRuleWithOperations(r, `${path}.rules[${i}]`)));
  if (typeof hook.failurePolicy === 'string' && !['Fail', 'Ignore'].includes(hook.failurePolicy)) errs.push(notSupported(`${path}.failurePolicy`, hook.failurePolicy, ['Fail', 'Ignore']));
  if (typeof hook.matchPolicy === 'string' && !['Equivalent', 'Exact'].includes(hook.matchPolicy)) errs.push(notSupported(`${path}.matchPolicy`, hook.matchPolicy, ['Equivalent', 'Exact']));
  if (typeof hook.sideEffects !== 'string') errs.push(required(`${path}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
  else if (!['None', 'NoneOnDryRun'].includes(hook.sideEffects)) errs.push(notSupported(`${path}.sideEffects`, hook.sideEffects, ['None', 'NoneOnDryRun']));
  const timeout = num(hook, 'timeoutSeconds');
  if (timeout !== undefined && (timeout > 30 || timeout < 1)) errs.push(invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  const ns = recOpt(hook, 'namespaceSelector');
  if (ns) errs.push(...validateLabelSelector(ns, `${path}.namespaceSelector`));
  const os = recOpt(hook, 'objectSelector');
  if (os) errs.push(...validateLabelSelector(os, `${path}.objectSelector`));
  if (mutating && typeof hook.reinvocationPolicy === 'string' && !['IfNeeded', 'Never'].includes(hook.reinvocationPolicy)) {
    errs.push(notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, ['IfNeeded', 'Never']));
  }
  const cc = recOpt(hook, 'clientConfig') ?? {};
  const hasUrl = typeof cc.url === 'string';
  const svc = recOpt(cc, 'service');
  if (hasUrl === !!svc) errs.push(required(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (hasUrl) errs.push(...validateWebhookURL(cc.url as string, `${path}.clientConfig.url`));
  else errs.push(...validateWebhookService(svc!, `${path}.clientConfig.service`));
  errs.push(...validateMatchConditions(arr(hook, 'matchConditions'), `${path}.matchConditions`));
  return errs;
}

/** validate{Mutating,Validating}WebhookConfiguration after ObjectMeta (which simpleStrategy checks). */
export function validateWebhookConfiguration(obj: KObject, mutating: boolean): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  arr(obj as Rec, 'webhooks').forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, path, mutating));
    errs.push(...validateAdmissionReviewVersions(strings(hook, 'admissionReviewVersions'), `${path}.admissionReviewVersions`));
    const name = str(hook, 'name');
    if (name) {
      if (names.has(name)) errs.push(duplicate(`${path}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

/** kube's printers: NAME WEBHOOKS AGE. */
const webhookConfigurationTable: TableConvertor = {
  columns: [nameColumn, col('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'), ageColumn],
  cells: (o, now) => [o.metadata.name, Array.isArray((o as Rec).webhooks) ? ((o as Rec).webhooks as unknown[]).filter(isRec).length : 0, translateTimestampSince(o.metadata.creationTimestamp, now)],
};

function webhookConfigurationDef(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration'): ResourceDef {
  const mutating = kind === 'MutatingWebhookConfiguration';
  const resource = mutating ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  return {
    group: GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    resource,
    singular: resource.slice(0, -1),
    namespaced: false,
    shortNames: [],
    categories: ['api-extensions'],
    verbs: ALL_VERBS,
    storagePrefix: resource,
    protoType: `k8s.io.api.admissionregistration.v1.${kind}`,
    subresources: [],
    strategy: simpleStrategy({
      namespaced: false,
      nameFn: nameIsDNSSubdomain,
      defaults: (obj) => defaultWebhooks(obj, mutating),
      validate: (obj) => validateWebhookConfiguration(obj, mutating),
      generation: true,
    }),
    table: webhookConfigurationTable,
    selectableFields: (obj) => metaFields(obj, false),
  };
}

export const mutatingWebhookConfigurations = webhookConfigurationDef('MutatingWebhookConfiguration');
export const validatingWebhookConfigurations = webhookConfigurationDef('ValidatingWebhookConfiguration');
