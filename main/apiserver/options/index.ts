// The flag groups of `pilothouse apiserver`, in the order they apply. Each
// feature adds its group here (one import, one entry).

import { admissionOptions } from './admission';
import { auditOptions } from './audit';
import { authenticationOptions } from './authentication';
import { authorizationOptions } from './authorization';
import { encryptionOptions } from './encryption';
import { etcdClientOptions } from './etcdClient';
import type { ApiServerOptionGroup } from './optionGroup';
import { serverRunOptions } from './serverRun';

export const apiServerOptionGroups: ApiServerOptionGroup[] = [
  admissionOptions,
  auditOptions,
  authenticationOptions,
  authorizationOptions,
  encryptionOptions,
  serverRunOptions,
  etcdClientOptions,
];
