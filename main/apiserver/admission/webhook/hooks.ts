// The webhooks the admission plugins call, as kube's configuration managers
// hand them to the dispatchers (configuration/mutating_webhook_manager.go):
// every webhook of every configuration, configurations sorted by name,
// webhooks in their listed order, each with its selectors parsed once.
// The list is rebuilt only when the configurations' list resourceVersion
// moves, so a request with no configuration change pays one cached LIST.

import type { KObject } from '../../../kube/object';
import { labelSelectorAsSelector, nothing, type LabelSelector, type MetaLabelSelector } from '../../api/labelSelector';
import type { Storage } from '../../storage/interface';
import { type Rec, arr, isRec, num, recOpt, str } from '../../registry/common/obj';

export type WebhookKind = 'mutating' | 'validating';

export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

export interface ClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port: number };
  /** PEM bytes (decoded from the base64 caBundle); undefined = system roots. */
  caBundle?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

/** One webhook of one configuration, ready to match and call. */
export interface Webhook {
  /** configuration/name/index: unique across configurations (kube's accessor UID). */
  uid: string;
  name: string;
  configurationName: string;
  kind: WebhookKind;
  rules: WebhookRule[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: 'Exact' | 'Equivalent';
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  /** A selector that could not be parsed (kube answers 500 for a matching request). */
  selectorError?: string;
  sideEffects?: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
  clientConfig: ClientConfig;
  matchConditions: MatchCondition[];
}

function parseSelector(sel: unknown): { selector: LabelSelector; error?: string } {
  try {
    return { selector: labelSelectorAsSelector((isRec(sel) ? sel : {}) as MetaLabelSelector) };
  } catch (err) {
    return { selector: nothing(), error: err instanceof Error ? err.message : String(err) };
  }
}

const strings = (o: Rec, k: string): string[] => (Array.isArray(o[k]) ? (o[k] as unknown[]).map(String) : []);

/** One configuration's webhooks, with v1 defaults for anything left unset. */
export function webhooksOf(config: KObject, kind: WebhookKind): Webhook[] {
  const configurationName = config.metadata.name ?? '';
  return arr(config as Rec, 'webhooks').map((h, i) => {
    const ns = parseSelector(h.namespaceSelector);
    const os = parseSelector(h.objectSelector);
    const cc = recOpt(h, 'clientConfig') ?? {};
    const svc = recOpt(cc, 'service');
    const caBundle = typeof cc.caBundle === 'string' && cc.caBundle ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : undefined;
    return {
      uid: `${configurationName}/${str(h, 'name')}/${i}`,
      name: str(h, 'name'),
      configurationName,
      kind,
      rules: arr(h, 'rules').map((r) => ({
        operations: strings(r, 'operations'),
        apiGroups: strings(r, 'apiGroups'),
        apiVersions: strings(r, 'apiVersions'),
        resources: strings(r, 'resources'),
        scope: str(r, 'scope') || '*',
      })),
      failurePolicy: h.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
      matchPolicy: h.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
      namespaceSelector: ns.selector,
      objectSelector: os.selector,
      selectorError: ns.error ?? os.error,
      sideEffects: typeof h.sideEffects === 'string' ? h.sideEffects : undefined,
      timeoutSeconds: num(h, 'timeoutSeconds') ?? 10,
      admissionReviewVersions: strings(h, 'admissionReviewVersions'),
      reinvocationPolicy: h.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
      clientConfig: {
        url: typeof cc.url === 'string' ? cc.url : undefined,
        service: svc ? { namespace: str(svc, 'namespace'), name: str(svc, 'name'), path: typeof svc.path === 'string' ? svc.path : undefined, port: num(svc, 'port') ?? 443 } : undefined,
        caBundle,
      },
      matchConditions: arr(h, 'matchConditions').map((c) => ({ name: str(c, 'name'), expression: str(c, 'expression') })),
    };
  });
}

/** All webhooks of a list of configurations, configurations by name (kube sorts them so the call order is stable). */
export function webhooksFrom(configs: KObject[], kind: WebhookKind): Webhook[] {
  const sorted = [...configs].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
  return sorted.flatMap((c) => webhooksOf(c, kind));
}

/** Reads the configurations from a storage (the watch cache) and keeps the parsed webhooks until they change. */
export class WebhookSource {
  private cachedRv = '';
  private cached: Webhook[] = [];

  constructor(
    private readonly storage: () => Storage,
    private readonly prefix: string,
    private readonly kind: WebhookKind,
  ) {}

  async webhooks(): Promise<Webhook[]> {
    const list = await this.storage().getList(this.prefix, { resourceVersion: '0', shareItems: true });
    if (list.resourceVersion !== this.cachedRv || this.cachedRv === '') {
      this.cached = webhooksFrom(list.items, this.kind);
      this.cachedRv = list.resourceVersion;
    }
    return this.cached;
  }
}
