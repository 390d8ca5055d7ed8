// DIR/components.json: the command lines an upgrade or a reconfiguration
// gave components, so that they outlive the process hosting the plane. A
// plane started again under DIR (`pilothouse up`, the console) runs each
// component with the program and flags it was last given, as kubeadm's
// static Pod manifests keep what `kubeadm upgrade apply` wrote.
//
// Each entry also records the command line the layout gave the component
// when it was replaced (`layout`). A host whose layout has changed since (a
// different --port-base, another member count) made those flags stale: the
// entry is then ignored and the host says so, rather than running members
// with addresses the cluster does not have. An entry equal to the layout's
// own command line is removed (a rollback to where it started).
//
// Written whole and atomically (temp file, rename), mode 0600.

import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Program } from './program';

export const OVERRIDES_FILE = 'components.json';

export interface CommandLine {
  program: Program;
  args: string[];
}

export interface ComponentOverride extends CommandLine {
  /** The layout's command line for the component when the override was made. */
  layout: CommandLine;
  /** When it was made (ISO). */
  at: string;
}

export type ComponentOverrides = Record<string, ComponentOverride>;

export function overridesPath(dataDir: string): string {
  return join(dataDir, OVERRIDES_FILE);
}

/** The recorded overrides; {} when there are none. Throws on a file that is not ours to read. */
export function readOverrides(dataDir: string): ComponentOverrides {
  let text: string;
  try {
    text = readFileSync(overridesPath(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  const parsed = JSON.parse(text) as { components?: ComponentOverrides };
  return parsed.components ?? {};
}

function write(dataDir: string, overrides: ComponentOverrides): void {
  const file = overridesPath(dataDir);
  if (Object.keys(overrides).length === 0) {
    rmSync(file, { force: true });
    return;
  }
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ components: overrides }, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

export function sameCommandLine(a: CommandLine, b: CommandLine): boolean {
  return (
    a.program.command === b.program.command &&
    JSON.stringify(a.program.args) === JSON.stringify(b.program.args) &&
    JSON.stringify(a.program.env ?? {}) === JSON.stringify(b.program.env ?? {}) &&
    JSON.stringify(a.args) === JSON.stringify(b.args)
  );
}

/** Records what a component now runs; layout is what the host's layout gives it. */
export function recordOverride(dataDir: string, id: string, now: CommandLine, layout: CommandLine, at = new Date()): void {
  const all = readOverrides(dataDir);
  if (sameCommandLine(now, layout)) delete all[id];
  else all[id] = { program: now.program, args: now.args, layout, at: at.toISOString() };
  write(dataDir, all);
}

/**
 * What a component should run: its override when one was made against this
 * same layout, else the layout's command line (with why an override was set
 * aside, when one was).
 */
export function effectiveCommandLine(overrides: ComponentOverrides, id: string, layout: CommandLine): { commandLine: CommandLine; ignored?: string } {
  const o = overrides[id];
  if (!o) return { commandLine: layout };
  if (!sameCommandLine(o.layout, layout)) {
    return { commandLine: layout, ignored: `the command line recorded for ${id} at ${o.at} was made for another layout (its flags were ${o.layout.args.join(' ')}); running the layout's` };
  }
  return { commandLine: { program: o.program, args: o.args } };
}
