// A real control plane for the controller manager's tests: 3 Pilothouse etcd
// members + `pilothouse apiserver` (startTestApiServer), with the controller
// manager, the scheduler and the simulated kubelets running in this process
// on their own informer factories, as `pilothouse controllers` runs them
// (without leader election). stop() aborts them all.

import { clientsFromFile, DEFAULT_CONTROLLER_OPTIONS, newEventRecorder, realClock, SharedInformerFactory, type ControllerContext, type KubeClients } from '../../../main/client/kube';
import { startControllerManager } from '../../../main/controllers/manager';
import { startScheduler } from '../../../main/controllers/scheduler';
import { startKubelets } from '../../../main/controllers/kubelet';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

export interface ManagerControlPlane {
  api: TestApiServer;
  clients: KubeClients;
  logs: string[];
  kubectl(...args: string[]): Promise<string>;
  /** kubectl -o json, parsed. */
  getJson<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  stop(): Promise<void>;
}

export async function startManagerControlPlane(portBase: number): Promise<ManagerControlPlane> {
  const api = await startApiServerRetrying(portBase);
  const clients = await clientsFromFile(api.layout.kubeconfig, 'pilothouse-test');
  const ac = new AbortController();
  const logs: string[] = [];
  const factories: SharedInformerFactory[] = [];
  const context = (component: string): ControllerContext => {
    const informers = new SharedInformerFactory(clients.rest, { resyncMs: 30_000 });
    informers.start(ac.signal);
    factories.push(informers);
    return {
      component,
      clients,
      informers,
      recorder: (c, host) => newEventRecorder(clients.rest, { component: c, host }),
      nodeClients: async () => clients,
      clock: realClock,
      options: { ...DEFAULT_CONTROLLER_OPTIONS, podStartDelayMs: 50, podStartJitterMs: 20 },
      signal: ac.signal,
      log: (m) => logs.push(`${component}: ${m}`),
    };
  };
  await startControllerManager(context('kube-controller-manager'));
  await startScheduler(context('kube-scheduler'));
  await startKubelets(context('kubelet'));

  const kubectl = async (...args: string[]): Promise<string> => {
    const r = await api.kubectl(args, { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  return {
    api,
    clients,
    logs,
    kubectl,
    getJson: async <T>(...args: string[]) => JSON.parse(await kubectl(...args, '-o', 'json')) as T,
    async stop() {
      ac.abort();
      await Promise.all(factories.map((f) => f.stopped()));
      clients.rest.close();
    },
  };
}

/**
 * The harness waits 30 s for etcd; on a machine shared by many test runs that
 * is sometimes not enough, so one more try (after reaping the first) before giving up.
 */
async function startApiServerRetrying(portBase: number): Promise<TestApiServer> {
  try {
    return await startTestApiServer(portBase);
  } catch {
    await reapApiServers();
    return startTestApiServer(portBase);
  }
}

