// The flag groups of `pilothouse apiserver`, in the order they apply. Each
// feature adds its group here (one import, one entry).

import { admissionOptions } from './admission';
import { apiResourceOptions } from './apiResources';
import { auditOptions } from './audit';
import { authenticationOptions } from './authentication';
import { authorizationOptions } from './authorization';
import { encryptionOptions } from './encryption';
import { etcdClientOptions } from './etcdClient';
import { etcdStorageOptions } from './etcdStorage';
import type { ApiServerOptionGroup } from './optionGroup';
import { secureServingOptions } from './secureServing';
import { serverRunOptions } from './serverRun';

export const apiServerOptionGroups: ApiServerOptionGroup[] = [
  etcdStorageOptions,
  secureServingOptions,
  apiResourceOptions,
  admissionOptions,
  auditOptions,
  authenticationOptions,
  authorizationOptions,
  encryptionOptions,
  serverRunOptions,
  etcdClientOptions,
];
