import { describe, expect, it } from 'vitest';
import { RequestTraceLog } from '../../../../main/apiserver/server/traceLog';
import { TraceRecorder } from '../../../../main/apiserver/server/traceRecorder';
import { unauthorized } from '../../../../main/apiserver/api/status';

describe('RequestTraceLog', () => {
  it('keeps the last N, oldest first, and tells listeners', () => {
    const log = new RequestTraceLog(3);
    const seen: string[] = [];
    const off = log.subscribe((t) => seen.push(t.path));
    for (let i = 0; i < 5; i++) log.add(new TraceRecorder('GET', `/p${i}`).trace);
    off();
    log.add(new TraceRecorder('GET', '/p5').trace);
    expect(log.list().map((t) => t.path)).toEqual(['/p3', '/p4', '/p5']);
    expect(seen).toEqual(['/p0', '/p1', '/p2', '/p3', '/p4']);
  });
  it('refuses a non-positive size', () => {
    expect(() => new RequestTraceLog(0)).toThrow();
  });
});

describe('TraceRecorder', () => {
  it('records stages, the final code and the decision', async () => {
    const r = new TraceRecorder('POST', '/api/v1/namespaces/d/pods');
    await r.stage('authentication', async () => 'u', () => 'allow');
    await expect(r.stage('validation', () => { throw unauthorized(); })).rejects.toThrow('Unauthorized');
    r.respond(401, unauthorized().status);
    r.respond(500);
    expect(r.finish()).toBe(true);
    expect(r.finish()).toBe(false);
    expect(r.trace.stages.map((s) => [s.stage, s.verdict])).toEqual([['authentication', 'allow'], ['validation', 'deny']]);
    expect(r.trace.code).toBe(401);
    expect(r.trace.reason).toBe('Unauthorized');
    expect(r.trace.decision).toBe('denied');
  });
});
