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

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * A metav1.Time as %#v prints it (time.Time's GoString): the zero time for
 * an empty or unparsable value, else the instant in time.Local, which is UTC
 * on the hosts the API server runs on (metav1.Time decodes into Local).
 */
export function goTime(rfc3339: string | undefined): GoLiteral {
  const ms = rfc3339 ? Date.parse(rfc3339) : NaN;
  if (!Number.isFinite(ms)) return new GoLiteral('time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)');
  const d = new Date(ms);
  const nanos = d.getUTCMilliseconds() * 1_000_000;
  return new GoLiteral(
    `time.Date(${d.getUTCFullYear()}, time.${MONTHS[d.getUTCMonth()]}, ${d.getUTCDate()}, ${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()}, ${nanos}, time.Local)`,
  );
}
