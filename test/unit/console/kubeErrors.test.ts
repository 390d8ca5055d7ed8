// The wording of what goes wrong reaching a Kubernetes API server: each
// error as client-node, node:https or the API server gives it, and the
// sentence an operator reads.

import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../main/client/kube/restClient';
import { cannotWatch, kubeError, missingContext } from '../../../main/console/kubeErrors';

function errno(message: string, code: string, syscall?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, ...(syscall && { syscall }) });
}

const forbidden = new ApiError(403, {
  kind: 'Status',
  status: 'Failure',
  reason: 'Forbidden',
  code: 403,
  message: 'secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" at the cluster scope',
});

describe('kubeError', () => {
  const server = 'https://127.0.0.1:6443';
  const cases: { name: string; err: unknown; target?: Parameters<typeof kubeError>[1]; want: string }[] = [
    {
      name: 'an exec plugin that is not installed',
      err: errno('spawn aws ENOENT', 'ENOENT', 'spawn aws'),
      target: { execCommand: 'aws' },
      want: 'the kubeconfig\'s user runs "aws" to get a token, and it is not installed (spawn aws ENOENT)',
    },
    {
      name: 'the plugin named from the spawn error when the command is not known',
      err: errno('spawn does-not-exist-plugin ENOENT', 'ENOENT', 'spawn does-not-exist-plugin'),
      want: 'the kubeconfig\'s user runs "does-not-exist-plugin" to get a token, and it is not installed (spawn does-not-exist-plugin ENOENT)',
    },
    {
      name: 'an exec plugin that ran and failed (client-node rejects with its stderr)',
      err: new Error('error: token expired, run aws sso login\n'),
      target: { execCommand: 'aws' },
      want: 'the kubeconfig\'s user runs "aws" to get a token, and it failed (error: token expired, run aws sso login)',
    },
    { name: 'nothing listening', err: errno('connect ECONNREFUSED 127.0.0.1:6443', 'ECONNREFUSED', 'connect'), target: { server }, want: `nothing listens at ${server} (connection refused) (connect ECONNREFUSED 127.0.0.1:6443)` },
    {
      name: 'no answer in time (AbortSignal.timeout)',
      err: Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }),
      target: { server },
      want: `no answer from the API server at ${server} in time (unreachable, or a firewall drops the traffic) (The operation was aborted due to timeout)`,
    },
    { name: 'a host name that does not resolve', err: errno('getaddrinfo ENOTFOUND k8s.example', 'ENOTFOUND'), want: "the API server's host name does not resolve (getaddrinfo ENOTFOUND k8s.example)" },
    {
      name: 'a CA that did not sign the server',
      err: errno('unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
      target: { server },
      want: `the API server's certificate at ${server} is not signed by the kubeconfig's certificate-authority (unable to verify the first certificate)`,
    },
    { name: 'credentials not accepted', err: new ApiError(401, { message: 'Unauthorized' }), want: "the API server did not accept the kubeconfig's credentials (401 Unauthorized: Unauthorized)" },
    { name: 'RBAC forbids', err: forbidden, want: `forbidden (${forbidden.message})` },
    { name: 'anything else keeps its text', err: new Error('something odd'), want: 'something odd' },
  ];
  for (const c of cases) it(c.name, () => expect(kubeError(c.err, c.target)).toBe(c.want));
});

describe('cannotWatch and missingContext', () => {
  it('names the resource and the scope, then the server\'s reason', () => {
    expect(cannotWatch('secrets', forbidden)).toBe(`cannot watch secrets: forbidden (${forbidden.message})`);
    expect(cannotWatch('pods', forbidden, 'in namespace team-a')).toBe(`cannot watch pods in namespace team-a: forbidden (${forbidden.message})`);
  });
  it('lists the contexts the kubeconfig has, so a typo shows', () => {
    expect(missingContext('/home/u/.kube/config', 'prod', ['staging', 'dev'])).toBe('/home/u/.kube/config has no context "prod" (its contexts: staging, dev)');
    expect(missingContext('k', 'x', [])).toBe('k has no context "x" (its contexts: none)');
  });
});
