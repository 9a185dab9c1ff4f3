import {
  canonicalize,
  type SanctionsEntry,
  type SanctionsMatch,
  type SanctionsHit as ScreeningHit,
  type SubjectScreenMatch,
  screenMatchKey,
  screenParties,
  sha256Hex,
} from "@crs/core";
import { type Queryable, schema, type Tenant, tenantRow, tenantScope } from "@crs/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import type { MatterRow } from "../matters/present-matter";
import { presentMatter } from "../matters/present-matter";
import { recordMatterNote } from "../matters/record-matter-note";
import { type PartyRow, screenablePartyOf } from "../parties/present-party";
import { presentSanctionsHit, type SanctionsHitRow } from "./present-sanctions-hit";

/**
 * What makes two screening results of one party the same hit: the list entry it matched (and, for
 * an identifier, where in `identifiers` it sits). How the matching name or address was written does
 * not count, so a party saved again with "ACME" for "Acme" does not raise a cleared hit again.
 */
function fingerprintOf(hit: ScreeningHit): string {
  const path = hit.matched.field === "identifier" ? hit.matched.path : null;
  return sha256Hex(canonicalize({ entry: hit.entry, path }));
}

/**
 * Screens a party just written against the environment's list and records each new hit (a hit
 * already recorded for the party, open or cleared, is not raised again). The caller holds the
 * matter's row lock, appends the party's event, then calls holdMatterForHits.
 */
export async function recordSanctionsHits(
  write: WriteContext,
  matter: MatterRow,
  party: PartyRow,
): Promise<SanctionsHitRow[]> {
  const found = screenParties([screenablePartyOf(party)], write.sanctionsList);
  return insertSanctionsHits(
    write,
    matter.id,
    found.map((hit) => ({
      partyId: party.id,
      screenId: null,
      subject: null,
      fingerprint: fingerprintOf(hit),
      matched: hit.matched,
      entry: hit.entry,
    })),
  );
}

/** One hit to record: who or what matched (a party, or a screen's subject), what it matched, and its key. */
export interface NewSanctionsHit {
  partyId: string | null;
  screenId: string | null;
  subject: SanctionsHitRow["subject"];
  fingerprint: string;
  matched: SanctionsMatch;
  entry: SanctionsEntry;
}

/**
 * The hit a screen's match records (party_id null, under `screenId`). Its fingerprint is the matter's
 * key for that match: a screen and the monitoring sweep of one wallet must compute it alike, so both
 * build their hits here and one match is recorded once per matter.
 */
export function screenMatchHit(match: SubjectScreenMatch, screenId: string): NewSanctionsHit {
  return {
    partyId: null,
    screenId,
    subject: match.role as "wallet" | "entity" | "counterparty",
    fingerprint: sha256Hex(canonicalize(screenMatchKey(match))),
    matched: match.matched,
    entry: match.entry,
  };
}

/**
 * Records hits as open, each once (a hit already recorded under its key, open or cleared, is skipped:
 * ON CONFLICT DO NOTHING on the party's or the matter's fingerprint). Returns the rows it inserted.
 */
export async function insertSanctionsHits(
  write: WriteContext,
  matterId: string,
  hits: readonly NewSanctionsHit[],
): Promise<SanctionsHitRow[]> {
  if (hits.length === 0) return [];
  const { tx, actor } = write;
  const now = write.clock();
  return tx
    .insert(schema.sanctionsHits)
    .values(
      hits.map((hit) => ({
        organizationId: actor.organizationId,
        environment: actor.environment,
        id: write.newId("sanctionsHit"),
        matterId,
        partyId: hit.partyId,
        screenId: hit.screenId,
        subject: hit.subject,
        fingerprint: hit.fingerprint,
        matchedField: hit.matched.field,
        matchedValue: hit.matched.value,
        matchedNetwork: hit.matched.field === "wallet" ? hit.matched.network : null,
        matchedPath: hit.matched.field === "identifier" ? hit.matched.path : null,
        entryKind: hit.entry.kind,
        entryValue: hit.entry.value,
        entryNetwork: hit.entry.network,
        entryProgram: hit.entry.program,
        entrySource: hit.entry.source,
        status: "open" as const,
        createdAt: now,
        ...writeStamp(actor, now),
      })),
    )
    .onConflictDoNothing()
    .returning();
}

/**
 * New hits put the matter on sanctions hold (appending `matter.updated` with them), unless it already
 * is. A screen (`screenId`: a legacy screen, or the monitoring sweep's of a watched address) has no
 * event of its own to carry its hits, so on a matter already held it still appends `matter.updated`
 * naming them; a party's event carries its own. `note` adds to the event's data. Returns the matter as
 * it now stands.
 */
export async function holdMatterForHits(
  write: WriteContext,
  matter: MatterRow,
  newHits: readonly SanctionsHitRow[],
  options: { screenId?: string; note?: Record<string, unknown> } = {},
): Promise<MatterRow> {
  if (newHits.length === 0) return matter;
  const why = {
    ...(options.screenId !== undefined ? { sanctions_screen_id: options.screenId } : {}),
    sanctions_hits: newHits.map(presentSanctionsHit),
    ...options.note,
  };
  if (!matter.sanctionsHold) return setMatterSanctionsHold(write, matter, true, why);
  if (options.screenId !== undefined) recordMatterNote(write, matter, why);
  return matter;
}

/** Puts a matter on sanctions hold or releases it, appending `matter.updated` with why. */
export async function setMatterSanctionsHold(
  write: WriteContext,
  matter: MatterRow,
  hold: boolean,
  why: Record<string, unknown>,
): Promise<MatterRow> {
  const { tx, actor } = write;
  const [row] = await tx
    .update(schema.matters)
    .set({ sanctionsHold: hold, ...writeStamp(actor, write.clock()) })
    .where(tenantRow(schema.matters, actor, matter.id))
    .returning();
  if (!row) throw new Error("matter sanctions hold update returned nothing");
  write.recordEvent({
    type: "matter.updated",
    idField: "matter_id",
    object: presentMatter(row),
    matterId: row.id,
    extra: { previous_attributes: { sanctions_hold: matter.sanctionsHold }, ...why },
  });
  return row;
}

/** Every hit recorded for these parties, oldest first, grouped by party id. */
export async function loadSanctionsHitsByParty(
  db: Queryable,
  tenant: Tenant,
  partyIds: readonly string[],
): Promise<Map<string, SanctionsHitRow[]>> {
  const byParty = new Map<string, SanctionsHitRow[]>();
  if (partyIds.length === 0) return byParty;
  const hits = schema.sanctionsHits;
  const rows = await db
    .select()
    .from(hits)
    .where(and(tenantScope(hits, tenant), inArray(hits.partyId, [...partyIds])))
    .orderBy(asc(hits.id));
  for (const row of rows) {
    if (row.partyId !== null) byParty.set(row.partyId, [...(byParty.get(row.partyId) ?? []), row]);
  }
  return byParty;
}

/** Open hits on a matter: while there is one, the matter stays on sanctions hold. */
export async function countOpenSanctionsHits(db: Queryable, tenant: Tenant, matterId: string): Promise<number> {
  const hits = schema.sanctionsHits;
  const rows = await db
    .select({ id: hits.id })
    .from(hits)
    .where(and(tenantScope(hits, tenant), eq(hits.matterId, matterId), eq(hits.status, "open")));
  return rows.length;
}
