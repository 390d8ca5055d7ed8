// The controllers' connection to the API server: a kubeconfig (one identity
// per component), client-node's typed APIs for those who like them, and the
// JSON REST client (restClient.ts) for everything generic.

import { AppsV1Api, CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { RestClient } from './restClient';

export * from './restClient';

/** Everything a component needs to talk to the API server as one identity. */
export interface KubeClients {
  kubeConfig: KubeConfig;
  rest: RestClient;
  core: CoreV1Api;
  apps: AppsV1Api;
  coordination: CoordinationV1Api;
}

export async function clientsFromKubeConfig(kc: KubeConfig, userAgent: string): Promise<KubeClients> {
  return {
    kubeConfig: kc,
    rest: await RestClient.fromKubeConfig(kc, userAgent),
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    coordination: kc.makeApiClient(CoordinationV1Api),
  };
}

/** The kubeconfig at path, its current-context current. */
export function kubeConfigFromFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

export async function clientsFromFile(path: string, userAgent: string): Promise<KubeClients> {
  return clientsFromKubeConfig(kubeConfigFromFile(path), userAgent);
}
