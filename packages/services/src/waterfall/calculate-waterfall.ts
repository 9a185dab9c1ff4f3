import type { OperationInput, Waterfall, waterfallOperations } from "@crs/contract";
import {
  type Waterfall as CoreWaterfall,
  calculateWaterfall as calculate,
  FIAT_DECIMALS,
  formatMinorUnits,
  formatTimestamp,
  toMinorUnits,
} from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, asc, eq } from "drizzle-orm";
import type { WriteContext } from "../context";
import { loadMatterRecoveryEventsById, loadRecoveryEvents, matterLedgerTotals } from "../ledger/ledger-queries";
import { centsOf, numberOfCents } from "../ledger/present-ledger";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { shareOf } from "../parties/present-party";

/**
 * Calculates the matter's waterfall with core's calculateWaterfall and stores it as the matter's current
 * one. The matter row lock makes the claimants, their sanctions hits and the recovery events one
 * consistent picture: every write to them takes the same lock.
 */
export async function calculateWaterfall(
  write: WriteContext,
  { body }: OperationInput<typeof waterfallOperations.calculate>,
): Promise<Waterfall> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const recoveryRows = body.recovery_event_ids
    ? await loadMatterRecoveryEventsById(tx, actor, matter.id, body.recovery_event_ids, "recovery_event_ids")
    : await loadRecoveryEvents(tx, actor, matter.id);

  const p = schema.parties;
  const h = schema.sanctionsHits;
  const [claimantRows, openHits, totals] = await Promise.all([
    tx
      .select()
      .from(p)
      .where(and(tenantScope(p, actor), eq(p.matterId, matter.id), eq(p.role, "claimant")))
      .orderBy(asc(p.id)),
    tx
      .select({ partyId: h.partyId })
      .from(h)
      .where(and(tenantScope(h, actor), eq(h.matterId, matter.id), eq(h.status, "open"))),
    matterLedgerTotals(tx, actor, matter.id),
  ]);
  const underReview = new Set(openHits.map((hit) => hit.partyId));

  const economics = matter.economics;
  const platformPercentage = body.platform_percentage ?? economics.platform_percentage;
  const result = calculate({
    recovery_events: recoveryRows.map((row) => ({
      recovery_event_id: row.id,
      gross_amount_cents: centsOf(row.grossAmount),
    })),
    costs: Object.fromEntries(
      Object.entries(body.costs ?? {}).map(([name, amount]) => [name, toMinorUnits(amount, FIAT_DECIMALS)]),
    ),
    counsel_fee_percentage: economics.counsel_fee_percentage,
    platform_percentage: platformPercentage,
    holdback_percentage: economics.holdback_percentage,
    claimants: claimantRows.map((row) => ({
      claimant_id: row.id,
      share: shareOf(row) ?? 0,
      status: row.status,
      sanctions_review: underReview.has(row.id),
    })),
  });

  const now = write.clock();
  const id = write.newId("waterfall");
  const waterfall = presentWaterfall(result, {
    id,
    matterId: matter.id,
    livemode: actor.environment === "live",
    currency: economics.currency,
    calculatedAt: formatTimestamp(now),
    totals,
  });
  await tx.insert(schema.waterfalls).values({
    organizationId: actor.organizationId,
    environment: actor.environment,
    id,
    matterId: matter.id,
    grossAmount: formatMinorUnits(result.gross_cents, FIAT_DECIMALS),
    platformEconomics: formatMinorUnits(result.platform_economics_cents, FIAT_DECIMALS),
    currency: economics.currency,
    result: waterfall,
    createdAt: now,
    requestId: actor.requestId,
    actorId: actor.keyId,
  });
  write.recordEvent({
    type: "waterfall.calculated",
    idField: "waterfall_id",
    object: waterfall,
    matterId: matter.id,
  });
  return waterfall;
}

function presentWaterfall(
  result: CoreWaterfall,
  context: {
    id: string;
    matterId: string;
    livemode: boolean;
    currency: string;
    calculatedAt: string;
    totals: { recovered_cents: bigint; remitted_cents: bigint; remittable_cents: bigint };
  },
): Waterfall {
  const amount = (cents: bigint) => ({
    amount: numberOfCents(cents),
    currency: context.currency,
    valuation_time: context.calculatedAt,
  });
  const shareOfClaimant = new Map(result.inputs.claimants.map((claimant) => [claimant.claimant_id, claimant.share]));
  return {
    object: "waterfall",
    id: context.id,
    waterfall_id: context.id,
    matter_id: context.matterId,
    livemode: context.livemode,
    currency: context.currency,
    recovery_event_ids: result.inputs.recovery_events.map((event) => event.recovery_event_id),
    gross_recovered: amount(result.gross_cents),
    costs: Object.fromEntries(result.costs.map((cost) => [cost.name, numberOfCents(cost.applied_cents)])),
    cost_items: result.costs.map((cost) => ({
      name: cost.name,
      requested: numberOfCents(cost.requested_cents),
      applied: numberOfCents(cost.applied_cents),
    })),
    costs_total: numberOfCents(result.costs_total_cents),
    counsel_fee: amount(result.counsel_fee_cents),
    platform_economics: amount(result.platform_economics_cents),
    holdbacks: result.holdbacks.map((holdback) => ({
      reason: holdback.reason,
      claimant_id: holdback.claimant_id,
      amount: numberOfCents(holdback.amount_cents),
    })),
    holdbacks_total: numberOfCents(result.holdbacks_total_cents),
    distributable: numberOfCents(result.distributable_cents),
    claimant_distributions: result.claimant_distributions.map((distribution) => ({
      claimant_id: distribution.claimant_id,
      share: shareOfClaimant.get(distribution.claimant_id) ?? 0,
      amount: numberOfCents(distribution.amount_cents),
    })),
    rates: {
      counsel_fee_percentage: result.inputs.counsel_fee_percentage,
      platform_percentage: result.inputs.platform_percentage,
      holdback_percentage: result.inputs.holdback_percentage,
    },
    claimants: result.inputs.claimants.map((claimant) => ({
      claimant_id: claimant.claimant_id,
      share: claimant.share,
      status: claimant.status,
      sanctions_review: claimant.sanctions_review,
      payable: claimant.payable,
    })),
    remittance_constraints: {
      total_recovered: numberOfCents(context.totals.recovered_cents),
      total_remitted: numberOfCents(context.totals.remitted_cents),
      remittable: numberOfCents(context.totals.remittable_cents),
    },
    review_state: { review_required: true, review_status: "pending", review_owner: "", review_notes: "" },
    calculated_at: context.calculatedAt,
  };
}
