import { AppError, type ledgerOperations, type OperationInput, type RemittanceEvent } from "@crs/contract";
import { checkRemittanceFits, FIAT_DECIMALS, formatAmountText, formatMinorUnits, toMinorUnits } from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { assertMatterRecord, matterLedgerTotals } from "./ledger-queries";
import { presentRemittanceEvent } from "./present-ledger";

/**
 * Records a remittance. The matter row lock (`SELECT … FOR UPDATE` in lockMatter) is taken before the
 * ledger is summed, and every ledger write takes it first, so two remittances of one matter never
 * both read the same balance: the second sums after the first commits and is refused if it no longer fits.
 */
export async function createRemittanceEvent(
  write: WriteContext,
  { body }: OperationInput<typeof ledgerOperations.createRemittanceEvent>,
): Promise<RemittanceEvent> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  if (matter.sanctionsHold) {
    throw new AppError("sanctions_gate", {
      message: `Matter '${matter.id}' has a sanctions hit awaiting review; remittances are refused until a reviewer clears it.`,
      param: "matter_id",
    });
  }
  const waterfallId = body.waterfall_id ?? null;
  if (waterfallId !== null) {
    await assertMatterRecord(
      tx,
      actor,
      schema.waterfalls,
      "waterfall",
      "waterfall",
      matter.id,
      waterfallId,
      "waterfall_id",
    );
  }
  const sourceId = body.source_recovery_event_id ?? null;
  if (sourceId !== null) {
    await assertMatterRecord(
      tx,
      actor,
      schema.recoveryEvents,
      "recoveryEvent",
      "recovery event",
      matter.id,
      sourceId,
      "source_recovery_event_id",
    );
  }
  const cents = toMinorUnits(body.amount, FIAT_DECIMALS);
  const totals = await matterLedgerTotals(tx, actor, matter.id);
  const fit = checkRemittanceFits(totals, cents);
  if (!fit.fits) {
    throw new AppError("conflict", {
      message: `A remittance of ${formatAmountText(cents)} exceeds what matter '${matter.id}' has recovered and not yet remitted (${formatAmountText(fit.remittable_cents)}).`,
      param: "amount",
      details: {
        total_recovered: formatAmountText(totals.recovered_cents),
        total_remitted: formatAmountText(totals.remitted_cents),
        remittable: formatAmountText(fit.remittable_cents),
      },
    });
  }
  const now = write.clock();
  const [row] = await tx
    .insert(schema.remittanceEvents)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("remittanceEvent"),
      matterId: matter.id,
      destination: body.destination ?? null,
      asset: body.asset ?? matter.economics.currency,
      amount: formatMinorUnits(cents, FIAT_DECIMALS),
      currency: matter.economics.currency,
      waterfallId,
      sourceRecoveryEventId: sourceId,
      status: "recorded",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("remittance event insert returned nothing");
  const remittance = presentRemittanceEvent(row);
  write.recordEvent({
    type: "remittance_event.created",
    idField: "remittance_event_id",
    object: remittance,
    matterId: matter.id,
  });
  return remittance;
}
