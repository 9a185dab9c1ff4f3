import { CURRENT_VERSION } from "@crs/contract";
import type { Tenant } from "@crs/db";
import type { Actor } from "./context";

/**
 * The service acting on its own for an organization (a worker task): no key, no scopes. Its
 * events carry `audit_ref` = the given request id, so one task run's events can be told apart.
 */
export function systemActor(tenant: Tenant, task: string, requestId: string): Actor {
  return {
    organizationId: tenant.organizationId,
    environment: tenant.environment,
    keyId: `system:${task}`,
    scopes: new Set(),
    apiVersion: CURRENT_VERSION,
    requestId,
  };
}
