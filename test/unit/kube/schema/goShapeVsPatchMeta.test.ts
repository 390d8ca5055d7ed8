import { expect, test } from 'vitest';
import { knownMessages, messageFields } from '../../../../main/apiserver/patch/patchMeta';
import { jsonFields, kubeSchema } from '../../../../main/kube/schema/index';

// Two tables describe the same Go structs from different angles: goShape.ts
// (value vs pointer, for the wire formats) and patch/patchMeta.ts (merge
// behaviour, value structs for field ownership). Where both speak about a
// message field, they must agree.
test('goShape and patchMeta agree on which struct fields are held by value', () => {
  const schema = kubeSchema();
  const disagreements: string[] = [];
  for (const message of knownMessages()) {
    if (!schema.has(message)) continue; // kinds we do not store (StatefulSet, Job, ...)
    const view = jsonFields(schema, schema.message(message));
    for (const [field, meta] of Object.entries(messageFields(message) ?? {})) {
      if (meta.kind !== 'struct') continue;
      const jf = view.get(field);
      if (!jf) {
        disagreements.push(`${message}.${field}: not in the schema`);
        continue;
      }
      if (jf.field.goValue !== !!meta.value) disagreements.push(`${message}.${field}: goShape ${jf.field.goValue ? 'value' : 'pointer'}, patchMeta ${meta.value ? 'value' : 'pointer'}`);
    }
  }
  expect(disagreements).toEqual([]);
});
