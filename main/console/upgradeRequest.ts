// The upgrade walkthrough's start form as it arrives over the bridge, checked
// field by field before it becomes a run's parameters: the page may send
// anything, and a run's parameters are persisted and shown as commands.

import { isAbsolute } from 'node:path';
import { parseGoDurationStrict } from '../common/goDuration';
import { DEFAULT_TIMEOUT_MS } from '../upgrade/apply';
import { parseSetting } from '../upgrade/flagSettings';

export interface CheckedUpgradeRequest {
  to?: string;
  set: string[];
  timeout: string;
  timeoutMs: number;
  rehearse: boolean;
  rehearseBadFlag: boolean;
  force: boolean;
}

const FIELDS = new Set(['to', 'set', 'timeout', 'rehearse', 'rehearseBadFlag', 'force']);

function flag(r: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const v = r[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw new Error(`upgrade.${name} must be true or false, not ${JSON.stringify(v)}`);
  return v;
}

/** Throws with the field and the reason on anything but the documented shape. */
export function checkUpgradeRequest(raw: unknown): CheckedUpgradeRequest {
  if (raw === undefined) raw = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('upgrade must be an object: { to?, set?, timeout?, rehearse?, rehearseBadFlag?, force? }');
  const r = raw as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!FIELDS.has(k)) throw new Error(`upgrade.${k}: no such field (known: ${[...FIELDS].join(', ')})`);
  let to: string | undefined;
  if (r.to !== undefined && r.to !== '') {
    if (typeof r.to !== 'string') throw new Error(`upgrade.to must be a directory path, not ${JSON.stringify(r.to)}`);
    if (!isAbsolute(r.to)) throw new Error(`upgrade.to must be an absolute path to a built Pilothouse (DIR/out/main/cli.js), not ${JSON.stringify(r.to)}`);
    to = r.to;
  }
  const set = r.set ?? [];
  if (!Array.isArray(set) || set.some((s) => typeof s !== 'string')) throw new Error('upgrade.set must be a list of COMPONENT.FLAG=VALUE strings');
  for (const s of set as string[]) parseSetting(s);
  let timeout = `${DEFAULT_TIMEOUT_MS / 60_000}m`;
  if (r.timeout !== undefined && r.timeout !== '') {
    if (typeof r.timeout !== 'string') throw new Error(`upgrade.timeout must be a Go duration such as 5m, not ${JSON.stringify(r.timeout)}`);
    timeout = r.timeout;
  }
  const ms = parseGoDurationStrict(timeout);
  if (typeof ms === 'string') throw new Error(`upgrade.timeout: ${ms}`);
  if (ms <= 0) throw new Error(`upgrade.timeout must be positive, not ${timeout}`);
  return { ...(to !== undefined && { to }), set: set as string[], timeout, timeoutMs: ms, rehearse: flag(r, 'rehearse', true), rehearseBadFlag: flag(r, 'rehearseBadFlag', false), force: flag(r, 'force', false) };
}
