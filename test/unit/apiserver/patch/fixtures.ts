// Objects shared by the managedFields and server-side apply tests: a
// Deployment as `kubectl create deployment nginx --image=nginx` leaves it
// after decoding and defaulting, and the fieldsV1 kube records for it.

export const DEPLOYMENT_MESSAGE = 'k8s.io.api.apps.v1.Deployment';

export function createdDeployment(): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', namespace: 'default', creationTimestamp: null, labels: { app: 'nginx' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'nginx' } },
        spec: {
          containers: [
            { name: 'nginx', image: 'nginx', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {},
  };
}

/** fieldsV1 of kubectl-create's entry on that Deployment (kube 1.32). */
export const CREATE_FIELDS = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': {
    'f:progressDeadlineSeconds': {},
    'f:replicas': {},
    'f:revisionHistoryLimit': {},
    'f:selector': {},
    'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
    'f:template': {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"nginx"}': {
            '.': {},
            'f:image': {},
            'f:imagePullPolicy': {},
            'f:name': {},
            'f:resources': {},
            'f:terminationMessagePath': {},
            'f:terminationMessagePolicy': {},
          },
        },
        'f:dnsPolicy': {},
        'f:restartPolicy': {},
        'f:schedulerName': {},
        'f:securityContext': {},
        'f:terminationGracePeriodSeconds': {},
      },
    },
  },
};

export const T0 = new Date('2026-11-30T10:00:00.123Z');
export const T1 = new Date('2026-11-30T11:00:00Z');
