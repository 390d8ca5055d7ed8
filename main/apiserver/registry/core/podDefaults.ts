// Scheme defaulting of PodSpec and its parts, as kube 1.32's generated
// SetDefaults_* for core/v1 (pkg/apis/core/v1/defaults.go plus the
// zz_generated defaulters that walk containers, ports, probes, volumes).
// Used by pods and by every pod template (deployments, replicasets).

import { type Rec, arr, isRec, rec, recOpt, setDefault, str } from '../common/obj';

/** parsers.ParseImageName's tag: 'latest' when neither tag nor digest is given. */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const named = at >= 0 ? image.slice(0, at) : image;
  const lastSlash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > lastSlash ? named.slice(colon + 1) : '';
  if (!tag && at < 0) return 'latest';
  return tag;
}

function defaultProbe(p: Rec | undefined): void {
  if (!p) return;
  setDefault(p, 'timeoutSeconds', 1);
  setDefault(p, 'periodSeconds', 10);
  setDefault(p, 'successThreshold', 1);
  setDefault(p, 'failureThreshold', 3);
  const http = recOpt(p, 'httpGet');
  if (http) {
    setDefault(http, 'path', '/');
    setDefault(http, 'scheme', 'HTTP');
  }
  const grpc = recOpt(p, 'grpc');
  if (grpc && grpc.service === undefined) grpc.service = '';
}

function defaultLifecycleHandler(h: Rec | undefined): void {
  const http = recOpt(h, 'httpGet');
  if (http) {
    setDefault(http, 'path', '/');
    setDefault(http, 'scheme', 'HTTP');
  }
}

export function defaultContainer(c: Rec, hostNetwork: boolean): void {
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === '') {
    c.imagePullPolicy = imageTag(str(c, 'image')) === 'latest' ? 'Always' : 'IfNotPresent';
  }
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  for (const p of arr(c, 'ports')) {
    setDefault(p, 'protocol', 'TCP');
    // With host networking the host port is the container port (SetDefaults_Pod).
    if (hostNetwork && (p.hostPort === undefined || p.hostPort === 0)) p.hostPort = p.containerPort;
  }
  for (const e of arr(c, 'env')) {
    const ref = recOpt(recOpt(e, 'valueFrom'), 'fieldRef');
    if (ref) setDefault(ref, 'apiVersion', 'v1');
  }
  defaultProbe(recOpt(c, 'livenessProbe'));
  defaultProbe(recOpt(c, 'readinessProbe'));
  defaultProbe(recOpt(c, 'startupProbe'));
  const lc = recOpt(c, 'lifecycle');
  defaultLifecycleHandler(recOpt(lc, 'postStart'));
  defaultLifecycleHandler(recOpt(lc, 'preStop'));
}

function defaultVolume(v: Rec): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
  for (const kind of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = recOpt(v, kind);
    if (src) setDefault(src, 'defaultMode', 420);
  }
  const hp = recOpt(v, 'hostPath');
  if (hp && hp.type === undefined) hp.type = '';
  const proj = recOpt(v, 'projected');
  for (const s of arr(proj, 'sources')) {
    const sat = recOpt(s, 'serviceAccountToken');
    if (sat) setDefault(sat, 'expirationSeconds', 3600);
  }
}

/** SetDefaults_PodSpec and the per-field defaults beneath it. */
export function defaultPodSpec(spec: Rec): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) spec.terminationGracePeriodSeconds = 30;
  if (!isRec(spec.securityContext)) spec.securityContext = {};
  setDefault(spec, 'schedulerName', 'default-scheduler');
  // The v1 conversion keeps the deprecated serviceAccount in step with serviceAccountName.
  if (!str(spec, 'serviceAccountName') && str(spec, 'serviceAccount')) spec.serviceAccountName = spec.serviceAccount;
  if (str(spec, 'serviceAccountName')) spec.serviceAccount = spec.serviceAccountName;
  const hostNetwork = spec.hostNetwork === true;
  for (const c of arr(spec, 'initContainers')) defaultContainer(c, hostNetwork);
  for (const c of arr(spec, 'containers')) defaultContainer(c, hostNetwork);
  for (const c of arr(spec, 'ephemeralContainers')) defaultContainer(c, hostNetwork);
  for (const v of arr(spec, 'volumes')) defaultVolume(v);
}

/** SetDefaults_Pod: the pod-only defaults on top of the spec's. */
export function defaultPod(pod: Rec): void {
  const spec = rec(pod, 'spec');
  defaultPodSpec(spec);
  // Requests default to limits where only limits are given — on pods only, never on templates.
  for (const c of [...arr(spec, 'containers'), ...arr(spec, 'initContainers')]) {
    const res = recOpt(c, 'resources');
    const limits = recOpt(res, 'limits');
    if (!res || !limits) continue;
    const requests = rec(res, 'requests');
    for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = v;
  }
  if (spec.enableServiceLinks === undefined) spec.enableServiceLinks = true;
}

/** A pod template (deployments, replicasets): template.metadata.creationTimestamp renders as null like a zero metav1.Time. */
export function defaultPodTemplate(template: Rec): void {
  const meta = rec(template, 'metadata');
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  defaultPodSpec(rec(template, 'spec'));
}
