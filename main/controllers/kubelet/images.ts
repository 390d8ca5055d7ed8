// Image names as containerd reports them. A simulated node has no registry,
// so digests and sizes are derived from the name: the same image gives the
// same imageID and size on every node and every run.

import { createHash } from 'node:crypto';

/** "nginx" → "docker.io/library/nginx:latest" (the reference containerd reports in status.image). */
export function normalizeImage(image: string): string {
  let name = image;
  let suffix = '';
  const at = name.indexOf('@');
  if (at >= 0) {
    suffix = name.slice(at);
    name = name.slice(0, at);
  }
  const slash = name.indexOf('/');
  const first = slash >= 0 ? name.slice(0, slash) : '';
  const hasRegistry = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasRegistry) name = `docker.io/${slash >= 0 ? name : `library/${name}`}`;
  const lastPart = name.slice(name.lastIndexOf('/') + 1);
  if (!suffix && !lastPart.includes(':')) name += ':latest';
  return name + suffix;
}

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** "docker.io/library/nginx@sha256:…" as status.containerStatuses[].imageID. */
export function imageId(image: string): string {
  const ref = normalizeImage(image);
  if (ref.includes('@')) return ref;
  return `${ref.slice(0, ref.lastIndexOf(':'))}@sha256:${digestOf(ref)}`;
}

/** A plausible image size in bytes (20–120 MB), stable per image. */
export function imageSize(image: string): number {
  return 20_000_000 + (Number.parseInt(digestOf(`size:${normalizeImage(image)}`).slice(0, 8), 16) % 100_000_000);
}

/** "containerd://<64 hex>", unique per pod, container and start. */
export function containerId(podUid: string, container: string, restart = 0): string {
  return `containerd://${digestOf(`${podUid}/${container}/${restart}`)}`;
}

/** The pull policy the API server defaults (":latest" or no tag → Always). */
export function effectivePullPolicy(image: string, policy: string | undefined): string {
  if (policy) return policy;
  const ref = normalizeImage(image);
  return ref.includes('@') || !ref.endsWith(':latest') ? 'IfNotPresent' : 'Always';
}
