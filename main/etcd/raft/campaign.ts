// Kinds of election and the marker a transfer campaign carries.

/** The context of a vote request sent because of a leader transfer: it bypasses the leader lease. */
export const CAMPAIGN_TRANSFER = new TextEncoder().encode('CampaignTransfer');

export enum CampaignType {
  PreElection = 'PreElection',
  Election = 'Election',
  Transfer = 'Transfer',
}
