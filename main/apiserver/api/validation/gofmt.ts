// Bad values rendered as Go's %#v prints kube's types in field errors, so a
// message reads `Invalid value: map[string]string{"app":"nginx"}: ...` as
// kube-apiserver writes it.

import { GoLiteral } from '../status';

export function goMap(m: Record<string, string> | undefined): GoLiteral {
  if (!m) return new GoLiteral('map[string]string(nil)');
  const body = Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`)
    .join(', ');
  return new GoLiteral(`map[string]string{${body}}`);
}

interface Sel {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** *metav1.LabelSelector as %#v prints it. */
export function goLabelSelector(s: Sel | undefined | null): GoLiteral {
  if (!s) return new GoLiteral('(*v1.LabelSelector)(nil)');
  const ml = s.matchLabels ? goMap(s.matchLabels).text : 'map[string]string(nil)';
  const me = s.matchExpressions
    ? `[]v1.LabelSelectorRequirement{${s.matchExpressions
        .map((e) => {
          const vals = e.values ? `[]string{${e.values.map((v) => JSON.stringify(v)).join(', ')}}` : '[]string(nil)';
          return `v1.LabelSelectorRequirement{Key:${JSON.stringify(e.key)}, Operator:${JSON.stringify(e.operator)}, Values:${vals}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return new GoLiteral(`v1.LabelSelector{MatchLabels:${ml}, MatchExpressions:${me}}`);
}
