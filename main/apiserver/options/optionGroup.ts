// One group of kube-apiserver flags (authentication, authorization,
// admission, audit, encryption) and how they turn into the server's plugins.
// `pilothouse apiserver` registers every group's flags on its command and,
// after parsing, lets each group fill in ApiServerConfig.plugins — so a
// feature's flags, defaults and wiring live next to the feature.

import type { Command } from 'commander';
import type { ApiServerConfig } from '../config';

export interface ApiServerOptionGroup {
  name: string;
  /** Adds this group's flags, with kube-apiserver's names and defaults. */
  register(cmd: Command): void;
  /**
   * Reads the parsed flags (commander's camelCase keys; every group sees all
   * flags, e.g. authentication reads --authorization-mode) into cfg.plugins.
   * Throws an Error whose message names the flag when a value is bad.
   */
  apply(flags: Record<string, unknown>, cfg: ApiServerConfig): void | Promise<void>;
}
