import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEncryptionConfig, parseEncryptionConfig } from '../../../../main/apiserver/encryption/config';

const k32 = Buffer.alloc(32, 1).toString('base64');
const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';

describe('EncryptionConfiguration', () => {
  it('decodes providers in order with their keys', () => {
    const cfg = parseEncryptionConfig(`${head}resources:
- resources: [secrets, configmaps]
  providers:
  - aescbc:
      keys: [{name: key2, secret: ${k32}}, {name: key1, secret: ${k32}}]
  - secretbox:
      keys: [{name: sb, secret: ${k32}}]
  - identity: {}
- resources: ['*.apps']
  providers: [{aesgcm: {keys: [{name: g, secret: ${Buffer.alloc(16).toString('base64')}}]}}]
`);
    expect(cfg.resources[0]!.resources).toEqual(['secrets', 'configmaps']);
    expect(cfg.resources[0]!.providers.map((p) => p.kind)).toEqual(['aescbc', 'secretbox', 'identity']);
    expect(cfg.resources[0]!.providers[0]).toEqual({ kind: 'aescbc', keys: [{ name: 'key2', secret: k32 }, { name: 'key1', secret: k32 }] });
    expect(cfg.resources[1]!.providers[0]!.kind).toBe('aesgcm');
  });

  const bad: { name: string; body: string; want: string }[] = [
    {
      name: 'aescbc key of 8 bytes',
      body: `resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: k, secret: ${Buffer.alloc(8).toString('base64')}}]}}]}]`,
      want: 'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]',
    },
    {
      name: 'secretbox key of 16 bytes',
      body: `resources: [{resources: [secrets], providers: [{secretbox: {keys: [{name: k, secret: ${Buffer.alloc(16).toString('base64')}}]}}]}]`,
      want: 'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]',
    },
    {
      name: 'not base64',
      body: 'resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: k, secret: "not base64!"}]}}]}]',
      want: 'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded',
    },
    {
      name: 'missing key name',
      body: `resources: [{resources: [secrets], providers: [{aescbc: {keys: [{secret: ${k32}}]}}]}]`,
      want: 'resources[0].providers[0].aescbc.keys[0].name: Required value: name is a mandatory field for a key',
    },
    { name: 'no keys', body: 'resources: [{resources: [secrets], providers: [{aescbc: {keys: []}}]}]', want: 'resources[0].providers[0].aescbc.keys: Required value: at least one keys is required' },
    { name: 'no resources', body: 'resources: []', want: 'resources: Required value: at least one resources is required' },
    { name: 'no providers', body: 'resources: [{resources: [secrets], providers: []}]', want: 'resources[0].providers: Required value: at least one resources[0].providers is required' },
    { name: 'bare star', body: 'resources: [{resources: ["*"], providers: [{identity: {}}]}]', want: `resources[0].resources[0]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources` },
    { name: 'capital letters', body: 'resources: [{resources: [Secrets], providers: [{identity: {}}]}]', want: 'resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters' },
    {
      name: 'overlap',
      body: 'resources: [{resources: [secrets, "*."], providers: [{identity: {}}]}]',
      want: `resources[0].resources: Invalid value: []string{"secrets", "*."}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`,
    },
    {
      name: 'two providers in one element',
      body: `resources: [{resources: [secrets], providers: [{identity: {}, aescbc: {keys: [{name: k, secret: ${k32}}]}}]}]`,
      want: 'resources[0].providers[0]: Invalid value: config.ProviderConfiguration{aescbc, identity}: more than one provider specified in a single element, should split into different list elements',
    },
    { name: 'kms refused', body: 'resources: [{resources: [secrets], providers: [{kms: {name: k, endpoint: "unix:///tmp/k.sock"}}]}]', want: 'resources[0].providers[0].kms: Invalid value: "kms": the kms provider is not supported' },
  ];
  for (const c of bad) it(`refuses: ${c.name}`, () => expect(() => parseEncryptionConfig(`${head}${c.body}\n`)).toThrow(c.want));

  it('several errors as kube aggregates them', () => {
    const body = 'resources: [{resources: [Secrets, events.events.k8s.io], providers: [{identity: {}}]}]';
    expect(() => parseEncryptionConfig(`${head}${body}`)).toThrow(/^\[resources\[0\]\.resources\[0\]: .*, resources\[0\]\.resources\[1\]: .*\]$/);
  });

  it('wrong kind', () => {
    expect(() => parseEncryptionConfig('apiVersion: v1\nkind: ConfigMap\n')).toThrow('no kind "ConfigMap" is registered for version "v1"');
  });

  it('file errors are prefixed as kube-apiserver prints them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'enc-'));
    try {
      const f = join(dir, 'enc.yaml');
      writeFileSync(f, '');
      expect(() => loadEncryptionConfig(f)).toThrow(`error while parsing file: encryption provider configuration file "${f}" is empty`);
      expect(() => loadEncryptionConfig(join(dir, 'missing.yaml'))).toThrow('error while parsing file: error opening encryption provider configuration file');
      writeFileSync(f, `${head}resources: []\n`);
      expect(() => loadEncryptionConfig(f)).toThrow('error while parsing file: resources: Required value: at least one resources is required');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
