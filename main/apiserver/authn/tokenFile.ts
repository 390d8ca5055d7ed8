// --token-auth-file: static bearer tokens, one CSV record each
// (`token,user,uid[,"group1,group2"]`), read once at start as kube's
// tokenfile.NewCSV does. Records need at least three columns; an empty token
// is skipped (a warning), a repeated token keeps its last record. The CSV is
// Go's encoding/csv dialect (quoted fields, "" escapes, blank lines skipped),
// with its error texts, since an operator reads them at start-up.

import { readFileSync } from 'node:fs';
import type { UserInfo } from './user';
import type { TokenAuthenticator } from './tokenAuthenticator';

export interface TokenFile {
  tokens: Map<string, UserInfo>;
  /** Start-up warnings (empty or duplicate tokens), kube's texts. */
  warnings: string[];
}

export function parseTokenFile(path: string, text: string): TokenFile {
  const tokens = new Map<string, UserInfo>();
  const warnings: string[] = [];
  let recordNum = 0;
  for (const record of parseGoCsv(text)) {
    if (record.length < 3) {
      throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    recordNum++;
    const [token, name, uid] = record as [string, string, string];
    if (token === '') {
      warnings.push(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (tokens.has(token)) warnings.push(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    const user: UserInfo = { username: name, uid, groups: record.length >= 4 ? record[3]!.split(',') : [] };
    tokens.set(token, user);
  }
  return { tokens, warnings };
}

export function readTokenFile(path: string): TokenFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    // os.Open's error text, which kube-apiserver prints when it cannot start.
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`open ${path}: ${code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message}`);
  }
  return parseTokenFile(path, text);
}

/** The static-token authenticator: a known token is its user, anything else is not ours. */
export function tokenFileAuthenticator(file: TokenFile): TokenAuthenticator {
  return {
    name: 'token',
    audienceAgnostic: true,
    authenticateToken(token) {
      const u = file.tokens.get(token);
      return u ? { user: { ...u, groups: [...u.groups] }, audiences: [] } : undefined;
    },
  };
}

/**
 * Go's csv.Reader with FieldsPerRecord = -1: records of any length, fields
 * optionally quoted ("" inside quotes is one quote, quoted fields may span
 * lines), \r\n read as \n, empty lines skipped. Errors are csv.ParseError texts.
 */
export function parseGoCsv(text: string): string[][] {
  const src = text.replace(/\r\n/g, '\n');
  const records: string[][] = [];
  let i = 0;
  let line = 1;
  while (i < src.length) {
    if (src[i] === '\n') {
      i++;
      line++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    let lineStart = src.lastIndexOf('\n', i - 1) + 1;
    for (;;) {
      if (src[i] === '"') {
        // Quoted field: runs to the closing quote, which must be followed by a comma or the line's end.
        i++;
        let value = '';
        for (;;) {
          if (i >= src.length) throw csvError(startLine, line, i - lineStart + 1, 'extraneous or missing " in quoted-field');
          const c = src[i]!;
          if (c === '"') {
            if (src[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') {
            line++;
            lineStart = i + 1;
          }
          value += c;
          i++;
        }
        fields.push(value);
        if (i < src.length && src[i] !== ',' && src[i] !== '\n') throw csvError(startLine, line, i - lineStart, 'extraneous or missing " in quoted-field');
      } else {
        let end = i;
        while (end < src.length && src[end] !== ',' && src[end] !== '\n') end++;
        const value = src.slice(i, end);
        const q = value.indexOf('"');
        if (q >= 0) throw csvError(startLine, line, i - lineStart + q + 1, 'bare " in non-quoted-field');
        fields.push(value);
        i = end;
      }
      if (src[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    records.push(fields);
    if (src[i] === '\n') {
      i++;
      line++;
    }
  }
  return records;
}

function csvError(startLine: number, line: number, column: number, why: string): Error {
  if (startLine !== line) return new Error(`record on line ${startLine}; parse error on line ${line}, column ${column}: ${why}`);
  return new Error(`parse error on line ${line}, column ${column}: ${why}`);
}
