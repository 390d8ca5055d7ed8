// What admissionregistration's webhook rules and policy resource rules share:
// kube's validateResources (pkg/apis/admissionregistration/validation).

import { type ErrorList, invalid, required } from '../../api/validation/field';

/** validateResources: `x/*`, `*\/x`, `*\/*` and `*` combinations. */
export function validateResources(resources: string[], path: string): ErrorList {
  const errs: ErrorList = [];
  if (resources.length === 0) errs.push(required(path));
  const wildSub = new Set<string>();
  const wildRes = new Set<string>();
  let doubleWild = false;
  let singleWild = false;
  let plain = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(required(`${path}[${i}]`));
      return;
    }
    if (resSub === '*/*') doubleWild = true;
    if (resSub === '*') singleWild = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // kube assigns (not ORs) here, so only the last plain entry decides.
      plain = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (wildSub.has(res)) errs.push(invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (wildRes.has(sub)) errs.push(invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') wildSub.add(res);
    if (res === '*') wildRes.add(sub);
  });
  if (resources.length > 1 && doubleWild) errs.push(invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWild && plain) errs.push(invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}
