// Builds the admission chain ServerPlugins.admission runs: the enabled plugin
// names (plugins.ts, already in kube's order), each made by its factory with
// its configuration from --admission-control-config-file. An enabled name
// this server does not implement is left out with a log line, as the brief
// for the chain asks: the default-on set names plugins (DefaultStorageClass,
// RuntimeClass, ...) whose resources are not served here.
//
// The configuration file is kube's AdmissionConfiguration
// (apiserver.config.k8s.io/v1, or v1alpha1):
//   plugins: [{ name, configuration?: <object>, path?: <file> }]
// A relative `path` is relative to the configuration file's directory; the
// file it names is YAML or JSON, handed to the plugin parsed.

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { AdmissionPlugin } from './interfaces';
import type { ServerEnv } from '../serverEnv';
import { ADMISSION_PLUGIN_FACTORIES, type AdmissionPluginName } from './plugins';
import { DEFAULT_ADMISSION_PLUGIN_FLAGS, type AdmissionPluginFactory, type AdmissionPluginFlags } from './interfaces';

const ADMISSION_CONFIG_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1'];

/** Plugin name → its configuration object. */
export type AdmissionPluginConfigs = Map<string, unknown>;

/** Reads --admission-control-config-file; throws kube's "failed to read plugin config" style errors. */
export function readAdmissionConfiguration(file: string): AdmissionPluginConfigs {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`failed to read plugin config: unable to read admission control configuration from "${file}" [${(err as Error).message}]`);
  }
  return parseAdmissionConfiguration(doc, dirname(file), file);
}

/** The plugin configurations of a parsed AdmissionConfiguration; `baseDir` resolves relative paths. */
export function parseAdmissionConfiguration(doc: unknown, baseDir: string, file = '<inline>'): AdmissionPluginConfigs {
  const fail = (why: string): never => {
    throw new Error(`failed to read plugin config: unable to read admission control configuration from "${file}" [${why}]`);
  };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail('not an AdmissionConfiguration object');
  const d = doc as { apiVersion?: unknown; kind?: unknown; plugins?: unknown };
  if (d.kind !== 'AdmissionConfiguration') fail(`Object 'Kind' is ${d.kind === undefined ? 'missing' : `"${String(d.kind)}", want "AdmissionConfiguration"`}`);
  if (typeof d.apiVersion !== 'string' || !ADMISSION_CONFIG_VERSIONS.includes(d.apiVersion)) {
    fail(`no kind "AdmissionConfiguration" is registered for version "${String(d.apiVersion)}"`);
  }
  const out: AdmissionPluginConfigs = new Map();
  if (d.plugins === undefined || d.plugins === null) return out;
  if (!Array.isArray(d.plugins)) fail('plugins must be a list');
  for (const entry of d.plugins as unknown[]) {
    const p = entry as { name?: unknown; path?: unknown; configuration?: unknown };
    if (typeof p?.name !== 'string' || p.name === '') fail('plugins[].name is required');
    const name = p.name as string;
    if (p.configuration !== undefined && p.configuration !== null) {
      out.set(name, p.configuration);
    } else if (typeof p.path === 'string' && p.path !== '') {
      const path = isAbsolute(p.path) ? p.path : resolve(baseDir, p.path);
      try {
        out.set(name, parseYaml(readFileSync(path, 'utf8')));
      } catch (err) {
        fail(`couldn't open admission plugin configuration ${path}: ${(err as Error).message}`);
      }
    }
  }
  return out;
}

export interface AdmissionChainOptions {
  /** Enabled plugin names, in execution order (enabledAdmissionPlugins). */
  names: AdmissionPluginName[];
  configs?: AdmissionPluginConfigs;
  flags?: AdmissionPluginFlags;
  /** Defaults to ADMISSION_PLUGIN_FACTORIES (tests pass their own). */
  factories?: Partial<Record<AdmissionPluginName, AdmissionPluginFactory>>;
}

export function buildAdmissionChain(env: ServerEnv, opts: AdmissionChainOptions): AdmissionPlugin[] {
  const factories = opts.factories ?? ADMISSION_PLUGIN_FACTORIES;
  const chain: AdmissionPlugin[] = [];
  const missing: string[] = [];
  for (const name of opts.names) {
    const factory = factories[name];
    if (!factory) {
      missing.push(name);
      continue;
    }
    chain.push(factory(env, { config: opts.configs?.get(name), flags: opts.flags ?? DEFAULT_ADMISSION_PLUGIN_FLAGS }));
  }
  if (missing.length > 0) env.log(`apiserver: admission plugins enabled but not implemented here, skipped: ${missing.join(', ')}`);
  env.log(`apiserver: admission chain: ${chain.map((p) => p.name).join(', ') || '(empty)'}`);
  return chain;
}
