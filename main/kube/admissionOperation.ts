/** admission.k8s.io/v1 Operation: what an admission request (and a quota evaluator) is asked about. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
