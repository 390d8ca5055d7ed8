import { describe, expect, it } from 'vitest';
import { eventJson, eventLegacy, microTime, type AuditEvent } from '../../../../main/apiserver/audit/event';

const ev: AuditEvent = {
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: 'a-1',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/default/pods',
  verb: 'list',
  user: { username: 'alice', groups: ['g1', 'system:authenticated'] },
  sourceIPs: ['127.0.0.1'],
  userAgent: 'kubectl/v1.32.0',
  objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code: 200 },
  requestReceivedTimestamp: '2026-11-30T22:30:00.120000Z',
  stageTimestamp: '2026-11-30T22:30:00.130000Z',
};

describe('audit event encoding', () => {
  it('micro time', () => {
    expect(microTime(Date.parse('2026-11-30T22:30:00.123Z') * 1000 + 456)).toBe('2026-11-30T22:30:00.123456Z');
  });

  it('json: one line, annotations only when present', () => {
    const s = eventJson(ev);
    expect(s.endsWith('}\n')).toBe(true);
    expect(s.includes('annotations')).toBe(false);
    expect(JSON.parse(eventJson({ ...ev, annotations: { a: 'b' } })).annotations).toEqual({ a: 'b' });
  });

  it('legacy line as plugin/pkg/audit/log writes it', () => {
    expect(eventLegacy(ev)).toBe(
      '2026-11-30T22:30:00.12Z AUDIT: id="a-1" stage="ResponseComplete" ip="127.0.0.1" method="list" user="alice" groups="\\"g1\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.32.0" namespace="default" uri="/api/v1/namespaces/default/pods" response="200"\n',
    );
    expect(eventLegacy({ ...ev, user: {}, responseStatus: undefined, objectRef: undefined })).toContain('user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.32.0" namespace="<none>" uri="/api/v1/namespaces/default/pods" response="<deferred>"');
  });
});
