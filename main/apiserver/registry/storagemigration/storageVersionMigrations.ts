// storagemigration.k8s.io/v1alpha1 StorageVersionMigration (+status),
// cluster-scoped, served enabled (kube 1.32 serves it behind the alpha
// StorageVersionMigrator gate; this lab has no gates for it). A migration
// names one resource whose every object the storage-version-migrator
// controller rewrites (controllers/manager/storageversionmigrator/). kube's
// strategy: create clears status, updates keep it, no generation, and both
// need a resourceVersion (AllowUnconditionalUpdate false); the status
// endpoint keeps spec and ResetObjectMetaForStatus's metadata.

import { nameIsDNSSubdomain } from '../../api/validation/names';
import { type Rec, recOpt, str } from '../common/obj';
import { ALL_VERBS, STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import type { ResourceDef, TableConvertor } from '../rest/resourceDef';
import { col, nameColumn } from '../tables/columns';
import { validateMigrationSpec, validateMigrationSpecUpdate, validateMigrationStatusUpdate } from './validation';

const GROUP = 'storagemigration.k8s.io';
const VERSION = 'v1alpha1';

/** kube's printer: NAME RESOURCE, the resource as resource.version.group. */
const migrationTable: TableConvertor = {
  columns: [nameColumn, col('Resource', 'string', 'Fully qualified resource to migrate')],
  cells(o) {
    const r = recOpt(recOpt(o as Rec, 'spec'), 'resource');
    return [o.metadata.name, `${str(r, 'resource')}.${str(r, 'version')}.${str(r, 'group')}`];
  },
};

const migrationStrategy = simpleStrategy({
  namespaced: false,
  nameFn: nameIsDNSSubdomain,
  validate: validateMigrationSpec,
  validateUpdate: validateMigrationSpecUpdate,
  hasStatus: true,
  allowUnconditionalUpdate: false,
});

export const storageVersionMigrations: ResourceDef = {
  group: GROUP,
  version: VERSION,
  kind: 'StorageVersionMigration',
  listKind: 'StorageVersionMigrationList',
  resource: 'storageversionmigrations',
  singular: 'storageversionmigration',
  namespaced: false,
  shortNames: [],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'storageversionmigrations',
  protoType: 'k8s.io.api.storagemigration.v1alpha1.StorageVersionMigration',
  subresources: [{ name: 'status', kind: { group: GROUP, version: VERSION, kind: 'StorageVersionMigration' }, verbs: STATUS_VERBS }],
  strategy: migrationStrategy,
  statusStrategy: {
    ...statusStrategy(migrationStrategy, { keepMeta: ['labels', 'annotations', 'ownerReferences', 'finalizers'], validateStatus: validateMigrationStatusUpdate }),
    allowUnconditionalUpdate: false,
  },
  table: migrationTable,
  selectableFields: (obj) => metaFields(obj, false),
};
