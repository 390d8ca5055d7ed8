// Field selectors as k8s.io/apimachinery pkg/fields/selector.go parses them:
// comma-separated `field=value`, `field==value`, `field!=value` terms (AND),
// with backslash escapes for `\,`, `\=`, `\\`. Which fields a resource supports
// is per resource (ResourceDef.selectableFields); anything else is a 400
// `field label not supported: <f>`.

import { badRequest, type StatusError } from './status';

export type FieldOp = '=' | '==' | '!=';

export interface FieldRequirement {
  field: string;
  operator: FieldOp;
  value: string;
}

export interface FieldSelector {
  requirements: FieldRequirement[];
  matches(fields: Record<string, string>): boolean;
  empty(): boolean;
  toString(): string;
  /** The value required by `field=v` / `field==v`, if the selector has one (metadata.name → exact key lookups). */
  requiresExactMatch(field: string): string | undefined;
}

export class FieldSelectorError extends Error {}

/** Split on unescaped separators, keeping escapes (fields.splitTerms). */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    if (escaped) escaped = false;
    else if (s[i] === '\\') escaped = true;
    else if (s[i] === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

/** fields.splitTerm: the first unescaped operator (`!=`, `==`, `=`). */
function splitTerm(term: string): [string, FieldOp, string] | undefined {
  let escaped = false;
  for (let i = 0; i < term.length; i++) {
    if (escaped) {
      escaped = false;
      continue;
    }
    if (term[i] === '\\') {
      escaped = true;
      continue;
    }
    for (const op of ['!=', '==', '='] as FieldOp[]) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** fields.UnescapeValue, with its errors (an unescaped rune prints as its code point, as Go's %v of a rune). */
function unescapeValue(s: string): string {
  if (!s.includes('\\') && !s.includes(',') && !s.includes('=')) return s;
  let out = '';
  let inEscape = false;
  for (const c of s) {
    if (inEscape) {
      if (c === '\\' || c === ',' || c === '=') {
        out += c;
        inEscape = false;
        continue;
      }
      throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
    }
    if (c === '\\') inEscape = true;
    else if (c === ',' || c === '=') throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inEscape) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

function escapeValue(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
}

function selectorOf(reqs: FieldRequirement[]): FieldSelector {
  const sorted = [...reqs].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  return {
    requirements: sorted,
    matches: (fields) =>
      sorted.every((r) => {
        const v = fields[r.field] ?? '';
        return r.operator === '!=' ? v !== r.value : v === r.value;
      }),
    empty: () => sorted.length === 0,
    toString: () => sorted.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeValue(r.value)}`).join(','),
    requiresExactMatch: (field) => sorted.find((r) => r.field === field && r.operator !== '!=')?.value,
  };
}

/** fields.ParseSelector. Throws FieldSelectorError with kube's message. */
export function parseFieldSelector(input: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(input)) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw new FieldSelectorError(`invalid selector: '${input}'; can't understand '${term}'`);
    const [field, operator, raw] = parts;
    reqs.push({ field, operator, value: unescapeValue(raw) });
  }
  return selectorOf(reqs);
}

/**
 * Parse and check every field against what the resource supports, the way
 * the REST layer's conversion does: unknown field → 400
 * `field label not supported: <f>`; syntax errors → 400 with the parse message.
 */
export function compileFieldSelector(input: string, supported: ReadonlySet<string>): FieldSelector {
  let sel: FieldSelector;
  try {
    sel = parseFieldSelector(input);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  for (const r of sel.requirements) if (!supported.has(r.field)) throw fieldLabelNotSupported(r.field);
  return sel;
}

export function fieldLabelNotSupported(field: string): StatusError {
  return badRequest(`field label not supported: ${field}`);
}
