import type { ledgerOperations, OperationInput, RecoveryEvent } from "@crs/contract";
import {
  DEFAULT_RECOVERY_ASSET,
  DEFAULT_RECOVERY_EVENT_TYPE,
  FIAT_DECIMALS,
  formatMinorUnits,
  resolveGrossAmount,
  toMinorUnits,
} from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { assertMatterRecord } from "./ledger-queries";
import { presentRecoveryEvent } from "./present-ledger";

export async function createRecoveryEvent(
  write: WriteContext,
  { body }: OperationInput<typeof ledgerOperations.createRecoveryEvent>,
): Promise<RecoveryEvent> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const resolved = resolveGrossAmount(body);
  // The body schema already refused a missing or mismatched amount with a 422.
  if (!resolved.ok) throw new Error("recovery event without an amount passed validation");
  const packetId = body.packet_id ?? null;
  if (packetId !== null) {
    await assertMatterRecord(tx, actor, schema.packets, "packet", "packet", matter.id, packetId, "packet_id");
  }
  const now = write.clock();
  const [row] = await tx
    .insert(schema.recoveryEvents)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("recoveryEvent"),
      matterId: matter.id,
      eventType: body.event_type ?? DEFAULT_RECOVERY_EVENT_TYPE,
      asset: body.asset ?? DEFAULT_RECOVERY_ASSET,
      grossAmount: formatMinorUnits(toMinorUnits(resolved.amount, FIAT_DECIMALS), FIAT_DECIMALS),
      currency: matter.economics.currency,
      network: body.network ?? null,
      source: body.source ?? null,
      description: body.description ?? null,
      packetId,
      status: "recorded",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("recovery event insert returned nothing");
  const recoveryEvent = presentRecoveryEvent(row);
  write.recordEvent({
    type: "recovery_event.created",
    idField: "recovery_event_id",
    object: recoveryEvent,
    matterId: matter.id,
  });
  return recoveryEvent;
}
