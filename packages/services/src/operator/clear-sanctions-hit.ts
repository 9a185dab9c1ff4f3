import { AppError, notFound, type OperationInput, type operatorOperations, type SanctionsHit } from "@crs/contract";
import { isIdOf } from "@crs/core";
import { schema, type Tenant, type Transaction, tenantRow } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { recordMatterNote } from "../matters/record-matter-note";
import { presentSanctionsHit } from "../sanctions/present-sanctions-hit";
import { countOpenSanctionsHits, setMatterSanctionsHold } from "../sanctions/record-sanctions-hits";

async function loadSanctionsHit(tx: Transaction, tenant: Tenant, hitId: string) {
  if (!isIdOf("hit", hitId)) throw notFound("sanctions hit", hitId);
  const [row] = await tx
    .select()
    .from(schema.sanctionsHits)
    .where(tenantRow(schema.sanctionsHits, tenant, hitId));
  if (!row) throw notFound("sanctions hit", hitId);
  return row;
}

/**
 * A reviewer clears a sanctions hit. The matter leaves sanctions hold when it was its last open
 * hit. The catalog has no sanctions event: `matter.updated` carries the cleared hit.
 */
export async function clearSanctionsHit(
  write: WriteContext,
  { body }: OperationInput<typeof operatorOperations.clearSanctionsHit>,
): Promise<SanctionsHit> {
  const { tx, actor } = write;
  const { matterId } = await loadSanctionsHit(tx, actor, body.hit_id);
  const matter = await lockMatter(tx, actor, matterId);
  assertMatterWritable(matter);
  const hit = await loadSanctionsHit(tx, actor, body.hit_id);
  if (hit.status === "cleared") {
    throw new AppError("conflict", { message: `Sanctions hit '${hit.id}' is already cleared.`, param: "hit_id" });
  }
  const now = write.clock();
  const [row] = await tx
    .update(schema.sanctionsHits)
    .set({ status: "cleared", clearedAt: now, clearNotes: body.notes, ...writeStamp(actor, now) })
    .where(tenantRow(schema.sanctionsHits, actor, hit.id))
    .returning();
  if (!row) throw new Error("sanctions hit update returned nothing");
  const cleared = presentSanctionsHit(row);
  if (matter.sanctionsHold && (await countOpenSanctionsHits(tx, actor, matter.id)) === 0) {
    await setMatterSanctionsHold(write, matter, false, { sanctions_hit_cleared: cleared });
  } else {
    recordMatterNote(write, matter, { sanctions_hit_cleared: cleared });
  }
  return cleared;
}
