import { AppError, type OperationInput, type SanctionsScreen, type sanctionsOperations } from "@crs/contract";
import { screenRequiredActions, screenSubjects } from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { WriteContext } from "../../context";
import { assertMatterWritable } from "../../matters/assert-matter-writable";
import { lockMatter } from "../../matters/load-matter";
import { presentSanctionsHit } from "../../sanctions/present-sanctions-hit";
import { holdMatterForHits, insertSanctionsHits, screenMatchHit } from "../../sanctions/record-sanctions-hits";

/**
 * Screens the given wallets, entities and counterparties with the party matcher against the
 * environment's list, under the matter's row lock. Each match is recorded once per matter as an open
 * sanctions hit (party_id null, screen_id this screen): the same rows, hold and clearing as a party's
 * hits. New hits put the matter on hold (or, already held, are recorded on matter.updated); a screen
 * that raises nothing new records nothing and appends nothing. An empty list screens nothing, and is
 * never answered "clear" (as a certificate's screen against it is never complete): 409.
 */
export async function screenSanctions(
  write: WriteContext,
  { body }: OperationInput<typeof sanctionsOperations.screen>,
): Promise<SanctionsScreen> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  if (write.sanctionsList.length === 0) {
    throw new AppError("conflict", {
      message:
        "No sanctions list is configured for this environment: a screen against no entries screens nothing, and is never a pass. Nothing was recorded.",
      details: { reason: "sanctions_list_empty", list_size: 0 },
    });
  }

  const screen = screenSubjects(
    [
      ...(body.wallets ?? []).map((wallet) => ({ role: "wallet", wallet })),
      ...(body.entities ?? []).map((name) => ({ role: "entity", name })),
      ...(body.counterparties ?? []).map((name) => ({ role: "counterparty", name })),
    ],
    write.sanctionsList,
  );
  const screenId = write.newId("sanctionsScreen");
  const found = screen.matches.map((match) => screenMatchHit(match, screenId));
  const fingerprints = [...new Set(found.map(({ fingerprint }) => fingerprint))];
  const inserted = await insertSanctionsHits(write, matter.id, found);
  const held = (await holdMatterForHits(write, matter, inserted, { screenId })).sanctionsHold;

  const h = schema.sanctionsHits;
  const matched =
    fingerprints.length === 0
      ? []
      : await tx
          .select()
          .from(h)
          .where(
            and(
              tenantScope(h, actor),
              eq(h.matterId, matter.id),
              isNull(h.partyId),
              inArray(h.fingerprint, fingerprints),
            ),
          );
  // In the order screened (wallets, entities, counterparties), not by id: ids of one millisecond do not sort.
  const rank = new Map(fingerprints.map((fingerprint, index) => [fingerprint, index]));
  matched.sort((a, b) => (rank.get(a.fingerprint) ?? 0) - (rank.get(b.fingerprint) ?? 0));
  const reviewId = inserted.length > 0 ? screenId : (matched[0]?.screenId ?? null);
  return {
    object: "sanctions_screen",
    review_id: reviewId,
    matter_id: matter.id,
    status: matched.length > 0 ? "hit" : "clear",
    matches: matched.map(presentSanctionsHit),
    ordinary_collection_paused: held,
    required_actions: screenRequiredActions({
      matched: matched.length,
      open: matched.filter((hit) => hit.status === "open").length,
      held,
    }),
    list_size: screen.list_size,
  };
}
