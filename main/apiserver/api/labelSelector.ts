// Label selectors with kube's grammar and error texts
// (k8s.io/apimachinery pkg/labels/selector.go): `a=b`, `a==b`, `a!=b`,
// `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>3`, `a<3`, comma = AND; plus
// metav1.LabelSelector (matchLabels/matchExpressions) to the same form.

import { isQualifiedName, isValidLabelValue } from './validation/names';
import { GoLiteral, fieldErrorBody } from './status';

export type Operator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  operator: Operator;
  /** Sorted, de-duplicated. */
  values: string[];
}

export interface LabelSelector {
  requirements: Requirement[];
  matches(labels: Record<string, string> | undefined): boolean;
  empty(): boolean;
  toString(): string;
}

export interface MetaLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** A parse or requirement error; the message is exactly kube's. */
export class SelectorParseError extends Error {}

// Errors built like field.Invalid(path, ...).Error(). kube's parser has no
// path (a nil *field.Path prints as "<nil>"); NewRequirement names "key",
// "values", "values[i]" and "values[i][key]".
function invalidMsg(field: string, value: unknown, detail: string): string {
  return `${field}: ${fieldErrorBody({ type: 'FieldValueInvalid', field, badValue: value, detail })}`;
}

function checkKey(key: string, field: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? invalidMsg(field, key, errs.join('; ')) : undefined;
}

/** labels.NewRequirement: validates key, operator arity and values; all problems aggregated. */
export function newRequirement(key: string, operator: Operator, values: string[], emptyIsNil = false): Requirement {
  const errs: string[] = [];
  // An empty list from a copied metav1 selector is a nil slice in Go, and %#v says so.
  const shown = emptyIsNil && values.length === 0 ? new GoLiteral('[]string(nil)') : values;
  const keyErr = checkKey(key, 'key');
  if (keyErr) errs.push(keyErr);
  const n = values.length;
  if ((operator === 'in' || operator === 'notin') && n === 0) errs.push(invalidMsg('values', shown, "for 'in', 'notin' operators, values set can't be empty"));
  if ((operator === '=' || operator === '==' || operator === '!=') && n !== 1) errs.push(invalidMsg('values', shown, 'exact-match compatibility requires one single value'));
  if ((operator === 'exists' || operator === '!') && n !== 0) errs.push(invalidMsg('values', values, 'values set must be empty for exists and does not exist'));
  if (operator === 'gt' || operator === 'lt') {
    if (n !== 1) errs.push(invalidMsg('values', shown, "for 'Gt', 'Lt' operators, exactly one value is required"));
    values.forEach((v, i) => {
      if (!/^[-+]?\d+$/.test(v)) errs.push(invalidMsg(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(invalidMsg(`values[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length) throw new SelectorParseError(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  return { key, operator, values: [...new Set(values)].sort() };
}

function requirementMatches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = labels[r.key];
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(v);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[-+]?\d+$/.test(v)) return false;
      const lv = BigInt(v);
      const rv = BigInt(r.values[0]);
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

export function requirementString(r: Requirement): string {
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

export function selectorOf(requirements: Requirement[]): LabelSelector {
  const reqs = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    requirements: reqs,
    matches: (labels) => reqs.every((r) => requirementMatches(r, labels ?? {})),
    empty: () => reqs.length === 0,
    toString: () => reqs.map(requirementString).join(','),
  };
}

export const everything = (): LabelSelector => selectorOf([]);

/** labels.Nothing(): what a nil metav1.LabelSelector selects. */
export function nothing(): LabelSelector {
  return { requirements: [], matches: () => false, empty: () => false, toString: () => '' };
}

// ---- lexer -------------------------------------------------------------

type Tok = 'id' | 'in' | 'notin' | '!' | '=' | '==' | '!=' | '>' | '<' | '(' | ')' | ',' | 'eos' | 'error';

const special = new Set(['=', '!', '(', ')', ',', '>', '<']);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

function lex(input: string): { tok: Tok; lit: string }[] {
  const out: { tok: Tok; lit: string }[] = [];
  let i = 0;
  while (i <= input.length) {
    while (i < input.length && isSpace(input[i])) i++;
    if (i >= input.length) break;
    const c = input[i];
    if (special.has(c)) {
      const two = input.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        out.push({ tok: two, lit: two });
        i += 2;
      } else {
        out.push({ tok: c as Tok, lit: c });
        i++;
      }
      continue;
    }
    let j = i;
    while (j < input.length && !special.has(input[j]) && !isSpace(input[j])) j++;
    const word = input.slice(i, j);
    out.push({ tok: word === 'in' ? 'in' : word === 'notin' ? 'notin' : 'id', lit: word });
    i = j;
  }
  out.push({ tok: 'eos', lit: '' });
  return out;
}

// ---- parser (same states and messages as kube's Parser) ---------------------

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

/** labels.Parse. Throws SelectorParseError with kube's message. */
export function parseLabelSelector(input: string): LabelSelector {
  const items = lex(input);
  let pos = 0;
  // In a value position 'in'/'notin' are plain identifiers.
  const look = (values: boolean) => {
    const it = items[pos];
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id' as Tok, lit: it.lit } : it;
  };
  const take = (values: boolean) => {
    const it = look(values);
    if (pos < items.length - 1) pos++;
    return it;
  };
  const fail = (msg: string): never => {
    throw new SelectorParseError(msg);
  };

  const parseValues = (): string[] => {
    const open = take(true);
    if (open.tok !== '(') fail(`found '${open.lit}' expected: '('`);
    const next = look(true);
    if (next.tok === ')') {
      take(true);
      return [''];
    }
    if (next.tok !== 'id' && next.tok !== ',') fail(`found '${next.lit}', expected: ',', ')' or identifier`);
    const set: string[] = [];
    for (let guard = 0; guard < items.length + 1; guard++) {
      const t = take(true);
      if (t.tok === 'id') {
        set.push(t.lit);
        const t2 = look(true);
        if (t2.tok === ',') continue;
        if (t2.tok === ')') break;
        fail(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.tok === ',') {
        if (set.length === 0) set.push('');
        const t2 = look(true);
        if (t2.tok === ')') {
          set.push('');
          break;
        }
        if (t2.tok === ',') {
          take(true);
          set.push('');
        }
      } else {
        fail(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
    const close = take(true);
    if (close.tok !== ')') fail(`found '${next.lit}', expected: ')'`);
    return set;
  };

  const parseRequirement = (): Requirement => {
    let t = take(true);
    let op: Operator | undefined;
    if (t.tok === '!') {
      op = '!';
      t = take(true);
    }
    if (t.tok !== 'id') fail(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErr = checkKey(key, '<nil>');
    if (keyErr) fail(keyErr);
    const after = look(true).tok;
    if (after === 'eos' || after === ',') return newRequirement(key, op ?? 'exists', []);
    if (op === '!') return newRequirement(key, '!', []);
    const o = take(false);
    const ops: Partial<Record<Tok, Operator>> = { in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt' };
    const operator = ops[o.tok] ?? fail(`found '${o.lit}', expected: ${binaryOperators}`);
    if (operator === 'in' || operator === 'notin') return newRequirement(key, operator, parseValues());
    const v = look(true);
    if (v.tok === 'eos' || v.tok === ',') return newRequirement(key, operator, ['']);
    const val = take(true);
    if (val.tok !== 'id') fail(`found '${val.lit}', expected: identifier`);
    return newRequirement(key, operator, [val.lit]);
  };

  const reqs: Requirement[] = [];
  for (let guard = 0; guard < items.length + 1; guard++) {
    const t = look(true);
    if (t.tok === 'eos') return selectorOf(reqs);
    if (t.tok !== 'id' && t.tok !== '!') fail(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
    try {
      reqs.push(parseRequirement());
    } catch (e) {
      throw new SelectorParseError(`unable to parse requirement: ${(e as Error).message}`);
    }
    const sep = take(true);
    if (sep.tok === 'eos') return selectorOf(reqs);
    if (sep.tok !== ',') fail(`found '${sep.lit}', expected: ',' or 'end of string'`);
    const t2 = look(true);
    if (t2.tok !== 'id' && t2.tok !== '!') fail(`found '${t2.lit}', expected: identifier after ','`);
  }
  return selectorOf(reqs);
}

/** metav1.LabelSelectorAsSelector: undefined selects nothing, an empty selector everything. */
export function labelSelectorAsSelector(ps: MetaLabelSelector | undefined | null): LabelSelector {
  if (!ps) return nothing();
  const ml = Object.entries(ps.matchLabels ?? {});
  const me = ps.matchExpressions ?? [];
  if (ml.length + me.length === 0) return everything();
  const reqs: Requirement[] = ml.map(([k, v]) => newRequirement(k, '=', [v]));
  const ops: Record<string, Operator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };
  for (const e of me) {
    const op = ops[e.operator];
    if (!op) throw new SelectorParseError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    reqs.push(newRequirement(e.key, op, [...(e.values ?? [])], true));
  }
  return selectorOf(reqs);
}

/** metav1.FormatLabelSelector, as printers show selectors: '<none>' when empty. */
export function formatLabelSelector(ps: MetaLabelSelector | undefined | null): string {
  try {
    const s = labelSelectorAsSelector(ps).toString();
    return s === '' ? '<none>' : s;
  } catch {
    return '<error>';
  }
}

/** labels.SelectorFromSet(map).String(), e.g. for service selectors. */
export function setString(labels: Record<string, string> | undefined): string {
  return Object.keys(labels ?? {})
    .sort()
    .map((k) => `${k}=${labels![k]}`)
    .join(',');
}
