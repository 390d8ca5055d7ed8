// Query parameters of list and watch requests → storage options, validated
// as kube's ListOptions validation does (resourceVersionMatch rules, limit,
// selectors with the resource's supported fields).

import { compileFieldSelector } from '../api/fieldSelector';
import { parseLabelSelector, SelectorParseError } from '../api/labelSelector';
import type { KObject } from '../../kube/object';
import { badRequest, invalid } from '../api/status';
import type { ResourceDef } from '../registry/rest/resourceDef';
import { supportedFieldLabels } from '../registry/index';
import type { ListOptions, Predicate } from '../storage/interface';
import { truthy } from '../server/requestInfo';

export interface ParsedListOptions extends ListOptions {
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
  /** The name a field selector pins, for exact-key lookups. */
  exactName?: string;
}

export function parseListOptions(def: ResourceDef, q: URLSearchParams): ParsedListOptions {
  const opts: ParsedListOptions = { watch: truthy(q.get('watch')), allowWatchBookmarks: truthy(q.get('allowWatchBookmarks')) };
  const rv = q.get('resourceVersion');
  if (rv !== null && rv !== '') opts.resourceVersion = rv;
  const rvm = q.get('resourceVersionMatch');
  const sie = q.get('sendInitialEvents');
  if (sie !== null && sie !== '') opts.sendInitialEvents = truthy(sie);
  const errs: { field: string; value: unknown; detail: string; type: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueNotSupported' }[] = [];
  if (rvm !== null && rvm !== '') {
    if (rvm !== 'Exact' && rvm !== 'NotOlderThan') errs.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', value: rvm, detail: 'supported values: "Exact", "NotOlderThan", ""' });
    else opts.resourceVersionMatch = rvm;
  }
  const limit = q.get('limit');
  if (limit !== null && limit !== '') {
    const n = Number(limit);
    if (!Number.isInteger(n)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(limit)}: invalid syntax`);
    if (n > 0) opts.limit = n;
  }
  const cont = q.get('continue');
  if (cont !== null && cont !== '') opts.continue = cont;
  const ts = q.get('timeoutSeconds');
  if (ts !== null && ts !== '') {
    const n = Number(ts);
    if (!Number.isInteger(n)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(ts)}: invalid syntax`);
    opts.timeoutSeconds = n;
  }
  if (opts.watch) {
    if (opts.resourceVersionMatch !== undefined && !(opts.sendInitialEvents && opts.resourceVersionMatch === 'NotOlderThan')) {
      errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', value: undefined, detail: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' });
    }
  } else {
    if (opts.sendInitialEvents !== undefined) errs.push({ type: 'FieldValueForbidden', field: 'sendInitialEvents', value: undefined, detail: 'sendInitialEvents is forbidden for list' });
    if (opts.resourceVersionMatch !== undefined) {
      if (opts.resourceVersion === undefined) errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', value: undefined, detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided' });
      if (opts.continue !== undefined) errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', value: undefined, detail: 'resourceVersionMatch is forbidden when continue is provided' });
      if (opts.resourceVersionMatch === 'Exact' && opts.resourceVersion === '0') errs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', value: undefined, detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' });
    }
  }
  if (errs.length > 0) {
    throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs.map((e) => ({ type: e.type, field: e.field, badValue: e.value, detail: e.detail })));
  }

  const predicates: Predicate[] = [];
  const ls = q.get('labelSelector');
  if (ls !== null && ls.trim() !== '') {
    let sel;
    try {
      sel = parseLabelSelector(ls);
    } catch (e) {
      throw badRequest(e instanceof SelectorParseError ? e.message : String(e));
    }
    if (!sel.empty()) predicates.push((o: KObject) => sel.matches(o.metadata.labels));
  }
  const fs = q.get('fieldSelector');
  if (fs !== null && fs.trim() !== '') {
    const supported = new Set(['metadata.name', 'metadata.namespace', ...supportedFieldLabels(def)]);
    const sel = compileFieldSelector(fs, supported);
    if (!sel.empty()) {
      predicates.push((o: KObject) => sel.matches(fieldsOf(def, o)));
      opts.exactName = sel.requiresExactMatch('metadata.name');
    }
  }
  if (predicates.length > 0) opts.predicate = (o) => predicates.every((p) => p(o));
  return opts;
}

// An object's selectable fields, per definition and object: the watch cache
// hands every watcher the same stored objects (immutable, replaced on each
// change), so ten kubelets selecting spec.nodeName compute a pod's fields once.
const fieldsCache = new WeakMap<object, WeakMap<KObject, Record<string, string>>>();

export function fieldsOf(def: ResourceDef, o: KObject): Record<string, string> {
  let perDef = fieldsCache.get(def);
  if (!perDef) fieldsCache.set(def, (perDef = new WeakMap()));
  let fields = perDef.get(o);
  if (fields === undefined) {
    const f: Record<string, string> = { 'metadata.name': o.metadata.name ?? '' };
    if (def.namespaced) f['metadata.namespace'] = o.metadata.namespace ?? '';
    fields = { ...f, ...def.selectableFields(o) };
    perDef.set(o, fields);
  }
  return fields;
}
