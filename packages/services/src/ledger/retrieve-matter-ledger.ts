import type { ledgerOperations, MatterLedger, OperationInput } from "@crs/contract";
import { formatTimestamp, ledgerTotals } from "@crs/core";
import type { ReadContext } from "../context";
import { loadMatter } from "../matters/load-matter";
import { loadRecoveryEvents, loadRemittanceEvents } from "./ledger-queries";
import { centsOf, numberOfCents, presentRecoveryEvent, presentRemittanceEvent } from "./present-ledger";

export async function retrieveMatterLedger(
  read: ReadContext,
  { params }: OperationInput<typeof ledgerOperations.retrieveMatterLedger>,
): Promise<MatterLedger> {
  const matter = await loadMatter(read.db, read.actor, params.matter_id);
  // One snapshot: both lists and the totals come from the same repeatable-read transaction.
  const [recovered, remitted] = await read.db.transaction(
    async (tx) =>
      Promise.all([loadRecoveryEvents(tx, read.actor, matter.id), loadRemittanceEvents(tx, read.actor, matter.id)]),
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
  const totals = ledgerTotals(
    recovered.map((row) => centsOf(row.grossAmount)),
    remitted.map((row) => centsOf(row.amount)),
  );
  const valuationTime = formatTimestamp(read.clock());
  const amount = (cents: bigint) => ({
    amount: numberOfCents(cents),
    currency: matter.economics.currency,
    valuation_time: valuationTime,
  });
  return {
    object: "matter_ledger",
    matter_id: matter.id,
    recovery_events: recovered.map(presentRecoveryEvent),
    remittance_events: remitted.map(presentRemittanceEvent),
    total_recovered: amount(totals.recovered_cents),
    total_remitted: amount(totals.remitted_cents),
    remittable: amount(totals.remittable_cents),
  };
}
