import { notFound, type OperationInput, type SanctionsReview, type sanctionsOperations } from "@crs/contract";
import { ID_PREFIXES, isIdOf } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import type { ReadContext } from "../../context";
import { presentSanctionsReview } from "./present-sanctions";

/** A packet of type sanctions_review; any other packet is not a review (404). */
export async function retrieveSanctionsReview(
  read: ReadContext,
  { params }: OperationInput<typeof sanctionsOperations.get>,
): Promise<SanctionsReview> {
  const id = params.review_id;
  if (!isIdOf(ID_PREFIXES.packet, id)) throw notFound("sanctions review", id);
  const [row] = await read.db
    .select()
    .from(schema.packets)
    .where(tenantRow(schema.packets, read.actor, id));
  if (row?.type !== "sanctions_review") throw notFound("sanctions review", id);
  return presentSanctionsReview(row);
}
