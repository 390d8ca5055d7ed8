import { describe, expect, it } from 'vitest';
import { forbidden } from '../../../../main/apiserver/api/status';
import { runMutating, runValidating } from '../../../../main/apiserver/admission/run';
import type { AdmissionPlugin } from '../../../../main/apiserver/admission/interfaces';
import { TraceRecorder } from '../../../../main/apiserver/server/traceRecorder';
import { jsonPatchDiff } from '../../../../main/apiserver/admission/trace/jsonPatchDiff';
import { applyJsonPatchOps, type JsonPatchOp } from '../../../../main/apiserver/patch/jsonPatch';
import { jsonCopy, type JsonValue } from '../../../../main/apiserver/patch/jsonValue';
import { podCreate } from './fakeEnv';

describe('admission trace stages', () => {
  it('records allow, mutate (with the patch), skip and deny (with the reason), and stops at the first denial', async () => {
    const calls: string[] = [];
    const plugins: AdmissionPlugin[] = [
      { name: 'Quiet', admit: () => void calls.push('Quiet') },
      {
        name: 'Labeler',
        admit: (a) => {
          calls.push('Labeler');
          a.object!.metadata.labels = { team: 'a' };
        },
      },
      { name: 'NotPods', handles: (a) => a.resource !== 'pods', admit: () => void calls.push('NotPods') },
      { name: 'Checker', validate: () => void calls.push('Checker') },
      {
        name: 'Refuser',
        validate: (a) => {
          calls.push('Refuser');
          throw forbidden({ group: '', resource: 'pods' }, a.name, 'no');
        },
      },
      { name: 'Never', validate: () => void calls.push('Never') },
    ];
    const trace = new TraceRecorder('POST', '/api/v1/namespaces/default/pods');
    const a = podCreate({ metadata: { name: 'p' }, spec: {} });
    await runMutating(plugins, a, trace);
    await expect(runValidating(plugins, a, trace)).rejects.toThrow('pods "p" is forbidden: no');
    expect(calls).toEqual(['Quiet', 'Labeler', 'Checker', 'Refuser']);
    expect(trace.trace.stages.map(({ stage, verdict, reason, patch }) => ({ stage, verdict, reason, patch }))).toEqual([
      { stage: 'admission:mutating:Quiet', verdict: 'allow', reason: undefined, patch: undefined },
      { stage: 'admission:mutating:Labeler', verdict: 'mutate', reason: undefined, patch: [{ op: 'add', path: '/metadata/labels', value: { team: 'a' } }] },
      { stage: 'admission:mutating:NotPods', verdict: 'skip', reason: undefined, patch: undefined },
      { stage: 'admission:validating:Checker', verdict: 'allow', reason: undefined, patch: undefined },
      { stage: 'admission:validating:Refuser', verdict: 'deny', reason: 'pods "p" is forbidden: no', patch: undefined },
    ]);
  });

  it('a plugin crashing is an error stage, not a denial', async () => {
    const trace = new TraceRecorder('POST', '/x');
    await expect(runMutating([{ name: 'Broken', admit: () => { throw new Error('boom'); } }], podCreate({ metadata: { name: 'p' } }), trace)).rejects.toThrow('boom');
    expect(trace.trace.stages[0]).toMatchObject({ stage: 'admission:mutating:Broken', verdict: 'error', reason: 'boom' });
  });

  it("each patch shows only its own plugin's change, though a later plugin changes the same part of the object", async () => {
    const plugins: AdmissionPlugin[] = [
      { name: 'First', admit: (a) => void ((a.object!.spec as { tolerations: unknown[] }).tolerations = [{ key: 'a' }]) },
      { name: 'Reorder', admit: (a) => void (a.object!.metadata = { ...a.object!.metadata, extra: undefined } as never) },
      { name: 'Second', admit: (a) => void ((a.object!.spec as { tolerations: { key: string; value?: string }[] }).tolerations[0].value = 'x') },
    ];
    const trace = new TraceRecorder('POST', '/api/v1/namespaces/default/pods');
    await runMutating(plugins, podCreate({ metadata: { name: 'p' }, spec: {} }), trace);
    expect(trace.trace.stages.map(({ verdict, patch }) => ({ verdict, patch }))).toEqual([
      { verdict: 'mutate', patch: [{ op: 'add', path: '/spec/tolerations', value: [{ key: 'a' }] }] },
      // A copy of the same fields, and a key set to undefined, are no change (as in JSON).
      { verdict: 'allow', patch: undefined },
      { verdict: 'mutate', patch: [{ op: 'add', path: '/spec/tolerations/0/value', value: 'x' }] },
    ]);
  });

  it("a plugin answering 'unchanged' is allowed without a patch, and the next plugin's patch is still only its own", async () => {
    const plugins: AdmissionPlugin[] = [
      { name: 'Checks', admit: async () => 'unchanged' as const },
      { name: 'Labeler', admit: (a) => void (a.object!.metadata.labels = { team: 'a' }) },
      { name: 'AlsoChecks', admit: () => 'unchanged' },
      { name: 'Annotator', admit: (a) => void (a.object!.metadata.annotations = { note: 'x' }) },
    ];
    const trace = new TraceRecorder('POST', '/api/v1/namespaces/default/pods');
    await runMutating(plugins, podCreate({ metadata: { name: 'p' }, spec: {} }), trace);
    expect(trace.trace.stages.map(({ stage, verdict, patch }) => ({ stage, verdict, patch }))).toEqual([
      { stage: 'admission:mutating:Checks', verdict: 'allow', patch: undefined },
      { stage: 'admission:mutating:Labeler', verdict: 'mutate', patch: [{ op: 'add', path: '/metadata/labels', value: { team: 'a' } }] },
      { stage: 'admission:mutating:AlsoChecks', verdict: 'allow', patch: undefined },
      { stage: 'admission:mutating:Annotator', verdict: 'mutate', patch: [{ op: 'add', path: '/metadata/annotations', value: { note: 'x' } }] },
    ]);
  });

  it('the patches, applied in turn to the object as it came, give the object as it leaves; each is the diff of its own plugin', async () => {
    type Pod = { metadata: { name: string; labels?: Record<string, string> }; spec: { volumes?: { name: string }[]; containers: { name: string; mounts?: string[] }[]; x?: number } };
    const mutations: ((p: Pod) => void)[] = [
      (p) => {
        p.spec.volumes = [...(p.spec.volumes ?? []), { name: 'token' }];
        for (const c of p.spec.containers) c.mounts = [...(c.mounts ?? []), 'token'];
      },
      (p) => {
        p.metadata.labels = { a: '1', b: '2' };
        p.spec.x = 1;
      },
      (p) => {
        delete p.metadata.labels!.a;
        p.spec.volumes![0]!.name = 'renamed';
        p.spec.containers[1]!.mounts = [];
      },
      (p) => {
        p.spec.containers.pop();
        p.spec.x = 2;
      },
    ];
    const snapshots: unknown[] = [];
    const plugins: AdmissionPlugin[] = mutations.map((m, i) => ({
      name: `P${i}`,
      admit: (a) => {
        m(a.object as unknown as Pod);
        snapshots.push(jsonCopy(a.object));
      },
    }));
    const original = { metadata: { name: 'p' }, spec: { volumes: [{ name: 'data' }], containers: [{ name: 'a' }, { name: 'b', mounts: ['data'] }] } };
    const a = podCreate(jsonCopy(original));
    const start = jsonCopy(a.object);
    const trace = new TraceRecorder('POST', '/api/v1/namespaces/default/pods');
    await runMutating(plugins, a, trace);
    const patches = trace.trace.stages.map((st) => (st.patch ?? []) as { op: string; path: string; value?: unknown }[]);
    let doc: unknown = jsonCopy(start);
    let prev: unknown = jsonCopy(start);
    patches.forEach((patch, i) => {
      expect(patch).toEqual(jsonPatchDiff(prev, snapshots[i]));
      doc = applyJsonPatchOps(doc as JsonValue, patch.map((op) => ({ ...op, hasValue: op.op !== 'remove' })) as JsonPatchOp[]);
      prev = snapshots[i];
    });
    expect(doc).toEqual(jsonCopy(a.object));
  });
});
