// kube's RequestInfo: what a request asks for, parsed from its method, path
// and query alone (k8s.io/apiserver pkg/endpoints/request/requestinfo.go).
// Resource requests live under /api/<version> (the core group) and
// /apis/<group>/<version>; everything else is a non-resource request whose
// verb is the lower-cased method. The verb mapping is kube's:
//   GET/HEAD item → get, GET collection → list (watch with ?watch=true or the
//   legacy /watch/ path prefix), POST → create, PUT → update, PATCH → patch,
//   DELETE item → delete, DELETE collection → deletecollection.
// A list/watch whose fieldSelector pins metadata.name=<n> names that object
// (as kube does, so authorization by resourceNames works for it).

import { parseRequestTarget, type RequestTarget } from './requestTarget';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string; // 'api' | 'apis' | ''
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The path segments after the api prefix/group/version. */
  parts: string[];
}

const METHOD_VERBS: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
/** Namespace subresources: /api/v1/namespaces/<ns>/status is the namespace's status, not a resource named "status". */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * rawUrl: the request target, or the target the handler chain already parsed
 * from it (parsing is not free). Its path is decoded once and split on '/'
 * (Go's URL.Path, as kube splits it: `a%2Fb` is two segments).
 */
export function parseRequestInfo(method: string, rawUrl: string | RequestTarget): RequestInfo {
  const url = typeof rawUrl === 'string' ? (parseRequestTarget(rawUrl) ?? { pathname: rawUrl, searchParams: new URLSearchParams() }) : rawUrl;
  const path = url.pathname;
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  let parts = splitPath(path);
  if (parts.length < 1 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  info.apiPrefix = parts[0]!;
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 1) return info; // /apis
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  if (parts.length < 1) return info; // /api, /apis/<group>
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  if (parts.length < 1) return info; // discovery of a group version
  info.isResourceRequest = true;
  info.verb = METHOD_VERBS[method.toUpperCase()] ?? '';

  if (parts[0] === 'watch' && (info.verb === 'get' || info.verb === '')) {
    info.verb = 'watch';
    parts = parts.slice(1);
  } else if (parts[0] === 'watch') {
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  info.parts = parts;
  info.resource = parts[0] ?? '';
  info.name = parts[1] ?? '';
  info.subresource = parts[2] ?? '';

  const query = url.searchParams;
  if (info.name === '' && info.verb === 'get') {
    info.verb = truthy(query.get('watch')) ? 'watch' : 'list';
  }
  if ((info.verb === 'list' || info.verb === 'watch') && info.name === '') {
    const pinned = exactNameFromFieldSelector(query.get('fieldSelector') ?? '');
    if (pinned !== undefined && validPathSegment(pinned)) info.name = pinned;
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** kube's query booleans: "true", "1" and so on (strconv.ParseBool). */
export function truthy(v: string | null): boolean {
  return v !== null && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v);
}

/** The name a field selector requires exactly (metadata.name=x or ==x), when it has no other terms. */
export function exactNameFromFieldSelector(selector: string): string | undefined {
  if (selector.trim() === '') return undefined;
  const terms = selector.split(',');
  for (const t of terms) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(t);
    if (m) return m[1];
  }
  return undefined;
}

function validPathSegment(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}
