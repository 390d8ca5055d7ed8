// What Go's net/http answers by itself, before kube-apiserver's handler
// chain sees a request (net/http server.go, conn.serve): a request it cannot
// parse gets a plain-text answer written straight to the connection, which
// is then closed —
//   431 Request Header Fields Too Large   head beyond MaxHeaderBytes
//   501 Not Implemented                   a transfer coding it does not know
//   505 HTTP Version Not Supported        a request line naming HTTP/2.0 or later
//   400 Bad Request                       anything else (request line, target, headers, lengths)
//   400 Bad Request: <why>                HTTP/1.1 without exactly one Host header
// and a connection that times out or fails while reading is closed without
// a word. Node's HTTP parser reports the same cases as 'clientError'.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const ERROR_HEADERS = '\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';

export const GO_BAD_REQUEST = `HTTP/1.1 400 Bad Request${ERROR_HEADERS}400 Bad Request`;
export const GO_HEADERS_TOO_LARGE = `HTTP/1.1 431 Request Header Fields Too Large${ERROR_HEADERS}431 Request Header Fields Too Large`;
export const GO_VERSION_NOT_SUPPORTED = `HTTP/1.1 505 HTTP Version Not Supported${ERROR_HEADERS}505 HTTP Version Not Supported`;
export const GO_UNSUPPORTED_TE = `HTTP/1.1 501 Not Implemented${ERROR_HEADERS}Unsupported transfer encoding`;

/** Go's badRequestError: the reason goes into the status line and the body. */
export function goBadRequest(why: string): string {
  return `HTTP/1.1 400 Bad Request: ${why}${ERROR_HEADERS}400 Bad Request: ${why}`;
}

/**
 * The answer Go gives a request Node's parser accepted but net/http does not:
 * a major version other than 1, or HTTP/1.1 without exactly one Host header.
 */
export function refusedRequest(req: IncomingMessage): string | undefined {
  // Node reports a request line without a version as HTTP/0.9; net/http cannot parse that line at all.
  if (req.httpVersionMajor === 0) return GO_BAD_REQUEST;
  if (req.httpVersionMajor !== 1) return GO_VERSION_NOT_SUPPORTED;
  if (req.httpVersionMinor < 1 || req.method === 'CONNECT') return undefined;
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts === 0) return goBadRequest('missing required Host header');
  if (hosts > 1) return goBadRequest('too many Host headers');
  return undefined;
}

/** Writes one of the answers above (when nothing was answered on the connection yet) and closes it. */
export function refuseConnection(socket: Duplex, answer: string | undefined): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (answer !== undefined && socket.writable && !inFlight?.headersSent) {
    socket.end(answer);
    // A client that never reads must not keep the socket open either.
    socket.once('finish', () => socket.destroy());
    return;
  }
  socket.destroy();
}

/** The answer Go gives for a parse failure Node's parser reports (undefined: close silently). */
export function answerForClientError(err: Error & { code?: string; rawPacket?: Buffer }): string | undefined {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return GO_HEADERS_TOO_LARGE;
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return GO_UNSUPPORTED_TE;
    case 'HPE_INVALID_VERSION':
      // Node knows only HTTP/0.9 to 1.1 (and 2.0); net/http parses any HTTP/d.d and refuses versions it does not serve.
      return /^[^ ]+ [^ ]+ HTTP\/\d\.\d\r?\n/.test(err.rawPacket?.toString('latin1') ?? '') ? GO_VERSION_NOT_SUPPORTED : GO_BAD_REQUEST;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ETIMEDOUT':
      return undefined;
    default:
      return GO_BAD_REQUEST;
  }
}

/** The server's 'clientError' listener. */
export function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  refuseConnection(socket, answerForClientError(err));
}
