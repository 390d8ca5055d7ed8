// Who a request acts as (kube's user.Info): what authentication produces and
// what authorization, admission, audit and the strategies read.

/** The authenticated user: name, uid, groups and extra fields, as the authenticator reported them. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}
