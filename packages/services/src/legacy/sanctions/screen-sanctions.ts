import type { OperationInput, SanctionsScreen, sanctionsOperations } from "@crs/contract";
import { canonicalize, SCREEN_HIT_REQUIRED_ACTIONS, screenMatchKey, screenSubjects, sha256Hex } from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { assertMatterWritable } from "../../matters/assert-matter-writable";
import { lockMatter } from "../../matters/load-matter";
import { presentMatter } from "../../matters/present-matter";
import { presentSanctionsHit } from "../../sanctions/present-sanctions-hit";
import { setMatterSanctionsHold } from "../../sanctions/record-sanctions-hits";

/**
 * Screens the given wallets, entities and counterparties with the party matcher against the
 * environment's list, under the matter's row lock. Each match is recorded once per matter as an open
 * sanctions hit (party_id null, screen_id this screen): the same rows, hold and clearing as a party's
 * hits. New hits put the matter on hold (or, already held, are recorded on matter.updated); a screen
 * that raises nothing new records nothing and appends nothing.
 */
export async function screenSanctions(
  write: WriteContext,
  { body }: OperationInput<typeof sanctionsOperations.screen>,
): Promise<SanctionsScreen> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);

  const screen = screenSubjects(
    [
      ...(body.wallets ?? []).map((wallet) => ({ role: "wallet", wallet })),
      ...(body.entities ?? []).map((name) => ({ role: "entity", name })),
      ...(body.counterparties ?? []).map((name) => ({ role: "counterparty", name })),
    ],
    write.sanctionsList,
  );
  const found = screen.matches.map((match) => ({
    match,
    fingerprint: sha256Hex(canonicalize(screenMatchKey(match))),
  }));
  const fingerprints = [...new Set(found.map(({ fingerprint }) => fingerprint))];
  const screenId = write.newId("sanctionsScreen");
  const now = write.clock();
  const inserted =
    found.length === 0
      ? []
      : await tx
          .insert(schema.sanctionsHits)
          .values(
            found.map(({ match, fingerprint }) => ({
              organizationId: actor.organizationId,
              environment: actor.environment,
              id: write.newId("sanctionsHit"),
              matterId: matter.id,
              partyId: null,
              screenId,
              subject: match.role as "wallet" | "entity" | "counterparty",
              fingerprint,
              matchedField: match.matched.field,
              matchedValue: match.matched.value,
              matchedNetwork: match.matched.field === "wallet" ? match.matched.network : null,
              matchedPath: null,
              entryKind: match.entry.kind,
              entryValue: match.entry.value,
              entryNetwork: match.entry.network,
              entryProgram: match.entry.program,
              entrySource: match.entry.source,
              status: "open" as const,
              createdAt: now,
              ...writeStamp(actor, now),
            })),
          )
          .onConflictDoNothing()
          .returning();

  let held = matter.sanctionsHold;
  if (inserted.length > 0) {
    const why = { sanctions_screen_id: screenId, sanctions_hits: inserted.map(presentSanctionsHit) };
    if (!held) {
      await setMatterSanctionsHold(write, matter, true, why);
      held = true;
    } else {
      write.recordEvent({
        type: "matter.updated",
        idField: "matter_id",
        object: presentMatter(matter),
        matterId: matter.id,
        extra: why,
      });
    }
  }

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
    required_actions: matched.length > 0 ? [...SCREEN_HIT_REQUIRED_ACTIONS] : [],
    list_size: screen.list_size,
  };
}
