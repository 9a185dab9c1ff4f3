import type { Matter, matterOperations, OperationInput } from "@crs/contract";
import { canonicalize, mergeMatterEconomics } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { previousAttributes } from "../previous-attributes";
import { assertMatterWritable } from "./assert-matter-writable";
import { lockMatter } from "./load-matter";
import { presentMatter } from "./present-matter";

export async function updateMatter(
  write: WriteContext,
  { params, body }: OperationInput<typeof matterOperations.update>,
): Promise<Matter> {
  const { tx, actor } = write;
  const current = await lockMatter(tx, actor, params.matter_id);
  assertMatterWritable(current);
  const before = presentMatter(current);
  const requested = {
    name: body.name,
    status: body.status,
    leadCounsel: body.lead_counsel,
    notes: body.notes,
    retentionPolicy: body.retention_policy,
    economics: body.economics === undefined ? undefined : mergeMatterEconomics(current.economics, body.economics),
  };
  // Only fields whose value really changes are written; a PATCH that changes nothing writes nothing
  // and appends no event, so the chain records changes, not requests.
  const changes = Object.fromEntries(
    Object.entries(requested).filter(
      ([field, value]) =>
        value !== undefined && canonicalize(value) !== canonicalize(current[field as keyof typeof current]),
    ),
  );
  if (Object.keys(changes).length === 0) return before;
  const now = write.clock();
  const [row] = await tx
    .update(schema.matters)
    .set({ ...changes, ...writeStamp(actor, now) })
    .where(tenantRow(schema.matters, actor, current.id))
    .returning();
  if (!row) throw new Error("matter update returned nothing");
  const matter = presentMatter(row);
  write.recordEvent({
    type: "matter.updated",
    idField: "matter_id",
    object: matter,
    matterId: matter.id,
    extra: { previous_attributes: previousAttributes(before, matter) },
  });
  return matter;
}
