// kube-apiserver's admission flags: --enable-admission-plugins,
// --disable-admission-plugins, the deprecated --admission-control,
// --admission-control-config-file and DefaultTolerationSeconds' two legacy
// flags. They turn into ServerPlugins.admission: the enabled plugins in kube's
// order, each with its configuration (main/apiserver/admission/chain.ts).

import type { Command } from 'commander';
import { buildAdmissionChain, readAdmissionConfiguration, type AdmissionPluginConfigs } from '../admission/chain';
import { enabledAdmissionPlugins, validateAdmissionPluginFlags } from '../admission/plugins';
import type { AdmissionPluginFlags } from '../admission/interfaces';
import type { ApiServerOptionGroup } from './optionGroup';

function list(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(list);
  if (typeof v !== 'string') return [];
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** pflag's StringSlice: a repeated flag adds to the list rather than replacing it. */
const appendList = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), ...list(v)];

function seconds(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!/^-?\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) throw new Error(`invalid argument "${v}" for "--${flag}" flag: strconv.ParseInt: parsing "${v}": invalid syntax`);
    return n;
  };
}

export const admissionOptions: ApiServerOptionGroup = {
  name: 'admission',
  register(cmd: Command) {
    cmd
      .option('--enable-admission-plugins <list>', 'admission plugins to enable in addition to the default-on ones (comma-separated; repeatable)', appendList)
      .option('--disable-admission-plugins <list>', 'admission plugins to disable, default-on ones included (comma-separated; repeatable)', appendList)
      .option('--admission-control <list>', 'DEPRECATED: exactly these admission plugins (use --enable/--disable-admission-plugins)')
      .option('--admission-control-config-file <file>', 'AdmissionConfiguration file with per-plugin configuration')
      .option('--default-not-ready-toleration-seconds <n>', 'tolerationSeconds of the default not-ready:NoExecute toleration', seconds('default-not-ready-toleration-seconds'), 300)
      .option('--default-unreachable-toleration-seconds <n>', 'tolerationSeconds of the default unreachable:NoExecute toleration', seconds('default-unreachable-toleration-seconds'), 300);
  },
  apply(flags, cfg) {
    const enable = list(flags.enableAdmissionPlugins);
    const disable = list(flags.disableAdmissionPlugins);
    const admissionControl = typeof flags.admissionControl === 'string' ? list(flags.admissionControl) : undefined;
    const errs = validateAdmissionPluginFlags(enable, disable, admissionControl);
    if (errs.length > 0) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    const names = enabledAdmissionPlugins(enable, disable, admissionControl);
    const configFile = typeof flags.admissionControlConfigFile === 'string' && flags.admissionControlConfigFile !== '' ? flags.admissionControlConfigFile : undefined;
    const configs: AdmissionPluginConfigs = configFile ? readAdmissionConfiguration(configFile) : new Map();
    const pluginFlags: AdmissionPluginFlags = {
      defaultNotReadyTolerationSeconds: typeof flags.defaultNotReadyTolerationSeconds === 'number' ? flags.defaultNotReadyTolerationSeconds : 300,
      defaultUnreachableTolerationSeconds: typeof flags.defaultUnreachableTolerationSeconds === 'number' ? flags.defaultUnreachableTolerationSeconds : 300,
    };
    cfg.plugins ??= {};
    cfg.plugins.admission = (env) => buildAdmissionChain(env, { names, configs, flags: pluginFlags });
  },
};
