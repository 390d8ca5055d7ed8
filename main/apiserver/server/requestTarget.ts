// The request target as Go's net/http reads it (url.ParseRequestURI), which
// is what kube-apiserver routes on: origin form (`/api/v1/pods?limit=1`),
// absolute form (`https://host:6443/api/v1/pods`) or `*`. The path is
// percent-decoded once, as Go's URL.Path (`%2F` becomes a separator, so
// requestInfo splits it as kube does), and never cleaned — `..` segments
// stay as sent (WHATWG URL parsing would resolve them, and `%2e%2e` too,
// turning /api/v1/namespaces/%2e%2e/pods into a cluster-wide list).
// A target Go refuses (no leading slash, a bad escape, an unparsable
// authority such as `http://[`) is undefined: net/http answers those itself
// with a plain 400 before any handler runs (see connectionErrors.ts).

export interface RequestTarget {
  /** The decoded path (Go's URL.Path). */
  pathname: string;
  /** The query (Go's URL.Query(): `+` is a space, bad escapes are dropped). */
  searchParams: URLSearchParams;
}

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;

export function parseRequestTarget(raw: string): RequestTarget | undefined {
  if (raw === '*') return { pathname: '*', searchParams: new URLSearchParams() };
  let rest = raw;
  if (!raw.startsWith('/')) {
    const scheme = SCHEME.exec(raw);
    if (!scheme) return undefined;
    rest = raw.slice(scheme[0].length);
    if (!rest.startsWith('//')) return undefined; // opaque ("mailto:x"): invalid URI for request
    // The authority must parse (port, IPv6 brackets, escapes); Go checks it the same way.
    try {
      new URL(raw);
    } catch {
      return undefined;
    }
    const end = rest.slice(2).search(/[/?]/);
    rest = end < 0 ? '' : rest.slice(2 + end);
  }
  const q = rest.indexOf('?');
  const rawPath = q < 0 ? rest : rest.slice(0, q);
  const rawQuery = q < 0 ? '' : rest.slice(q + 1);
  let pathname = rawPath;
  if (rawPath.includes('%')) {
    if (BAD_ESCAPE.test(rawPath)) return undefined;
    pathname = percentDecode(rawPath);
  }
  return { pathname, searchParams: new URLSearchParams(rawQuery) };
}

/** %XX → byte, the bytes read as UTF-8 (escapes were checked to be well-formed). */
function percentDecode(s: string): string {
  const src = Buffer.from(s, 'utf8');
  const out = Buffer.allocUnsafe(src.length);
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    if (src[i] === 0x25) {
      out[n++] = parseInt(src.toString('latin1', i + 1, i + 3), 16);
      i += 2;
    } else out[n++] = src[i]!;
  }
  return out.toString('utf8', 0, n);
}
