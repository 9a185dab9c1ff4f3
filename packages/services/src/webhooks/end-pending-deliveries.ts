import { schema, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { WriteContext } from "../context";

/**
 * Ends an endpoint's deliveries that wait for an attempt: `dead`, with the reason as last_error. Their jobs
 * stay queued and find nothing to do. A delivery in flight at this moment finishes its attempt and, if that
 * fails, ends the same way when it would be retried.
 */
export async function endPendingDeliveries(
  write: WriteContext,
  endpointId: string,
  reason: string,
  now: Date,
): Promise<void> {
  const d = schema.webhookDeliveries;
  await write.tx
    .update(d)
    .set({ status: "dead", lastError: reason, nextAttemptAt: null, updatedAt: now })
    .where(and(tenantScope(d, write.actor), eq(d.webhookEndpointId, endpointId), eq(d.status, "queued")));
}
