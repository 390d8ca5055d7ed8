import { describe, expect, it } from 'vitest';
import { connectionDraft, emptyConnectionForm, formProblem, mergeDraft } from '../../../renderer/src/lib/connectionForm';

const form = (over: Partial<ReturnType<typeof emptyConnectionForm>>) => ({ ...emptyConnectionForm(), ...over });

describe('the Add-connection form', () => {
  const problems = [
    { name: 'no name', input: form({ endpoints: 'h:1' }), want: 'Give the connection a name.' },
    { name: 'neither etcd nor kubeconfig', input: form({ name: 'x' }), want: 'Give etcd endpoints, a kubeconfig, or both.' },
    { name: 'a CA without endpoints', input: form({ name: 'x', kubeconfig: '/k', cacert: '/ca' }), want: 'The CA and client certificate need etcd endpoints.' },
    { name: 'a cert without its key', input: form({ name: 'x', endpoints: 'h:1', cert: '/c' }), want: 'The client certificate and its key go together.' },
    { name: 'fine', input: form({ name: 'x', endpoints: 'h:1' }), want: '' },
  ];
  for (const c of problems) it(`says what is missing: ${c.name}`, () => expect(formProblem(c.input)).toBe(c.want));

  it('becomes the draft main checks: endpoints split on commas and spaces, empty files left out', () => {
    expect(connectionDraft(form({ name: ' prod ', endpoints: 'https://a:2379, https://b:2379\nhttps://c:2379', cacert: '/ca', writable: true }))).toEqual({
      name: 'prod',
      etcd: { endpoints: ['https://a:2379', 'https://b:2379', 'https://c:2379'], cacert: '/ca' },
      writable: true,
    });
    expect(connectionDraft(form({ name: 'k', kubeconfig: '/k', context: 'admin' }))).toEqual({ name: 'k', kube: { kubeconfig: '/k', context: 'admin' }, writable: false });
  });

  it('an imported draft fills its part of the form and keeps a typed name', () => {
    const f = mergeDraft(form({ name: 'mine', kubeconfig: '/k' }), { name: 'etcd a:2379', etcd: { endpoints: ['https://a:2379'], cacert: '/ca', cert: '/c', key: '/k.key' }, writable: false });
    expect(f).toMatchObject({ name: 'mine', endpoints: 'https://a:2379', cacert: '/ca', cert: '/c', key: '/k.key', kubeconfig: '/k' });
    expect(mergeDraft(emptyConnectionForm(), { name: 'ctx', kube: { kubeconfig: '/k', context: 'ctx' }, writable: false })).toMatchObject({ name: 'ctx', kubeconfig: '/k', context: 'ctx' });
  });
});
