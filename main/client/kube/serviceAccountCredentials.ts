// kube-controller-manager's --use-service-account-credentials: every
// controller talks to the API server as its own service account in
// kube-system (system:serviceaccount:kube-system:deployment-controller, ...),
// bound by the API server's bootstrap policy to exactly the rights that
// controller needs (system:controller:<name>). The manager's own identity
// (system:kube-controller-manager) may only create those service accounts,
// request their tokens and list/watch everything for the shared informers —
// which is all it is used for here.
//
// Tokens come from the TokenRequest API (serviceaccounts/NAME/token) and are
// renewed at 80% of their lifetime, as client-go's dynamic client builder does.

import { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from './clock';
import { newEventRecorder } from './eventRecorder';
import type { ControllerContext } from './context';
import { ApiError, clientsFromKubeConfig, isAlreadyExists, isNotFound, type KubeClients } from './rest';

export const CONTROLLER_NAMESPACE = 'kube-system';
export const TOKEN_EXPIRATION_SECONDS = 3600;
const RETRY_MS = 10_000;

/** The service account each controller runs as (kube's names). */
export const CONTROLLER_SERVICE_ACCOUNTS: Record<string, string> = {
  deployment: 'deployment-controller',
  replicaset: 'replicaset-controller',
  garbagecollector: 'generic-garbage-collector',
  namespace: 'namespace-controller',
  serviceaccount: 'service-account-controller',
  endpoints: 'endpoint-controller',
  nodelifecycle: 'node-controller',
  resourcequota: 'resourcequota-controller',
  clusterroleaggregation: 'clusterrole-aggregation-controller',
  rootcacertpublisher: 'root-ca-cert-publisher',
  'storage-version-migrator-controller': 'storage-version-migrator-controller',
};

export function serviceAccountFor(controller: string): string {
  return CONTROLLER_SERVICE_ACCOUNTS[controller] ?? `${controller}-controller`;
}

interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

/** Creates the service account when missing (AlreadyExists is fine: another manager instance made it). */
async function ensureServiceAccount(root: KubeClients, name: string): Promise<void> {
  const path = `/api/v1/namespaces/${CONTROLLER_NAMESPACE}/serviceaccounts/${name}`;
  try {
    await root.rest.get(path);
    return;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  try {
    await root.rest.create(`/api/v1/namespaces/${CONTROLLER_NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: CONTROLLER_NAMESPACE } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

async function requestToken(root: KubeClients, name: string): Promise<{ token: string; expiresAt: number }> {
  const res = await root.rest.create<TokenRequestStatus>(`/api/v1/namespaces/${CONTROLLER_NAMESPACE}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: TOKEN_EXPIRATION_SECONDS },
  });
  const token = res.status?.token;
  if (!token) throw new ApiError(500, { message: `TokenRequest for ${CONTROLLER_NAMESPACE}/${name} returned no token` });
  const expiresAt = res.status?.expirationTimestamp ? Date.parse(res.status.expirationTimestamp) : Date.now() + TOKEN_EXPIRATION_SECONDS * 1000;
  return { token, expiresAt };
}

/**
 * Clients that act as system:serviceaccount:kube-system:<name>, with the
 * root clients' server and CA; the token is renewed until signal aborts.
 */
export async function serviceAccountClients(
  root: KubeClients,
  name: string,
  opts: { userAgent: string; clock: Clock; signal: AbortSignal; log(message: string): void },
): Promise<KubeClients> {
  await ensureServiceAccount(root, name);
  let { token, expiresAt } = await requestToken(root, name);
  const cluster = root.kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the controller manager kubeconfig has no current cluster');
  const user = { name: `system:serviceaccount:${CONTROLLER_NAMESPACE}:${name}`, token };
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [cluster], users: [user], contexts: [{ name, cluster: cluster.name, user: user.name }], currentContext: name });
  const clients = await clientsFromKubeConfig(kc, opts.userAgent);

  let cancel = (): void => {};
  const schedule = (ms: number): void => {
    cancel = opts.clock.after(ms, () => void renew());
  };
  const renew = async (): Promise<void> => {
    if (opts.signal.aborted) return;
    try {
      ({ token, expiresAt } = await requestToken(root, name));
      clients.rest.setBearerToken(token);
      // client-node's typed APIs read the user's token on every request.
      (kc.getCurrentUser() as { token?: string }).token = token;
      schedule(Math.max(1000, (expiresAt - opts.clock.now()) * 0.8));
    } catch (e) {
      opts.log(`token for ${CONTROLLER_NAMESPACE}/${name}: ${(e as Error).message}; retrying in ${RETRY_MS / 1000}s`);
      schedule(RETRY_MS);
    }
  };
  schedule(Math.max(1000, (expiresAt - opts.clock.now()) * 0.8));
  opts.signal.addEventListener('abort', () => cancel(), { once: true });
  return clients;
}

/**
 * The context a controller runs in: ctx itself, or — with
 * useServiceAccountCredentials — ctx with the clients and event recorder of
 * the controller's own service account (the shared informers stay the
 * manager's: list and watch are all they do).
 */
export async function controllerContext(ctx: ControllerContext, controller: string): Promise<ControllerContext> {
  if (!ctx.options.useServiceAccountCredentials) return ctx;
  const sa = serviceAccountFor(controller);
  const clients = await serviceAccountClients(ctx.clients, sa, { userAgent: `kube-controller-manager/${sa}`, clock: ctx.clock, signal: ctx.signal, log: ctx.log });
  ctx.signal.addEventListener('abort', () => clients.rest.close(), { once: true });
  return {
    ...ctx,
    clients,
    recorder: (component, host) => newEventRecorder(clients.rest, { component, host, clock: ctx.clock, onError: (e) => ctx.log(`event: ${(e as Error).message}`) }),
  };
}
