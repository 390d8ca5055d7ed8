// --encryption-provider-config: an apiserver.config.k8s.io/v1
// EncryptionConfiguration, read and validated as kube-apiserver does
// (k8s.io/apiserver pkg/server/options/encryptionconfig/config.go and
// pkg/apis/apiserver/validation/validation_encryption.go), with the same
// field paths and messages, so a bad file fails the same way:
//
//   error while parsing file: resources[0].providers[0].aescbc.keys[0].secret:
//     Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]
//
// The result maps each configured group/resource ("secrets", "*.apps", "*.*")
// to its provider list; transformer.ts turns that into per-key transformers.

import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { fieldErrorBody, GoLiteral, type FieldError } from '../api/status';
import { invalid, required } from '../api/validation/field';
import { aggregate } from './providers';

export interface KeyConfig {
  name: string;
  secret: string;
}

export type ProviderConfig =
  | { kind: 'aescbc' | 'aesgcm' | 'secretbox'; keys: KeyConfig[] }
  | { kind: 'identity' };

export interface ResourceConfig {
  resources: string[];
  providers: ProviderConfig[];
}

export interface EncryptionConfig {
  resources: ResourceConfig[];
}

export const ENCRYPTION_API_VERSION = 'apiserver.config.k8s.io/v1';
const AES_KEY_SIZES = [16, 24, 32];
const SECRETBOX_KEY_SIZES = [32];
const PROVIDER_NAMES = ['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const;

export class EncryptionConfigError extends Error {}

/** Reads and validates the file; throws EncryptionConfigError with kube's "error while parsing file: ..." text. */
export function loadEncryptionConfig(path: string): EncryptionConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new EncryptionConfigError(`error while parsing file: error opening encryption provider configuration file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  if (text.length === 0) throw new EncryptionConfigError(`error while parsing file: encryption provider configuration file ${JSON.stringify(path)} is empty`);
  try {
    return parseEncryptionConfig(text);
  } catch (err) {
    throw new EncryptionConfigError(`error while parsing file: ${(err as Error).message}`);
  }
}

type Rec = Record<string, unknown>;

/** Decodes and validates YAML/JSON text (errors without the file prefix). */
export function parseEncryptionConfig(text: string): EncryptionConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`error converting YAML to JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error("couldn't get version/kind; json parse error: json: cannot unmarshal into Go value of type struct");
  const d = doc as Rec;
  if (typeof d.kind !== 'string' || d.kind === '') throw new Error(`Object 'Kind' is missing in '${JSON.stringify(doc)}'`);
  if (d.apiVersion !== ENCRYPTION_API_VERSION || d.kind !== 'EncryptionConfiguration') {
    throw new Error(`no kind ${JSON.stringify(d.kind)} is registered for version ${JSON.stringify(d.apiVersion ?? '')} in scheme "k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go"`);
  }
  const cfg = decode(d);
  const errs = validate(d);
  if (errs.length > 0) throw new Error(aggregate(errs.map((e) => `${e.field}: ${fieldErrorBody(e)}`)));
  return cfg;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function decode(d: Rec): EncryptionConfig {
  return {
    resources: arr(d.resources).map((r) => {
      const rc = (r ?? {}) as Rec;
      return {
        resources: arr(rc.resources).map(String),
        providers: arr(rc.providers).flatMap((p): ProviderConfig[] => {
          const pc = (p ?? {}) as Rec;
          for (const kind of ['aescbc', 'aesgcm', 'secretbox'] as const) {
            if (pc[kind] !== undefined && pc[kind] !== null) {
              const keys = arr((pc[kind] as Rec).keys).map((k) => ({ name: String((k as Rec)?.name ?? ''), secret: String((k as Rec)?.secret ?? '') }));
              return [{ kind, keys }];
            }
          }
          return pc.identity !== undefined ? [{ kind: 'identity' }] : [];
        }),
      };
    }),
  };
}

/** ValidateEncryptionConfiguration, in its order. */
function validate(d: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const resources = arr(d.resources);
  if (resources.length === 0) return [required('resources', 'at least one resources is required')];
  resources.forEach((raw, i) => {
    const rc = (raw ?? {}) as Rec;
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    const names = arr(rc.resources).map(String);
    if (names.length === 0) errs.push(required(r, `at least one ${r} is required`));
    errs.push(...validateOverlap(names, r), ...validateResourceNames(names, r));
    const providers = arr(rc.providers);
    if (providers.length === 0) errs.push(required(p, `at least one ${p} is required`));
    providers.forEach((rawP, j) => {
      const pc = (rawP ?? {}) as Rec;
      const path = `${p}[${j}]`;
      const present = PROVIDER_NAMES.filter((n) => pc[n] !== undefined && pc[n] !== null);
      if (present.length === 0) {
        errs.push(invalid(path, providerLiteral(pc), 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'));
        return;
      }
      if (present.length > 1) {
        errs.push(invalid(path, providerLiteral(pc), 'more than one provider specified in a single element, should split into different list elements'));
        return;
      }
      const kind = present[0]!;
      if (kind === 'kms') {
        // KMS needs a plugin over a unix socket (gRPC envelope encryption); this server has none to call.
        errs.push(invalid(`${path}.kms`, 'kms', 'the kms provider is not supported by this API server (use aescbc, aesgcm, secretbox or identity)'));
        return;
      }
      if (kind === 'identity') return;
      errs.push(...validateKeys(arr((pc[kind] as Rec).keys), `${path}.${kind}.keys`, kind === 'secretbox' ? SECRETBOX_KEY_SIZES : AES_KEY_SIZES));
    });
  });
  return errs;
}

/** The provider element as Go's %#v names it (its set fields only: key material stays out of messages). */
function providerLiteral(pc: Rec): GoLiteral {
  return new GoLiteral(`config.ProviderConfiguration{${PROVIDER_NAMES.filter((n) => pc[n] !== undefined).join(', ')}}`);
}

function validateKeys(keys: unknown[], path: string, sizes: number[]): FieldError[] {
  if (keys.length === 0) return [required(path, 'at least one keys is required')];
  const errs: FieldError[] = [];
  keys.forEach((raw, i) => {
    const k = (raw ?? {}) as Rec;
    const kp = `${path}[${i}]`;
    if (!k.name) errs.push(required(`${kp}.name`, 'name is a mandatory field for a key'));
    if (!k.secret) {
      errs.push(required(`${kp}.secret`, 'secret is a mandatory field for a key'));
      return;
    }
    const secret = decodeBase64(String(k.secret));
    if (!secret) {
      errs.push(invalid(`${kp}.secret`, 'REDACTED', 'secrets must be base64 encoded'));
      return;
    }
    if (!sizes.includes(secret.length)) errs.push(invalid(`${kp}.secret`, 'REDACTED', `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`));
  });
  return errs;
}

/** base64.StdEncoding.DecodeString: padded standard alphabet only; undefined when Go would refuse it. */
export function decodeBase64(s: string): Buffer | undefined {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  return Buffer.from(s, 'base64');
}

/** schema.ParseGroupResource: "deployments.apps" → {group apps, resource deployments}; "*.*"; "secrets". */
export function parseGroupResource(s: string): { group: string; resource: string } {
  const i = s.indexOf('.');
  return i >= 0 ? { group: s.slice(i + 1), resource: s.slice(0, i) } : { group: '', resource: s };
}

function validateOverlap(resources: string[], path: string): FieldError[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let overlap = false;
  let duplicate = false;
  grs.forEach((a, i) =>
    grs.forEach((b, j) => {
      if (i === j) return;
      if (a.group === b.group && a.resource === b.resource && !duplicate) {
        duplicate = true;
        return;
      }
      if (overlap) return;
      if (a.group === '*' && a.resource === '*') overlap = true;
      else if (a.group === b.group && (a.resource === '*' || b.resource === '*')) overlap = true;
    }),
  );
  const errs: FieldError[] = [];
  if (duplicate) errs.push(invalid(path, resources, 'the same resource cannot be specified multiple times'));
  if (overlap) errs.push(invalid(path, resources, "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"));
  return errs;
}

function validateResourceNames(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  resources.forEach((res, j) => {
    const p = `${path}[${j}]`;
    const gr = parseGroupResource(res);
    if (res.toLowerCase() !== res) errs.push(invalid(p, res, 'resource name should not contain capital letters'));
    else if (res === '*') errs.push(invalid(p, res, "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"));
    else if (res === 'apiserveripinfo' || res === 'serviceipallocations' || res === 'servicenodeportallocations') errs.push(invalid(p, res, 'resources which do not have REST API/s cannot be encrypted'));
    else if (gr.group === 'events.k8s.io') errs.push(invalid(p, res, "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file"));
    else if (gr.group === 'extensions') errs.push(invalid(p, res, "'extensions' group has been removed and cannot be used for encryption"));
    else if (gr.group === '*' && gr.resource !== '*') errs.push(invalid(p, res, 'encrypting the same resource across groups is not supported'));
  });
  return errs;
}
