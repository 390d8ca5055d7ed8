// The upgrade walkthrough's start form: what the user typed, as the bridge
// request (main checks every field again; this only shapes the text).

import type { UpgradeRequest } from '../../../preload/contract';

export interface UpgradeDraft {
  /** The target build directory; empty for a flag-only reconfiguration. */
  to: string;
  /** One COMPONENT.FLAG=VALUE per line. */
  settings: string;
  timeout: string;
  rehearse: boolean;
  rehearseBadFlag: boolean;
  force: boolean;
}

export function emptyUpgradeDraft(): UpgradeDraft {
  return { to: '', settings: '', timeout: '5m', rehearse: true, rehearseBadFlag: false, force: false };
}

/** The settings one per line, blank lines and surrounding spaces dropped. */
export function settingLines(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
}

export function upgradeRequest(d: UpgradeDraft): UpgradeRequest {
  const to = d.to.trim();
  const timeout = d.timeout.trim();
  return { ...(to && { to }), set: settingLines(d.settings), ...(timeout && { timeout }), rehearse: d.rehearse, rehearseBadFlag: d.rehearseBadFlag, force: d.force };
}

/** Why the form cannot be sent yet; undefined when it can. */
export function draftProblem(d: UpgradeDraft): string | undefined {
  if (d.to.trim() === '' && settingLines(d.settings).length === 0) return 'give a target build directory and/or flag settings';
  return undefined;
}
