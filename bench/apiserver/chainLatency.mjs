// The request pipeline's part of `npm run bench -- apiserver`: what the request pipeline adds
// to each create. The API server runs as `pilothouse up` runs it — RBAC (with
// the Node authorizer), kube's default admission plugins — plus one in-process
// ValidatingAdmissionPolicy bound with Deny, so every pod create goes through
// authentication → authorization → the whole admission chain → one CEL
// policy. The per-request traces (GET /debug/pilothouse/traces) time each
// stage; the chain's added latency per create is the sum of the
// authentication, authorization and admission:* stages.

import { percentile } from '../etcd/common.mjs';

export const POLICY = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'bench-containers-limit' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }] },
    validations: [{ expression: 'object.spec.containers.size() <= 10', message: 'at most 10 containers' }],
  },
};

export const BINDING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'bench-containers-limit' },
  spec: { policyName: 'bench-containers-limit', validationActions: ['Deny'] },
};

/**
 * Makes the namespace ready for pod creates with the default plugins on and
 * no controllers running (the bench starts `up --no-controllers`): its
 * `default` ServiceAccount, which the ServiceAccount plugin requires; and the policy.
 */
export async function preparePipeline(kube, namespace) {
  await defaultServiceAccount(kube, namespace);
  for (const [path, obj] of [
    ['/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', POLICY],
    ['/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', BINDING],
  ]) {
    const r = await kube.call('POST', path, obj);
    if (r.code !== 201 && r.code !== 409) throw new Error(`create ${obj.kind}: ${r.code} ${r.body}`);
  }
}

/** What the serviceaccount controller would do: the namespace's "default" ServiceAccount (201, or 409 when it is there). */
export async function defaultServiceAccount(kube, namespace) {
  const res = await kube.call('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  if (res.code !== 201 && res.code !== 409) throw new Error(`creating serviceaccount ${namespace}/default: ${res.code} ${res.body}`);
}

const CHAIN_STAGE = /^(authentication|authorization|admission:)/;

/**
 * The pipeline's latency over the successful pod creates still in the trace
 * ring (received at or after `since`, an ISO time): per create the sum of its authentication, authorization and admission
 * stages, and the admission part alone; p50/p99 of each, and which stages
 * cost most at p99.
 */
export async function chainLatency(kube, since = '') {
  const res = await kube.call('GET', '/debug/pilothouse/traces');
  if (res.code !== 200) throw new Error(`GET traces: ${res.code}`);
  const creates = JSON.parse(res.body).items.filter((t) => t.verb === 'create' && t.resource === 'pods' && !t.subresource && t.code === 201 && t.receivedAt >= since);
  const chain = [];
  const admission = [];
  const perStage = new Map();
  let policyRan = 0;
  for (const t of creates) {
    let sum = 0;
    let adm = 0;
    for (const s of t.stages) {
      if (!CHAIN_STAGE.test(s.stage)) continue;
      sum += s.latencyMs;
      if (s.stage.startsWith('admission:')) adm += s.latencyMs;
      if (s.stage === 'admission:validating:ValidatingAdmissionPolicy' && s.verdict !== 'skip') policyRan++;
      const list = perStage.get(s.stage) ?? [];
      list.push(s.latencyMs);
      perStage.set(s.stage, list);
    }
    chain.push(sum);
    admission.push(adm);
  }
  chain.sort((a, b) => a - b);
  admission.sort((a, b) => a - b);
  const stages = [...perStage.entries()]
    .map(([stage, l]) => {
      l.sort((a, b) => a - b);
      return { stage, p50Ms: percentile(l, 50), p99Ms: percentile(l, 99) };
    })
    .sort((a, b) => b.p99Ms - a.p99Ms);
  return {
    creates: creates.length,
    policyRan,
    chainP50Ms: percentile(chain, 50),
    chainP99Ms: percentile(chain, 99),
    admissionP50Ms: percentile(admission, 50),
    admissionP99Ms: percentile(admission, 99),
    stages,
  };
}
