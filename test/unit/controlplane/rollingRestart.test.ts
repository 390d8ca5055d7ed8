import { describe, expect, it } from 'vitest';
import { memberRestartOrder } from '../../../main/controlplane/rollingRestart';

describe('memberRestartOrder', () => {
  it('restarts the followers in layout order, then the leader', () => {
    expect(memberRestartOrder(['m1', 'm2', 'm3'], 'm1')).toEqual(['m2', 'm3', 'm1']);
    expect(memberRestartOrder(['m1', 'm2', 'm3'], 'm2')).toEqual(['m1', 'm3', 'm2']);
    expect(memberRestartOrder(['m1', 'm2', 'm3'], 'm3')).toEqual(['m1', 'm2', 'm3']);
  });

  it('keeps the layout order when no leader is known', () => {
    expect(memberRestartOrder(['m1', 'm2', 'm3'], undefined)).toEqual(['m1', 'm2', 'm3']);
    expect(memberRestartOrder(['m1'], 'm1')).toEqual(['m1']);
  });
});
