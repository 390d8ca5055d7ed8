// The controllers' client toolkit in one import: REST client and clients per
// identity, shared informers with indexes, the rate-limited work queue,
// leader election over Leases, the event recorder, the clock, and the
// context every component's start function receives.

export * from './clock';
export * from './context';
export * from './eventRecorder';
export * from './informer';
export * from './informerFactory';
export * from './leaderElection';
export * from './resources';
export * from './rest';
export * from './workqueue';
