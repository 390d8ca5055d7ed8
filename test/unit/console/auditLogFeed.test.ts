// The Admission log from an audit log: audit.k8s.io/v1 Event lines as
// kube-apiserver writes them turned into TraceRecords, and the file followed
// like tail -F (appends, a cut first line, rotation, a missing file said).

import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink } from '../../../preload/contract';
import { AuditLogFeed, parseAuditLine } from '../../../main/console/auditLogFeed';

const event = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: 'a1',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/default/configmaps',
  verb: 'create',
  user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
  sourceIPs: ['127.0.0.1'],
  objectRef: { resource: 'configmaps', namespace: 'default', name: 'cm1', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code: 201 },
  requestReceivedTimestamp: '2026-01-02T03:04:05.100000Z',
  stageTimestamp: '2026-01-02T03:04:05.112000Z',
  annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "admin"' },
  ...over,
});

describe('parseAuditLine', () => {
  const cases: { name: string; line: string; want: unknown }[] = [
    {
      name: 'a create, allowed',
      line: JSON.stringify(event()),
      want: {
        id: 'a1', receivedAt: '2026-01-02T03:04:05.100000Z', user: 'admin', groups: ['system:masters', 'system:authenticated'],
        verb: 'create', method: 'POST', path: '/api/v1/namespaces/default/configmaps', resource: 'configmaps', namespace: 'default', name: 'cm1',
        decision: 'allowed', code: 201, latencyMs: 12, source: 'audit',
        stages: [{ stage: 'authorization', verdict: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "admin"', latencyMs: 0 }],
      },
    },
    {
      name: 'a list RBAC forbids: denied, with the message and the admission annotations as stages',
      line: JSON.stringify(event({
        auditID: 'a2', verb: 'list', requestURI: '/api/v1/secrets', objectRef: { resource: 'secrets', apiVersion: 'v1' },
        user: { username: 'viewer' }, responseStatus: { metadata: {}, code: 403, message: 'secrets is forbidden', reason: 'Forbidden' },
        annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '', 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' },
      })),
      want: {
        id: 'a2', receivedAt: '2026-01-02T03:04:05.100000Z', user: 'viewer', verb: 'list', method: 'GET', path: '/api/v1/secrets', resource: 'secrets',
        decision: 'denied', code: 403, message: 'secrets is forbidden', latencyMs: 12, source: 'audit',
        stages: [{ stage: 'authorization', verdict: 'forbid', latencyMs: 0 }, { stage: 'pod-security.kubernetes.io/enforce-policy', verdict: 'privileged:latest', latencyMs: 0 }],
      },
    },
    { name: 'a 500 is an error', line: JSON.stringify(event({ responseStatus: { metadata: {}, code: 500 }, annotations: {} })), want: expect.objectContaining({ decision: 'error', code: 500, stages: [] }) },
    { name: 'impersonation: the impersonated user is who acted', line: JSON.stringify(event({ impersonatedUser: { username: 'alice' } })), want: expect.objectContaining({ user: 'alice' }) },
    { name: 'RequestReceived is skipped (the request is listed at a later stage)', line: JSON.stringify(event({ stage: 'RequestReceived' })), want: undefined },
    { name: 'not JSON', line: '{"kind":"Event",', want: undefined },
    { name: 'not an audit event', line: JSON.stringify({ kind: 'Status', apiVersion: 'v1' }), want: undefined },
  ];
  for (const c of cases) it(c.name, () => expect(parseAuditLine(c.line)).toEqual(c.want));
});

class Sink implements EventSink {
  batches: BridgeEvents['traces'][] = [];
  emit<E extends BridgeEventName>(name: E, payload: BridgeEvents[E]): void {
    if (name === 'traces') this.batches.push(payload as BridgeEvents['traces']);
  }
}

describe('AuditLogFeed following a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-audit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const line = (id: string, stage = 'ResponseComplete'): string => `${JSON.stringify(event({ auditID: id, stage }))}\n`;

  it('reads appends, lists a request once across its stages, starts over after rotation, bounded', () => {
    const path = join(dir, 'audit.log');
    writeFileSync(path, line('r1', 'RequestReceived') + line('r1') + line('w1', 'ResponseStarted'));
    const feed = new AuditLogFeed({ path, events: new Sink(), capacity: 3 });
    feed.poll();
    appendFileSync(path, line('w1') + line('r2').slice(0, 20)); // a line half written
    feed.poll();
    expect(feed.recent({ limit: 10 }).map((t) => t.id)).toEqual(['r1', 'w1']);
    appendFileSync(path, line('r2').slice(20));
    feed.poll();
    expect(feed.recent({ limit: 10 }).map((t) => t.id)).toEqual(['r1', 'w1', 'r2']);
    renameSync(path, `${path}.1`); // rotated: a new file from its start
    writeFileSync(path, line('r3'));
    feed.poll();
    expect(feed.recent({ limit: 10 }).map((t) => t.id)).toEqual(['w1', 'r2', 'r3']);
    expect(feed.problem()).toBeUndefined();
    feed.dispose();
  });

  it('a missing file is said, and read once it appears', () => {
    const path = join(dir, 'later.log');
    const problems: (string | undefined)[] = [];
    const feed = new AuditLogFeed({ path, events: new Sink(), onProblem: (p) => problems.push(p) });
    feed.poll();
    expect(feed.problem()).toMatch(/^cannot read the audit log .*later\.log: ENOENT/);
    writeFileSync(path, line('x1'));
    feed.poll();
    expect(feed.problem()).toBeUndefined();
    expect(problems).toHaveLength(2);
    expect(feed.recent({ limit: 10 }).map((t) => t.id)).toEqual(['x1']);
    feed.dispose();
  });
});
