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

/**
 * The scopes of the 2026-06-11 operations served only on the legacy listener. A legacy key's sandbox
 * preset grants them beside the current ones; no other key can reach those operations.
 */
export const LEGACY_SCOPES = [
  "claw:read",
  "claw:write",
  "actions:read",
  "actions:write",
  "actions:assign",
  "actions:complete",
  "debtors:read",
  "debtors:write",
  "debtors:graph",
  "crypto:timeline",
  "crypto:exchange",
  "crypto:stablecoin",
  "monitoring:read",
  "monitoring:write",
  "issuer:read",
  "issuer:write",
  "sanctions:screen",
  "sanctions:read",
  "sanctions:write",
  "network:read",
  "network:write",
  "network:correlate",
] as const;
export type LegacyScope = (typeof LEGACY_SCOPES)[number];

/** Privileged scopes are never granted by a sandbox key; operators issue them explicitly. */
export const PRIVILEGED_SCOPES = ["operator:write"] as const;
export type PrivilegedScope = (typeof PRIVILEGED_SCOPES)[number];

export type AnyScope = Scope | LegacyScope | PrivilegedScope;

/** A key may carry this preset instead of a list: every non-privileged scope, now and later. */
export const SANDBOX_GRANT = "preset:sandbox";
export const SANDBOX_SCOPE_LABEL = "sandbox:read sandbox:write";

/** A scope a live key can be issued (legacy scopes are only ever a legacy key's). */
export function isScope(value: string): value is Scope | PrivilegedScope {
  return (SCOPES as readonly string[]).includes(value) || (PRIVILEGED_SCOPES as readonly string[]).includes(value);
}

function isLegacyScope(value: string): value is LegacyScope {
  return (LEGACY_SCOPES as readonly string[]).includes(value);
}

/**
 * The scopes a key's grants stand for. Unknown grant names grant nothing; legacy scopes are granted
 * to a legacy key only.
 */
export function expandGrants(grants: readonly string[], key: { legacy: boolean }): Set<AnyScope> {
  const scopes = new Set<AnyScope>();
  const legacyScope = (value: string) => key.legacy && isLegacyScope(value);
  for (const grant of grants) {
    if (grant === SANDBOX_GRANT) {
      for (const scope of SCOPES) scopes.add(scope);
      if (key.legacy) for (const scope of LEGACY_SCOPES) scopes.add(scope);
    } else if (isScope(grant) || legacyScope(grant)) scopes.add(grant as AnyScope);
  }
  return scopes;
}
