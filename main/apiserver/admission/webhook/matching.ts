// Whether a webhook applies to a request, as kube decides it
// (k8s.io/apiserver pkg/admission/plugin/webhook/predicates and
// generic/webhook.go ShouldCallHook):
//  - rules: operation, group, version, resource[/subresource] with `*`
//    wildcards, and scope (Namespaced / Cluster / *; a namespace object is
//    cluster-scoped);
//  - namespaceSelector: cluster-scoped requests (other than namespaces) always
//    match; a namespace create/update is judged by its own new labels, other
//    requests by the labels of the namespace they live in (404 when it does
//    not exist);
//  - objectSelector: the new or the old object's labels match.
// matchPolicy Equivalent also matches the same resource under another version
// of its group; every resource here is served in exactly one version and no
// conversion exists, so Equivalent matches what Exact matches.

import type { KObject } from '../../../kube/object';
import type { AdmissionAttributes } from '../interfaces';
import type { Webhook, WebhookRule } from './hooks';

/** The request's view the predicates read. */
export type RuleAttrs = Pick<AdmissionAttributes, 'operation' | 'group' | 'version' | 'resource' | 'subresource' | 'namespace'>;

const exactOrWildcard = (items: string[], requested: string) => items.some((i) => i === '*' || i === requested);

const isNamespaceResource = (a: RuleAttrs) => a.group === '' && a.version === 'v1' && a.resource === 'namespaces';

function scopeMatches(rule: WebhookRule, a: RuleAttrs): boolean {
  switch (rule.scope) {
    case '*':
    case '':
      return true;
    case 'Namespaced':
      return !isNamespaceResource(a) && a.namespace !== '';
    case 'Cluster':
      return isNamespaceResource(a) || a.namespace === '';
    default:
      return false;
  }
}

function resourceMatches(rule: WebhookRule, a: RuleAttrs): boolean {
  return rule.resources.some((resSub) => {
    const slash = resSub.indexOf('/');
    const res = slash < 0 ? resSub : resSub.slice(0, slash);
    const sub = slash < 0 ? '' : resSub.slice(slash + 1);
    return (res === '*' || res === a.resource) && (sub === '*' || sub === a.subresource);
  });
}

/** rules.Matcher.Matches. */
export function ruleMatches(rule: WebhookRule, a: RuleAttrs): boolean {
  return scopeMatches(rule, a) && exactOrWildcard(rule.operations, a.operation) && exactOrWildcard(rule.apiGroups, a.group) && exactOrWildcard(rule.apiVersions, a.version) && resourceMatches(rule, a);
}

export function anyRuleMatches(hook: Webhook, a: RuleAttrs): boolean {
  return hook.rules.some((r) => ruleMatches(r, a));
}

/** object.Matcher.MatchObjectSelector. */
export function objectSelectorMatches(hook: Webhook, object: KObject | undefined, oldObject: KObject | undefined): boolean {
  if (hook.objectSelector.empty()) return true;
  const labelsOf = (o: KObject | undefined) => (o && typeof o.metadata === 'object' ? o.metadata.labels ?? {} : undefined);
  const n = labelsOf(object);
  const o = labelsOf(oldObject);
  return (n !== undefined && hook.objectSelector.matches(n)) || (o !== undefined && hook.objectSelector.matches(o));
}

/** Reads a namespace's labels; throws kube's 404 StatusError when it does not exist. */
export type NamespaceLabels = (name: string) => Promise<Record<string, string>>;

/** namespace.Matcher.MatchNamespaceSelector (the labels lookup is only made when the selector needs it). */
export async function namespaceSelectorMatches(hook: Webhook, attrs: AdmissionAttributes, namespaceLabels: NamespaceLabels): Promise<boolean> {
  const isNamespace = attrs.resource === 'namespaces' && attrs.group === '';
  // kube's request info names a namespace request's namespace after the namespace itself.
  const namespace = isNamespace ? attrs.name : attrs.namespace;
  if (namespace === '' && !isNamespace) return true;
  if (hook.namespaceSelector.empty()) return true;
  let labels: Record<string, string>;
  if (isNamespace && attrs.subresource === '' && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
    labels = attrs.object?.metadata?.labels ?? {};
  } else {
    labels = await namespaceLabels(namespace);
  }
  return hook.namespaceSelector.matches(labels);
}

/** The admissionregistration resources themselves are never sent to webhooks (rules.IsExemptAdmissionConfigurationResource). */
export function isExemptResource(a: Pick<AdmissionAttributes, 'group' | 'resource'>): boolean {
  return (
    a.group === 'admissionregistration.k8s.io' &&
    ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings'].includes(a.resource)
  );
}
