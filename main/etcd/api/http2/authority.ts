// Which :authority values nghttp2 (Node's HTTP/2) accepts, and how to turn one
// it would refuse into the host:port that was meant. grpc-go sends the dial
// target verbatim, so etcd clientv3's "passthrough:///http://127.0.0.1:2379"
// arrives as ":authority: http://127.0.0.1:2379", which Go's server takes and
// nghttp2 answers with RST_STREAM PROTOCOL_ERROR.

/**
 * nghttp2_http.c VALID_AUTHORITY_CHARS: RFC 3986 unreserved, sub-delims, ':',
 * '%', '[' and ']'. Recent nghttp2 also refuses '@' (userinfo), so it is left
 * out here too.
 */
const VALID = (() => {
  const t = new Uint8Array(256);
  for (const c of "!$%&'()*+,-.:;=[]_~") t[c.charCodeAt(0)] = 1;
  for (let c = 0x30; c <= 0x39; c++) t[c] = 1;
  for (let c = 0x41; c <= 0x5a; c++) t[c] = 1;
  for (let c = 0x61; c <= 0x7a; c++) t[c] = 1;
  return t;
})();

/** True when nghttp2 takes `value` (latin1 octets) as an :authority. */
export function isAcceptedAuthority(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (VALID[value.charCodeAt(i)] !== 1) return false;
  }
  return true;
}

/**
 * The host:port part of an authority nghttp2 refuses: drops a "scheme://"
 * prefix, then everything from the first '/', '?' or '#', then any
 * "userinfo@". Octets still refused after that are percent-encoded, so the
 * result is always accepted. Accepted values come back unchanged.
 */
export function repairAuthority(value: string): string {
  if (isAcceptedAuthority(value)) return value;
  let v = value;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(v);
  if (scheme) v = v.slice(scheme[0].length);
  const end = v.search(/[/?#]/);
  if (end >= 0) v = v.slice(0, end);
  const at = v.lastIndexOf('@');
  if (at >= 0) v = v.slice(at + 1);
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    out += VALID[c] === 1 ? v[i] : `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
