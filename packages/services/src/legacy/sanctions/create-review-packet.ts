import { notFound, type OperationInput, type SanctionsReview, type sanctionsOperations } from "@crs/contract";
import { analyzeBlockedProperty, ID_PREFIXES, isIdOf, type ReviewedSanctionsHit } from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { WriteContext } from "../../context";
import { assemblePacket } from "../../packets/create-packet";
import { presentSanctionsReview } from "./present-sanctions";

/**
 * Prepares the review of a screen: a sanctions_review packet (which the sanctions gate lets through)
 * binding the matter's screen hits as they stand, the blocked property analysis, and the blocked wallets.
 * A screen answers every hit it matched whichever screen first recorded it, so its review binds every
 * hit the matter's screens recorded (open or cleared), not only those recorded under `screen_id`: a
 * listed wallet found by an earlier screen and matched again is reviewed too.
 * The hits are read after assemblePacket has the matter's row lock, so a clearing cannot interleave.
 */
export async function createSanctionsReviewPacket(
  write: WriteContext,
  { body }: OperationInput<typeof sanctionsOperations.reviewPacket>,
): Promise<SanctionsReview> {
  const row = await assemblePacket(write, {
    body: { matter_id: body.matter_id, type: "sanctions_review", wallets: [] },
    details: async (matterId) => {
      const hits = await screenHits(write, matterId, body.screen_id);
      const blocked_property_analysis = analyzeBlockedProperty(hits);
      return {
        wallets: blocked_property_analysis.blocked_wallets.map((address) => ({ address, network: null })),
        details: {
          screen_id: body.screen_id,
          notes: body.notes ?? null,
          hits,
          blocked_property_analysis,
          ofac_report_required: blocked_property_analysis.property_blocked,
        },
      };
    },
  });
  return presentSanctionsReview(row);
}

/** The matter's screen hits (party_id null), once `screenId` is known to be one of its screens with hits. */
async function screenHits(write: WriteContext, matterId: string, screenId: string): Promise<ReviewedSanctionsHit[]> {
  if (!isIdOf(ID_PREFIXES.sanctionsScreen, screenId)) throw notFound("sanctions screen", screenId, "screen_id");
  const h = schema.sanctionsHits;
  const rows = await write.tx
    .select()
    .from(h)
    .where(and(tenantScope(h, write.actor), eq(h.matterId, matterId), isNull(h.partyId)))
    .orderBy(asc(h.createdAt), asc(h.id));
  if (!rows.some((row) => row.screenId === screenId))
    throw notFound("sanctions screen with hits on this matter", screenId, "screen_id");
  return rows.map((row) => ({
    hit_id: row.id,
    subject: row.subject ?? "wallet",
    status: row.status,
    matched_value: row.matchedValue,
    entry: {
      kind: row.entryKind,
      value: row.entryValue,
      network: row.entryNetwork,
      program: row.entryProgram,
      source: row.entrySource,
    },
  }));
}
