import { AppError } from "@crs/contract";
import { checkClaimantShareTotal } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, eq, ne } from "drizzle-orm";
import { shareOf } from "./present-party";

/**
 * Claimant shares of one matter never sum above 1 (422 naming `share`). Sums the matter's other
 * claimants as they are now: the caller holds the matter's row lock, which every party write takes
 * first, so no concurrent write can change the sum between this check and the commit.
 */
export async function assertClaimantSharesFit(
  tx: Queryable,
  tenant: Tenant,
  matterId: string,
  proposedShare: number | null,
  excludingPartyId?: string,
): Promise<void> {
  const p = schema.parties;
  const others = await tx
    .select({ share: p.share })
    .from(p)
    .where(
      and(
        tenantScope(p, tenant),
        eq(p.matterId, matterId),
        eq(p.role, "claimant"),
        excludingPartyId ? ne(p.id, excludingPartyId) : undefined,
      ),
    );
  const check = checkClaimantShareTotal(others.map(shareOf), proposedShare);
  if (check.ok) return;
  if (check.reason === "invalid_share") throw new Error(`stored or parsed share is invalid: ${check.problem}`);
  const message = `would bring the claimant shares of matter ${matterId} to ${check.total}; at most ${check.available} is left`;
  throw new AppError("invalid_request", {
    message: `Invalid share: claimant shares of one matter may not sum above 1. This share ${message}.`,
    param: "share",
    details: { invalid: [{ param: "share", message }], total: check.total, available: check.available },
  });
}

/** A share belongs to a claimant only: any other role with a share is a 422 naming `share`. */
export function assertShareMatchesRole(role: string, share: number | null): void {
  if (role === "claimant" || share === null) return;
  const message = `applies only to claimants; this party's role is ${role} (send share: null with the role)`;
  throw new AppError("invalid_request", {
    message: `Invalid share (${message}).`,
    param: "share",
    details: { invalid: [{ param: "share", message }] },
  });
}
