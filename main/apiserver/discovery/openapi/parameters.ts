// The query and path parameters of kube's OpenAPI v3 operations, inline as
// kube-openapi writes them. kubectl looks for `fieldValidation` among a PATCH
// operation's own parameters (cli-runtime query_param_verifier_v3.go) to
// decide that the server validates fields itself.

import type { JsonObject } from './components';

type Param = JsonObject;

const query = (name: string, description: string, schema: JsonObject): Param => ({ name, in: 'query', description, schema });
const str: JsonObject = { type: 'string', uniqueItems: true };
const bool: JsonObject = { type: 'boolean', uniqueItems: true };
const int: JsonObject = { type: 'integer', uniqueItems: true };

export const params = {
  pretty: query('pretty', "If 'true', the output is pretty printed.", str),
  name: (kind: string): Param => ({ name: 'name', in: 'path', description: `name of the ${kind}`, required: true, schema: str }),
  namespace: { name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects', required: true, schema: str } as Param,
  dryRun: query('dryRun', 'When present, indicates that modifications should not be persisted. The only valid value is All.', str),
  fieldManager: query('fieldManager', 'A name associated with the actor or entity that is making these changes, at most 128 printable characters.', str),
  fieldValidation: query(
    'fieldValidation',
    'How the server treats unknown or duplicate fields in the body: Ignore drops them, Warn drops them and returns a warning per field, Strict fails the request with BadRequest.',
    str,
  ),
  force: query('force', 'Force is going to "force" Apply requests: the request re-acquires fields owned by other managers. Only for apply patches.', bool),
  allowWatchBookmarks: query('allowWatchBookmarks', 'Requests watch events of type BOOKMARK. Servers may ignore it.', bool),
  continue: query('continue', 'The continue token from a previous chunked list.', str),
  fieldSelector: query('fieldSelector', 'A selector that restricts the returned objects by their fields.', str),
  labelSelector: query('labelSelector', 'A selector that restricts the returned objects by their labels.', str),
  limit: query('limit', 'The maximum number of responses for a list call; more results come with a continue token.', int),
  resourceVersion: query('resourceVersion', 'Constrains which resource versions the request may be served from.', str),
  resourceVersionMatch: query('resourceVersionMatch', 'How resourceVersion applies to list calls: Exact or NotOlderThan.', str),
  sendInitialEvents: query('sendInitialEvents', 'With watch=true, begin the stream with synthetic events for the current state, then a bookmark.', bool),
  timeoutSeconds: query('timeoutSeconds', 'Timeout for the list/watch call.', int),
  watch: query('watch', 'Watch for changes to the described resources and return them as a stream of add, update and remove notifications.', bool),
  gracePeriodSeconds: query('gracePeriodSeconds', 'The duration in seconds before the object should be deleted.', int),
  ignoreStoreReadError: query(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'Deletes an object whose stored data cannot be read (corrupt or undecryptable). Dangerous; use with care.',
    bool,
  ),
  orphanDependents: query('orphanDependents', 'Deprecated: use propagationPolicy. Whether dependents are orphaned.', bool),
  propagationPolicy: query('propagationPolicy', 'Whether and how garbage collection is performed: Orphan, Background or Foreground.', str),
};

export const listParams = (): Param[] => [
  params.allowWatchBookmarks,
  params.continue,
  params.fieldSelector,
  params.labelSelector,
  params.limit,
  params.resourceVersion,
  params.resourceVersionMatch,
  params.sendInitialEvents,
  params.timeoutSeconds,
  params.watch,
];

export const writeParams = (): Param[] => [params.dryRun, params.fieldManager, params.fieldValidation];

export const patchParams = (): Param[] => [params.dryRun, params.fieldManager, params.fieldValidation, params.force];

export const deleteParams = (): Param[] => [
  params.dryRun,
  params.gracePeriodSeconds,
  params.ignoreStoreReadError,
  params.orphanDependents,
  params.propagationPolicy,
];

export const deleteCollectionParams = (): Param[] => [
  params.continue,
  params.dryRun,
  params.fieldSelector,
  params.gracePeriodSeconds,
  params.ignoreStoreReadError,
  params.labelSelector,
  params.limit,
  params.orphanDependents,
  params.propagationPolicy,
  params.resourceVersion,
  params.resourceVersionMatch,
  params.sendInitialEvents,
  params.timeoutSeconds,
];

export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];
