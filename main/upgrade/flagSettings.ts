// `--set COMPONENT.FLAG=VALUE`: a flag change an upgrade applies to every
// instance of a component (all members for etcd), checked against the flags
// the target build's component takes. Flags that the plane's layout owns
// (names, addresses, directories, certificates) are not an upgrade's to change.

import type { ComponentKind } from './build';

export interface FlagSetting {
  kind: ComponentKind;
  flag: string;
  value: string;
}

const LAYOUT_FLAGS: Record<ComponentKind, readonly string[]> = {
  etcd: [
    'name', 'data-dir', 'listen-client-urls', 'advertise-client-urls', 'listen-peer-urls', 'initial-advertise-peer-urls', 'initial-cluster',
    'initial-cluster-state', 'initial-cluster-token', 'cert-file', 'key-file', 'trusted-ca-file', 'peer-cert-file', 'peer-key-file', 'peer-trusted-ca-file',
  ],
  apiserver: ['etcd-servers', 'etcd-cafile', 'etcd-certfile', 'etcd-keyfile', 'bind-address', 'secure-port', 'tls-cert-file', 'tls-private-key-file', 'client-ca-file'],
  controllers: ['data-dir', 'kubeconfig'],
};

/** Parses "etcd.quota-backend-bytes=8589934592"; throws with the reason. */
export function parseSetting(text: string): FlagSetting {
  const m = /^(etcd|apiserver|controllers)\.([a-z0-9][a-z0-9-]*)=(.*)$/s.exec(text);
  if (!m) throw new Error(`--set ${text}: want COMPONENT.FLAG=VALUE with COMPONENT etcd, apiserver or controllers (e.g. etcd.quota-backend-bytes=8589934592)`);
  const [, kind, flag, value] = m as unknown as [string, ComponentKind, string, string];
  if (LAYOUT_FLAGS[kind].includes(flag)) throw new Error(`--set ${text}: the plane's layout sets --${flag}; an upgrade does not change it`);
  return { kind, flag, value };
}

/** Throws unless the component of the build takes each setting's flag. */
export function checkSettingsKnown(settings: FlagSetting[], known: Map<ComponentKind, Set<string>>): void {
  for (const s of settings) {
    if (!known.get(s.kind)?.has(s.flag)) throw new Error(`--set ${s.kind}.${s.flag}=${s.value}: the target's ${s.kind} has no flag --${s.flag}`);
  }
}

/** The flags with each setting applied: a flag already given is replaced in place (in its form), a new one appended as --flag=value. */
export function withSettings(flags: readonly string[], settings: readonly FlagSetting[]): string[] {
  const out = [...flags];
  for (const s of settings) {
    const at = out.findIndex((f) => f === `--${s.flag}` || f.startsWith(`--${s.flag}=`));
    if (at < 0) out.push(`--${s.flag}=${s.value}`);
    else if (out[at] === `--${s.flag}`) {
      // "--flag value", or a boolean "--flag" followed by another flag
      if (at + 1 < out.length && !out[at + 1]!.startsWith('--')) out[at + 1] = s.value;
      else out[at] = `--${s.flag}=${s.value}`;
    } else out[at] = `--${s.flag}=${s.value}`;
  }
  return out;
}

/** What a setting changes on one component: the flag and its value before (undefined: unset) and after. */
export function settingChanges(flags: readonly string[], settings: readonly FlagSetting[], kind: ComponentKind): { flag: string; from?: string; to: string }[] {
  return settings
    .filter((s) => s.kind === kind)
    .map((s) => {
      const at = flags.findIndex((f) => f === `--${s.flag}` || f.startsWith(`--${s.flag}=`));
      const f = at < 0 ? undefined : flags[at]!;
      const next = flags[at + 1];
      // "--flag=value", "--flag value", or a boolean "--flag" (true) followed by another flag or nothing
      const from = f === undefined ? undefined : f.includes('=') ? f.slice(f.indexOf('=') + 1) : next !== undefined && !next.startsWith('--') ? next : 'true';
      return { flag: s.flag, ...(from !== undefined && { from }), to: s.value };
    });
}
