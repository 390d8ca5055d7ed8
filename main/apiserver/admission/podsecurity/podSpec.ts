// The parts of a pod (v1 JSON) the Pod Security checks read, and the small
// helpers every check shares to word its findings the way kube does:
// `container "a"` / `containers "a", "b"`, sorted unique value lists, Go's
// %q quoting. Objects arrive as decoded JSON, so every field may be absent
// (or null); the checks treat null like unset, as Go's nil pointers.

export interface SELinuxOptions {
  user?: string;
  role?: string;
  type?: string;
  level?: string;
}

export interface ProfileRef {
  type?: string;
  localhostProfile?: string;
}

export interface ContainerSecurityContext {
  privileged?: boolean | null;
  allowPrivilegeEscalation?: boolean | null;
  capabilities?: { add?: string[] | null; drop?: string[] | null } | null;
  runAsNonRoot?: boolean | null;
  runAsUser?: number | null;
  seLinuxOptions?: SELinuxOptions | null;
  seccompProfile?: ProfileRef | null;
  appArmorProfile?: ProfileRef | null;
  procMount?: string | null;
  windowsOptions?: { hostProcess?: boolean | null } | null;
}

export interface PodSecurityContext {
  runAsNonRoot?: boolean | null;
  runAsUser?: number | null;
  seLinuxOptions?: SELinuxOptions | null;
  seccompProfile?: ProfileRef | null;
  appArmorProfile?: ProfileRef | null;
  sysctls?: { name: string; value?: string }[] | null;
  windowsOptions?: { hostProcess?: boolean | null } | null;
}

export interface Container {
  name: string;
  image?: string;
  ports?: { containerPort?: number; hostPort?: number | null }[] | null;
  securityContext?: ContainerSecurityContext | null;
}

export type Volume = { name: string } & Record<string, unknown>;

export interface PodSpec {
  containers?: Container[] | null;
  initContainers?: Container[] | null;
  ephemeralContainers?: Container[] | null;
  volumes?: Volume[] | null;
  hostNetwork?: boolean | null;
  hostPID?: boolean | null;
  hostIPC?: boolean | null;
  securityContext?: PodSecurityContext | null;
  runtimeClassName?: string | null;
  os?: { name?: string } | null;
}

export interface PodMetadata {
  name?: string;
  annotations?: Record<string, string> | null;
  ownerReferences?: { uid?: string; controller?: boolean }[] | null;
}

/** Every container in kube's visiting order: init containers, containers, ephemeral containers. */
export function allContainers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

export function isWindowsPod(spec: PodSpec): boolean {
  return spec.os?.name === 'windows';
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `"a", "b"` — items quoted verbatim (kube's joinQuote, no escaping). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

/** `container "a"` / `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** sets.NewString(...).List(): unique, in byte order. */
export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(byteOrder);
}

/** Go's sort.Strings order (UTF-16 code units equal bytes for the ASCII these hold). */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Go's %q for a string (strconv.Quote): printable characters kept, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
