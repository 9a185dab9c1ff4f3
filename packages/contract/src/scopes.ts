/** The 22 per-operation scopes: each operation requires one. */
export const SCOPES = [
  "capabilities:read",
  "matters:read",
  "matters:write",
  "judgments:read",
  "judgments:write",
  "judgments:validate",
  "parties:read",
  "parties:write",
  "packets:read",
  "packets:write",
  "packets:export",
  "ledger:read",
  "ledger:write",
  "waterfall:calculate",
  "waterfall:read",
  "jobs:read",
  "jobs:write",
  "crypto:map",
  "crypto:read",
  "events:read",
  "webhook_endpoints:read",
  "webhook_endpoints:write",
] as const;
export type Scope = (typeof SCOPES)[number];

/** Privileged scopes are never granted by a sandbox key; operators issue them explicitly. */
export const PRIVILEGED_SCOPES = ["operator:write"] as const;
export type PrivilegedScope = (typeof PRIVILEGED_SCOPES)[number];

export type AnyScope = Scope | PrivilegedScope;

/** A key may carry this preset instead of a list: every non-privileged scope, now and later. */
export const SANDBOX_GRANT = "preset:sandbox";
export const SANDBOX_SCOPE_LABEL = "sandbox:read sandbox:write";

export function isScope(value: string): value is AnyScope {
  return (SCOPES as readonly string[]).includes(value) || (PRIVILEGED_SCOPES as readonly string[]).includes(value);
}

/** The scopes a key's grants stand for. Unknown grant names grant nothing. */
export function expandGrants(grants: readonly string[]): Set<AnyScope> {
  const scopes = new Set<AnyScope>();
  for (const grant of grants) {
    if (grant === SANDBOX_GRANT) for (const scope of SCOPES) scopes.add(scope);
    else if (isScope(grant)) scopes.add(grant);
  }
  return scopes;
}
