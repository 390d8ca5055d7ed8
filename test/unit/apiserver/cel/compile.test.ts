import { describe, expect, it } from 'vitest';
import { CelActivation, compileExpression, fromCel, type CelVariableName } from '../../../../main/apiserver/cel';

const ALL: CelVariableName[] = ['object', 'oldObject', 'request', 'namespaceObject', 'variables'];
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: { replicas: 6, paused: false, ratio: 0.5, template: { spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'redis:7' }] } } },
};
const request = {
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
  operation: 'CREATE',
  name: 'web',
  namespace: 'default',
  userInfo: { username: 'alice', groups: ['dev', 'system:authenticated'] },
  dryRun: false,
};

const evalCases: { name: string; expr: string; want: unknown }[] = [
  { name: 'int comparison', expr: 'object.spec.replicas <= 5', want: false },
  { name: 'ints are CEL int (modulus works)', expr: 'object.spec.replicas % 4', want: 2 },
  { name: 'fractions are doubles', expr: 'object.spec.ratio * 2.0', want: 1 },
  { name: 'has on a missing field', expr: 'has(object.spec.strategy)', want: false },
  { name: 'has on a present field', expr: 'has(object.metadata.labels)', want: true },
  { name: 'map index', expr: "object.metadata.labels['app'] == 'web'", want: true },
  { name: 'all macro', expr: "object.spec.template.spec.containers.all(c, c.image.contains(':'))", want: false },
  { name: 'exists macro', expr: "object.spec.template.spec.containers.exists(c, c.name == 'b')", want: true },
  { name: 'map macro', expr: 'object.spec.template.spec.containers.map(c, c.name)', want: ['a', 'b'] },
  { name: 'request fields', expr: "request.userInfo.username == 'alice' && 'dev' in request.userInfo.groups", want: true },
  { name: 'string extension', expr: "object.metadata.name.upperAscii() + '-' + string(object.spec.replicas)", want: 'WEB-6' },
  { name: 'oldObject is null on create', expr: 'oldObject == null', want: true },
  { name: 'lists library', expr: '[3, 1, 2].max() == 3 && [1, 2, 3].isSorted() && [1, 2, 3].sum() == 6', want: true },
  { name: 'quantity comparison', expr: "quantity('500m').isLessThan(quantity('1')) && quantity('1Gi').compareTo(quantity('1024Mi')) == 0", want: true },
  { name: 'quantity equality is by value', expr: "quantity('1') == quantity('1000m')", want: true },
  { name: 'quantity arithmetic', expr: "quantity('1500m').add(quantity('500m')).asInteger()", want: 2 },
  { name: 'isQuantity', expr: "isQuantity('10Mi') && !isQuantity('ten')", want: true },
  { name: 'type identifiers', expr: "type(object.spec.replicas) == int && type(object.metadata.name) == string", want: true },
  { name: 'regex find', expr: "'abc-123'.find('[0-9]+')", want: '123' },
  { name: 'size of an object map', expr: 'size(object.metadata) + size(object.spec)', want: 7 },
  { name: 'macros over an object map iterate its keys in order', expr: 'object.spec.map(k, k)', want: ['replicas', 'paused', 'ratio', 'template'] },
  { name: 'object map equality', expr: "object.metadata.labels == {'app': 'web'} && object.metadata.labels != {'app': 'db'}", want: true },
  { name: 'in on an object map', expr: "'app' in object.metadata.labels && !('tier' in object.metadata.labels)", want: true },
  { name: 'an object map read twice is the same value', expr: 'object.spec.template.spec.containers[0] == object.spec.template.spec.containers[0]', want: true },
  { name: 'a whole object map comes back as JSON', expr: 'object.metadata', want: deployment.metadata },
];

describe('CEL evaluation', () => {
  for (const c of evalCases) {
    it(c.name, () => {
      const compiled = compileExpression(c.expr, { variables: ALL });
      if (!compiled.ok) throw new Error(compiled.error);
      const r = compiled.program.evaluate(new CelActivation({ object: deployment, oldObject: null, request }));
      if (!r.ok) throw new Error(r.error);
      expect(fromCel(r.value)).toEqual(c.want);
    });
  }
});

const runtimeErrors: { name: string; expr: string; want: string }[] = [
  { name: 'missing key', expr: 'object.spec.foo == 1', want: 'no such key: foo' },
  { name: 'missing map entry', expr: "object.metadata.labels['tier'] == 'x'", want: 'no such key: tier' },
  { name: 'division by zero', expr: 'object.spec.replicas / 0 == 1', want: 'division by zero' },
];

describe('CEL runtime errors', () => {
  for (const c of runtimeErrors) {
    it(c.name, () => {
      const compiled = compileExpression(c.expr, { variables: ALL, returnTypes: ['bool'] });
      if (!compiled.ok) throw new Error(compiled.error);
      const r = compiled.program.evaluate(new CelActivation({ object: deployment, request }));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toBe(c.want);
    });
  }

  it('converts only the fields an expression reads, and an undefined field does not exist', () => {
    const touched: string[] = [];
    const spec = { replicas: 2, missing: undefined };
    const object = { metadata: { name: 'x' }, spec } as Record<string, unknown>;
    Object.defineProperty(object, 'status', { enumerable: true, get: () => (touched.push('status'), { phase: 'Running' }) });
    const compiled = compileExpression('object.spec.replicas == 2 && !has(object.spec.missing)', { variables: ['object'], returnTypes: ['bool'] });
    if (!compiled.ok) throw new Error(compiled.error);
    expect(compiled.program.evaluate(new CelActivation({ object }))).toMatchObject({ ok: true, value: true });
    expect(touched).toEqual([]);
  });

  it('refuses to run past the cost limit', () => {
    const big = { items: Array.from({ length: 2000 }, (_, i) => i) };
    const compiled = compileExpression('object.items.all(x, object.items.exists(y, y == x))', { variables: ['object'], returnTypes: ['bool'] });
    if (!compiled.ok) throw new Error(compiled.error);
    const r = compiled.program.evaluate(new CelActivation({ object: big }));
    expect(r).toMatchObject({ ok: false, error: 'operation cancelled: actual cost limit exceeded' });
    const small = compiled.program.evaluate(new CelActivation({ object: { items: [1, 2, 3] } }));
    expect(small).toMatchObject({ ok: true, value: true });
  });
});

const compileErrors: { name: string; expr: string; vars?: CelVariableName[]; returnTypes?: string[]; want: string }[] = [
  {
    name: 'undeclared variable',
    expr: 'foo.bar == 1',
    want: "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo.bar == 1\n | ^",
  },
  {
    name: 'params without a paramKind',
    expr: 'object.spec.replicas <= params.max',
    want: "compilation failed: ERROR: <input>:1:25: undeclared reference to 'params' (in container '')\n | object.spec.replicas <= params.max\n | ........................^",
  },
  {
    name: 'undefined field of the typed request',
    expr: "request.usrInfo.username == 'a'",
    want: "compilation failed: ERROR: <input>:1:8: undefined field 'usrInfo'\n | request.usrInfo.username == 'a'\n | .......^",
  },
  {
    name: 'no matching overload on known types',
    expr: "'a' + 1 == 'a1'",
    want: "compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'\n | 'a' + 1 == 'a1'\n | ....^",
  },
  { name: 'wrong output type', expr: "'abc'", returnTypes: ['bool'], want: 'must evaluate to bool but got string' },
  { name: 'dyn output is not bool', expr: 'object.spec.paused', returnTypes: ['bool'], want: 'must evaluate to bool but got dyn' },
  { name: 'undeclared function', expr: 'frobnicate(object)', want: "compilation failed: ERROR: <input>:1:11: undeclared reference to 'frobnicate' (in container '')\n | frobnicate(object)\n | ..........^" },
  {
    name: 'authorizer types: a group check has no check()',
    expr: "authorizer.group('apps').check('get').allowed()",
    vars: ['authorizer'],
    want: "compilation failed: ERROR: <input>:1:31: found no matching overload for 'check' applied to 'kubernetes.authorization.GroupCheck.(string)'\n | authorizer.group('apps').check('get').allowed()\n | ..............................^",
  },
  {
    name: 'quantity methods are typed',
    expr: "quantity('1').isLessThan(1)",
    want: "compilation failed: ERROR: <input>:1:25: found no matching overload for 'isLessThan' applied to 'kubernetes.Quantity.(int)'\n | quantity('1').isLessThan(1)\n | ........................^",
  },
  { name: 'undefined composition variable', expr: 'variables.nope', want: "compilation failed: ERROR: <input>:1:10: undefined field 'nope'\n | variables.nope\n | .........^" },
];

describe('CEL compile errors', () => {
  for (const c of compileErrors) {
    it(c.name, () => {
      const compiled = compileExpression(c.expr, { variables: c.vars ?? ALL, returnTypes: c.returnTypes });
      expect(compiled).toEqual({ ok: false, error: c.want });
    });
  }

  it('syntax errors carry a position and a caret', () => {
    const compiled = compileExpression('object.x +', { variables: ALL });
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.error).toMatch(/^compilation failed: ERROR: <input>:1:10: Syntax error: .*\n \| object\.x \+\n \| \.{9}\^$/);
  });

  it('comprehension variables are in scope, the output type of all() is bool', () => {
    const compiled = compileExpression('object.items.all(i, i.name != "")', { variables: ['object'], returnTypes: ['bool'] });
    expect(compiled.ok).toBe(true);
  });

  it('authorizer chains type-check to bool', () => {
    for (const expr of ["authorizer.group('apps').resource('deployments').namespace('x').name('y').check('delete').allowed()", "authorizer.requestResource.subresource('scale').check('update').allowed()", "authorizer.path('/healthz').check('get').reason() == ''"]) {
      expect(compileExpression(expr, { variables: ['authorizer'], returnTypes: ['bool'] }).ok, expr).toBe(true);
    }
  });

  it('composition variables take their declared types', () => {
    const compiled = compileExpression('variables.small', { variables: ['object', 'variables'], compositionVariables: { small: { name: 'bool' } }, returnTypes: ['bool'] });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    const act = new CelActivation({});
    act.setCompositionVariable('small', true);
    expect(compiled.program.evaluate(act)).toMatchObject({ ok: true, value: true });
  });
});
