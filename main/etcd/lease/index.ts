// Leases: the lessor (lessor.ts), its snapshot codec (leaseCodec.ts) and how
// the state machine applies LeaseGrant/LeaseRevoke (leaseApply.ts).

export { Lease, Lessor, MAX_LEASE_TTL, LEASE_REVOKE_RATE, EXPIRED_RETRY_MS, minLeaseTtl, type LeaseRecord, type Renewal } from './lessor';
export { decodeLeases, encodeLeases, type EncodedLeases } from './leaseCodec';
export { applyLeaseGrant, applyLeaseRevoke, type LeaseGrantRequest, type LeaseRevokeRequest } from './leaseApply';
