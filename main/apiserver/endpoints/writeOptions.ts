// Query parameters common to writes: dryRun (only "All" is valid),
// fieldManager (≤128 printable characters; kube derives a default from the
// User-Agent), fieldValidation (Strict | Warn | Ignore; Warn by default).

import { invalid } from '../api/status';
import type { RequestContext } from '../server/context';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: FieldValidation;
}

export function parseWriteOptions(ctx: RequestContext, kindOfOptions = 'CreateOptions'): WriteOptions {
  const q = ctx.url.searchParams;
  const errs: Parameters<typeof invalid>[2] = [];
  const dry = q.getAll('dryRun');
  for (const d of dry) if (d !== 'All') errs.push({ type: 'FieldValueNotSupported', field: 'dryRun', badValue: dry, detail: 'supported values: "All"' });
  const fv = q.get('fieldValidation') ?? '';
  let fieldValidation: FieldValidation = 'Warn';
  if (fv === 'Strict' || fv === 'Warn' || fv === 'Ignore') fieldValidation = fv;
  else if (fv !== '') errs.push({ type: 'FieldValueNotSupported', field: 'fieldValidation', badValue: fv, detail: 'supported values: "Ignore", "Strict", "Warn"' });
  let fieldManager = q.get('fieldManager') ?? '';
  if (fieldManager.length > 128) errs.push({ type: 'FieldValueTooLong', field: 'fieldManager', badValue: fieldManager, detail: 'must have at most 128 bytes' });
  if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', kind: kindOfOptions }, '', errs);
  if (fieldManager === '') fieldManager = defaultManager(ctx.req.headers['user-agent']);
  return { dryRun: dry.length > 0, fieldManager, fieldValidation };
}

/** managerOrUserAgent: the User-Agent up to the first '/', printable ASCII, at most 128 bytes. */
export function defaultManager(userAgent: string | undefined): string {
  const ua = (userAgent ?? 'unknown').split('/')[0]!.replace(/[^\x20-\x7e]/g, '');
  return ua.slice(0, 128) || 'unknown';
}
