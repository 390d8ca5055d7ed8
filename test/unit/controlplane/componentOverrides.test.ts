import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { effectiveCommandLine, overridesPath, readOverrides, recordOverride, type CommandLine } from '../../../main/controlplane/componentOverrides';

const layout: CommandLine = { program: { command: '/usr/bin/node', args: ['/old/out/main/cli.js', 'etcd'], env: { ELECTRON_RUN_AS_NODE: '1' } }, args: ['--name', 'm1', '--data-dir', '/d/m1'] };
const upgraded: CommandLine = { program: { command: '/usr/bin/node', args: ['/new/out/main/cli.js', 'etcd'], env: { ELECTRON_RUN_AS_NODE: '1' } }, args: ['--name', 'm1', '--data-dir', '/d/m1', '--quota-backend-bytes=8589934592'] };

describe('component overrides', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'overrides-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('records a replacement (0600) and gives it back for the same layout', () => {
    const d = dir();
    recordOverride(d, 'm1', upgraded, layout, new Date('2026-12-03T10:00:00Z'));
    expect(statSync(overridesPath(d)).mode & 0o777).toBe(0o600);
    const eff = effectiveCommandLine(readOverrides(d), 'm1', layout);
    expect(eff.commandLine).toEqual(upgraded);
    expect(eff.ignored).toBeUndefined();
    expect(effectiveCommandLine(readOverrides(d), 'm2', layout).commandLine).toBe(layout);
  });

  it('sets an override aside when the layout has changed since (another port base)', () => {
    const d = dir();
    recordOverride(d, 'm1', upgraded, layout);
    const moved: CommandLine = { ...layout, args: ['--name', 'm1', '--data-dir', '/elsewhere/m1'] };
    const eff = effectiveCommandLine(readOverrides(d), 'm1', moved);
    expect(eff.commandLine).toBe(moved);
    expect(eff.ignored).toMatch(/made for another layout/);
  });

  it('a replacement back to the layout removes the entry, and the last one the file', () => {
    const d = dir();
    recordOverride(d, 'm1', upgraded, layout);
    recordOverride(d, 'm1', layout, layout);
    expect(existsSync(overridesPath(d))).toBe(false);
    expect(readOverrides(d)).toEqual({});
  });
});
