// Reading and decoding request bodies as kube's REST handlers do: the body is
// limited to 3 MiB (kube's default max request body; 413 beyond), the Content-Type picks
// the decoder (JSON, YAML, or protobuf — kubectl's typed clients such as
// `kubectl create deployment` send `k8s\0` + runtime.Unknown bodies;
// anything else is 415), and a body that does
// not parse is a 400 whose text follows kube's: `the object provided is
// unrecognized (must be of type Deployment): couldn't get version/kind; json
// parse error: invalid character ...` with Go's json wording and a 30-byte
// summary of the data.

import type { RequestContext } from '../server/context';
import { parse as parseYaml } from 'yaml';
import { badRequest, failure, unsupportedMediaType } from '../api/status';
import { parseMediaType } from '../server/mediaType';
import { decodeStored, PROTOBUF_MEDIA_TYPE } from '../../kube/codec';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;
export const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE];

/**
 * The request body, at most `limit` bytes (413 beyond), each chunk also handed
 * to ctx.bodyTap. Read with 'data' events rather than the stream's async
 * iterator: a create's body is one or two chunks, and the iterator's promise
 * machinery cost more than the reading.
 */
export function readBody(ctx: Pick<RequestContext, 'req' | 'bodyTap'> & { res?: RequestContext['res'] }, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const { req, bodyTap } = ctx;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: unknown): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      ctx.res?.off('close', onClose);
      if (err !== undefined) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        // kube's limitedReadBody: the rest is not read, the client gets the
        // 413, and the connection closes after it (Go's server does not drain
        // a large unread body either).
        req.pause();
        ctx.res?.setHeader('Connection', 'close');
        done(failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`));
        return;
      }
      chunks.push(chunk);
      bodyTap?.(chunk);
    };
    const onEnd = (): void => done();
    const onError = (err: Error): void => done(err);
    // A request closed before its end (the client went away) would otherwise never settle.
    const onClose = (): void => done(new Error('request body: the connection closed before the body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    // Answered before the body ended (the request timed out): node:http then
    // no longer aborts the request when the connection closes, so the
    // response's end is what ends the wait.
    ctx.res?.on('close', onClose);
  });
}

/**
 * The media type of a body, or a 415 listing what is accepted. A body without
 * a Content-Type is read as the first accepted type, JSON, as kube's
 * NegotiateInputSerializer does (`kubectl scale --current-replicas` PUTs its
 * Scale that way).
 */
export function bodyFormat(contentType: string | undefined, accepted: string[] = BODY_MEDIA_TYPES): string {
  if (contentType === undefined || contentType === '') return accepted[0]!;
  const mt = parseMediaType(contentType);
  const full = mt ? `${mt.type}/${mt.subtype}` : '';
  if (!accepted.includes(full)) throw unsupportedMediaType(accepted);
  return full;
}

/** Parses a JSON or YAML body into a plain value; syntax errors carry kube's wording (without the type prefix). */
export function parseBody(data: Buffer, mediaType: string): unknown {
  if (mediaType === PROTOBUF_MEDIA_TYPE) {
    // kube's protobuf serializer checks the magic prefix before anything else.
    if (data.length === 0) throw new BodyParseError('empty data');
    if (data.length < 4 || data.readUInt32BE(0) !== 0x6b387300) throw new BodyParseError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    try {
      return decodeStored(data);
    } catch (err) {
      throw new BodyParseError((err as Error).message);
    }
  }
  const text = data.toString('utf8');
  if (mediaType === 'application/yaml' || mediaType.endsWith('+yaml')) {
    try {
      const v = parseYaml(text, { prettyErrors: false, uniqueKeys: false });
      return v === null ? {} : v;
    } catch (err) {
      const e = err as { linePos?: { line: number }[]; message: string };
      const line = e.linePos?.[0]?.line;
      const msg = e.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '');
      // The yaml library's alias-count guard stands for go-yaml's alias-ratio guard, worded as go-yaml words it.
      if (/Excessive alias count/.test(msg)) throw new BodyParseError('error converting YAML to JSON: yaml: document contains excessive aliasing');
      throw new BodyParseError(`error converting YAML to JSON: yaml: ${line !== undefined ? `line ${line}: ` : ''}${msg}`);
    }
  }
  if (text.trim() === '') throw new BodyParseError('couldn\'t get version/kind; json parse error: unexpected end of JSON input');
  const tooDeep = text.length > MAX_JSON_DEPTH ? beyondMaxDepth(text) : undefined;
  if (tooDeep !== undefined) throw new BodyParseError(`couldn't get version/kind; json parse error: invalid character '${tooDeep}' exceeded max depth`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BodyParseError(`couldn't get version/kind; json parse error: ${goJsonError(text, (err as Error).message)}`);
  }
}

export class BodyParseError extends Error {}

/** Go's encoding/json scanner refuses nesting deeper than this (and our recursive walks of the value would overflow the stack). */
export const MAX_JSON_DEPTH = 10_000;

/** The bracket that opens nesting level MAX_JSON_DEPTH + 1, outside strings; undefined when the text stays within. */
function beyondMaxDepth(text: string): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return text[i];
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

/** transformDecodeError: the 400 for a body that could not be decoded into `kind`. */
export function undecodable(kind: string, err: BodyParseError, data: Buffer): ReturnType<typeof badRequest> {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${err.message} (${summarize(data)})`);
}

function summarize(data: Buffer): string {
  let d = data;
  while (d.length > 0 && d[0] === 0x0a) d = d.subarray(1);
  if (d.length === 0) return '<empty>';
  return d.length > 30 ? `${d.subarray(0, 30).toString('utf8')} ...` : d.toString('utf8');
}

/** Go's encoding/json syntax error text for the first error V8 reported. */
export function goJsonError(text: string, v8Message: string): string {
  const m = /position (\d+)/.exec(v8Message);
  const token = /Unexpected token '(.)'/.exec(v8Message);
  const pos = m ? Number(m[1]) : -1;
  if (token) return `invalid character '${token[1]}' looking for beginning of value`;
  if (pos < 0 || pos >= text.length || /Unexpected end|Unterminated/.test(v8Message)) return 'unexpected end of JSON input';
  const c = text[pos]!;
  const ch = c === "'" ? "'\\''" : `'${c}'`;
  if (/Expected (property name or '}'|double-quoted property name)/.test(v8Message)) return `invalid character ${ch} looking for beginning of object key string`;
  if (/Expected ',' or '}' after property value/.test(v8Message)) return `invalid character ${ch} after object key:value pair`;
  if (/Expected ':' after property name/.test(v8Message)) return `invalid character ${ch} after object key`;
  if (/Expected ',' or ']' after array element/.test(v8Message)) return `invalid character ${ch} after array element`;
  if (/non-whitespace character after JSON/.test(v8Message)) return `invalid character ${ch} after top-level value`;
  return `invalid character ${ch} looking for beginning of value`;
}
