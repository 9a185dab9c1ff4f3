import { AppError } from "@crs/contract";
import { schema } from "@crs/db";
import { and, eq, isNull } from "drizzle-orm";
import { keyMetadataCacheFor } from "../auth/key-cache";
import type { ServiceDeps } from "../context";

/**
 * Operator command: revokes a key by id. Its next request is 401: in this process at once, in every other
 * through the trigger's notification (key-cache.ts).
 */
export async function revokeKey(deps: ServiceDeps, keyId: string) {
  const revoked = await revokeKeyRow(deps, keyId);
  keyMetadataCacheFor(deps.sql).invalidate(`key:${keyId}`);
  return revoked;
}

async function revokeKeyRow(deps: ServiceDeps, keyId: string) {
  const [revoked] = await deps.db
    .update(schema.apiKeys)
    .set({ revokedAt: deps.clock() })
    .where(and(eq(schema.apiKeys.id, keyId), isNull(schema.apiKeys.revokedAt)))
    .returning({
      keyId: schema.apiKeys.id,
      organizationId: schema.apiKeys.organizationId,
      revokedAt: schema.apiKeys.revokedAt,
    });
  if (revoked) return revoked;
  const [existing] = await deps.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, keyId));
  if (!existing) throw new AppError("not_found", { message: `No such key: '${keyId}'.`, param: "key_id" });
  return { keyId: existing.id, organizationId: existing.organizationId, revokedAt: existing.revokedAt };
}
