// The Add-connection dialog's form: etcd members (endpoints and the TLS files
// etcdctl takes) and/or a kubeconfig context, and whether the console may
// change the cluster. Pure: the form as typed ↔ the draft main checks again.

import type { ConnectionDraft } from '../../../preload/contract';

export interface ConnectionForm {
  name: string;
  /** Comma-, space- or newline-separated, as etcdctl --endpoints (commas). */
  endpoints: string;
  cacert: string;
  cert: string;
  key: string;
  kubeconfig: string;
  context: string;
  writable: boolean;
}

export function emptyConnectionForm(): ConnectionForm {
  return { name: '', endpoints: '', cacert: '', cert: '', key: '', kubeconfig: '', context: '', writable: false };
}

export function endpointList(text: string): string[] {
  return text.split(/[\s,]+/).filter((e) => e !== '');
}

/** What keeps the form from being saved ('' when nothing does); main checks the files. */
export function formProblem(f: ConnectionForm): string {
  if (!f.name.trim()) return 'Give the connection a name.';
  const etcd = endpointList(f.endpoints).length > 0;
  if (!etcd && !f.kubeconfig.trim()) return 'Give etcd endpoints, a kubeconfig, or both.';
  if (!etcd && (f.cacert.trim() || f.cert.trim() || f.key.trim())) return 'The CA and client certificate need etcd endpoints.';
  if (Boolean(f.cert.trim()) !== Boolean(f.key.trim())) return 'The client certificate and its key go together.';
  if (f.context.trim() && !f.kubeconfig.trim()) return 'A context needs its kubeconfig.';
  return '';
}

export function connectionDraft(f: ConnectionForm): ConnectionDraft {
  const endpoints = endpointList(f.endpoints);
  const file = (v: string) => v.trim() || undefined;
  const [cacert, cert, key, kubeconfig, context] = [f.cacert, f.cert, f.key, f.kubeconfig, f.context].map(file);
  return {
    name: f.name.trim(),
    ...(endpoints.length > 0 && { etcd: { endpoints, ...(cacert && { cacert }), ...(cert && { cert }), ...(key && { key }) } }),
    ...(kubeconfig && { kube: { kubeconfig, ...(context && { context }) } }),
    writable: f.writable,
  };
}

/** An imported draft into the form; what the draft does not say is kept as typed (etcd and kubeconfig can be imported one after the other). */
export function mergeDraft(f: ConnectionForm, d: ConnectionDraft): ConnectionForm {
  const out = { ...f, name: f.name.trim() ? f.name : d.name };
  if (d.etcd) Object.assign(out, { endpoints: d.etcd.endpoints.join(','), cacert: d.etcd.cacert ?? '', cert: d.etcd.cert ?? '', key: d.etcd.key ?? '' });
  if (d.kube) Object.assign(out, { kubeconfig: d.kube.kubeconfig, context: d.kube.context ?? '' });
  return out;
}
