// The admission hook point (kube runs admission inside the REST handlers, not
// as a filter): an ordered list of plugins, all mutating phases first, then
// all validating phases; the first error wins. The plugin interface is
// main/apiserver/admission/interfaces.ts; the chain itself (which plugins, in
// kube's order, with their configuration) is built in
// main/apiserver/admission/chain.ts.
//
// Each plugin's run is a trace stage ('admission:mutating:<name>' /
// 'admission:validating:<name>') with its verdict: 'allow', 'mutate' (with
// the RFC 6902 patch from the object before to the object after), 'deny'
// (with the rejection message) or 'skip' (the plugin does not handle the
// request). Only plugins that handle the request and may mutate (have
// admit) compare the object with a copy to spot their changes, so plugins
// that do not apply cost nothing but the stage record.

import type { KObject } from '../../kube/object';
import { StatusError } from '../api/status';
import { jsonPatchDiff, type PatchOperation } from './trace/jsonPatchDiff';
import { applyJsonPatchOpsInPlace, type JsonPatchOp } from '../patch/jsonPatch';
import { jsonCopy, sameJson, type JsonValue } from '../patch/jsonValue';
import type { StageVerdict } from '../../kube/requestTrace';
import type { StageRecorder } from '../server/traceRecorder';
import type { AdmissionAttributes, AdmissionPlugin, AdmitResult } from './interfaces';

// A plugin's answer is awaited only when it is a promise: `await` on a plain
// value still yields to the microtask queue, which under load holds other
// requests' completions, so a synchronous plugin would wait behind them.

export async function runMutating(plugins: AdmissionPlugin[], attrs: AdmissionAttributes, trace: StageRecorder): Promise<void> {
  // A copy of the object before the plugin runs; after it, the same JSON
  // (sameJson walks both, allocating nothing) means no change, and the copy
  // is the next plugin's "before". Only a plugin that changed something pays
  // for a diff and a new copy; the patch's values point into that copy, which
  // later plugins do not touch.
  let before: KObject | undefined;
  for (const p of plugins) {
    if (!p.admit) continue;
    const stage = `admission:mutating:${p.name}`;
    if (p.handles && !p.handles(attrs)) {
      trace.add({ stage, verdict: 'skip', latencyMs: 0 });
      continue;
    }
    const t0 = performance.now();
    if (attrs.object && before === undefined) before = jsonCopy(attrs.object);
    let result: AdmitResult;
    try {
      const pending = p.admit(attrs);
      result = pending instanceof Promise ? await pending : pending;
    } catch (err) {
      recordFailure(trace, stage, err, t0);
      throw err;
    }
    let patch: PatchOperation[] = [];
    if (result === 'unchanged') {
      // `before` still equals the object.
    } else if (!attrs.object) before = undefined;
    else if (before !== undefined && !sameJson(before, attrs.object)) {
      // The diff's values are parts of the live object: the trace keeps a
      // copy of each, and `before` catches up by applying the patch to
      // itself with another copy (jsonPatchDiff's patch turns `before` into
      // the object) instead of copying the whole object again.
      patch = jsonPatchDiff(before, attrs.object);
      const applied: JsonPatchOp[] = [];
      for (const op of patch) {
        if (op.op === 'remove') applied.push({ op: op.op, path: op.path, hasValue: false });
        else {
          op.value = jsonCopy(op.value);
          applied.push({ op: op.op, path: op.path, value: jsonCopy(op.value) as JsonValue, hasValue: true });
        }
      }
      before = applyJsonPatchOpsInPlace(before as unknown as JsonValue, applied) as unknown as KObject;
    }
    if (patch.length > 0) trace.add({ stage, verdict: 'mutate', patch, latencyMs: performance.now() - t0 });
    else trace.add({ stage, verdict: 'allow', latencyMs: performance.now() - t0 });
  }
}

export async function runValidating(plugins: AdmissionPlugin[], attrs: AdmissionAttributes, trace: StageRecorder): Promise<void> {
  for (const p of plugins) {
    if (!p.validate) continue;
    const stage = `admission:validating:${p.name}`;
    if (p.handles && !p.handles(attrs)) {
      trace.add({ stage, verdict: 'skip', latencyMs: 0 });
      continue;
    }
    const t0 = performance.now();
    try {
      const pending = p.validate(attrs);
      if (pending) await pending;
    } catch (err) {
      recordFailure(trace, stage, err, t0);
      throw err;
    }
    trace.add({ stage, verdict: 'allow', latencyMs: performance.now() - t0 });
  }
}

/** A 4xx StatusError is the plugin's verdict (deny, with kube's message); anything else is the plugin failing. */
function recordFailure(trace: StageRecorder, stage: string, err: unknown, t0: number): void {
  const verdict: StageVerdict = err instanceof StatusError && err.code < 500 ? 'deny' : 'error';
  trace.add({ stage, verdict, reason: err instanceof Error ? err.message : String(err), latencyMs: performance.now() - t0 });
}
