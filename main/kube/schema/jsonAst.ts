// A JSON tree that keeps what JSON.parse throws away and strict decoding
// needs: repeated keys (kube reports `duplicate field "spec.replicas"`) and
// the literal text of numbers (Go reports `number 1e3`, not 1000).

export type JsonNode =
  | { type: 'object'; entries: [string, JsonNode][] }
  | { type: 'array'; items: JsonNode[] }
  | { type: 'string'; value: string }
  | { type: 'number'; text: string }
  | { type: 'bool'; value: boolean }
  | { type: 'null' };

/** Parses JSON text (already known to be valid JSON: callers parse it with JSON.parse first). */
export function parseJsonAst(text: string): JsonNode {
  let pos = 0;
  const ws = () => {
    while (pos < text.length && ' \t\r\n'.includes(text[pos])) pos++;
  };
  const fail = (): never => {
    throw new SyntaxError(`invalid JSON at offset ${pos}`);
  };
  const str = (): string => {
    const start = pos;
    pos++;
    while (pos < text.length && text[pos] !== '"') pos += text[pos] === '\\' ? 2 : 1;
    if (pos >= text.length) fail();
    pos++;
    return JSON.parse(text.slice(start, pos)) as string;
  };
  const value = (depth: number): JsonNode => {
    if (depth > 10_000) fail();
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries: [string, JsonNode][] = [];
      ws();
      if (text[pos] === '}') {
        pos++;
        return { type: 'object', entries };
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail();
        const key = str();
        ws();
        if (text[pos++] !== ':') fail();
        entries.push([key, value(depth + 1)]);
        ws();
        if (text[pos] === ',') pos++;
        else if (text[pos] === '}') {
          pos++;
          return { type: 'object', entries };
        } else fail();
      }
    }
    if (c === '[') {
      pos++;
      const items: JsonNode[] = [];
      ws();
      if (text[pos] === ']') {
        pos++;
        return { type: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[pos] === ',') pos++;
        else if (text[pos] === ']') {
          pos++;
          return { type: 'array', items };
        } else fail();
      }
    }
    if (c === '"') return { type: 'string', value: str() };
    if (text.startsWith('true', pos)) {
      pos += 4;
      return { type: 'bool', value: true };
    }
    if (text.startsWith('false', pos)) {
      pos += 5;
      return { type: 'bool', value: false };
    }
    if (text.startsWith('null', pos)) {
      pos += 4;
      return { type: 'null' };
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(pos, pos + 400));
    if (!m) return fail();
    pos += m[0].length;
    return { type: 'number', text: m[0] };
  };
  const root = value(0);
  ws();
  if (pos !== text.length) fail();
  return root;
}

/** The same tree for an already-parsed value (no duplicates to find; numbers as JS prints them). */
export function astOf(value: unknown): JsonNode {
  if (value === null || value === undefined) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array', items: value.map(astOf) };
  switch (typeof value) {
    case 'object':
      return { type: 'object', entries: Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, astOf(v)]) };
    case 'string':
      return { type: 'string', value };
    case 'number':
    case 'bigint':
      return { type: 'number', text: String(value) };
    case 'boolean':
      return { type: 'bool', value };
    default:
      return { type: 'null' };
  }
}
