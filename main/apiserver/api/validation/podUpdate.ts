// ValidatePodUpdate's immutability rule: after copying over the fields an
// update may change (images, activeDeadlineSeconds, added tolerations,
// terminationGracePeriodSeconds from negative to 1, removed scheduling gates),
// the new spec must equal the old one.

import { type ErrorList, deepEqual, forbidden } from './field';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);

export const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** A field-by-field "- old / + new" rendering of what differs (kube prints cmp.Diff here). */
function specDiff(oldSpec: Rec, newSpec: Rec): string {
  const keys = [...new Set([...Object.keys(oldSpec), ...Object.keys(newSpec)])].sort();
  const lines = ['  core.PodSpec{'];
  for (const k of keys) {
    if (deepEqual(oldSpec[k], newSpec[k])) continue;
    if (oldSpec[k] !== undefined) lines.push(`- \t${k}: ${JSON.stringify(oldSpec[k])},`);
    if (newSpec[k] !== undefined) lines.push(`+ \t${k}: ${JSON.stringify(newSpec[k])},`);
  }
  lines.push('  }');
  return `${lines.join('\n')}\n`;
}

function tolerationsOnlyAdded(oldT: Rec[], newT: Rec[]): boolean {
  return oldT.every((o) => newT.some((n) => deepEqual(o, n)));
}

export function validatePodSpecUpdate(newSpec: Rec | undefined, oldSpec: Rec | undefined): ErrorList {
  const ns = newSpec ?? {};
  const os = oldSpec ?? {};
  if (list(ns.containers).length !== list(os.containers).length) return [forbidden('spec.containers', 'pod updates may not add or remove containers')];
  if (list(ns.initContainers).length !== list(os.initContainers).length) return [forbidden('spec.initContainers', 'pod updates may not add or remove containers')];
  // Munge a copy of the new spec back to the old values of every updatable field.
  const munged: Rec = JSON.parse(JSON.stringify(ns));
  for (const k of ['containers', 'initContainers']) {
    const oldList = list(os[k]);
    list(munged[k]).forEach((c, i) => {
      if (oldList[i] && 'image' in oldList[i]) c.image = oldList[i].image;
      else delete c.image;
    });
  }
  const restore = (k: string) => {
    if (os[k] === undefined) delete munged[k];
    else munged[k] = JSON.parse(JSON.stringify(os[k]));
  };
  restore('activeDeadlineSeconds');
  if (tolerationsOnlyAdded(list(os.tolerations), list(ns.tolerations))) restore('tolerations');
  const oldGrace = os.terminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && ns.terminationGracePeriodSeconds === 1) restore('terminationGracePeriodSeconds');
  const oldGates = list(os.schedulingGates);
  const newGates = list(ns.schedulingGates);
  if (newGates.every((g) => oldGates.some((o) => deepEqual(o, g)))) restore('schedulingGates');
  if (deepEqual(munged, os)) return [];
  return [forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${specDiff(os, munged)}`)];
}
