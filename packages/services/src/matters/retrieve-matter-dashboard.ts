import type { MatterDashboard, matterOperations, OperationInput } from "@crs/contract";
import {
  calendarDateOf,
  countAlerts,
  countOpenActions,
  deriveRecoveryPhase,
  FIAT_DECIMALS,
  formatTimestamp,
  fromMinorUnits,
  isPacketOpen,
  isReviewRequired,
  isStayInEffect,
  parseMinorUnits,
  sumActiveJudgmentAmounts,
} from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, desc, eq } from "drizzle-orm";
import type { ReadContext } from "../context";
import { computeJudgmentDeadlines, loadPacketExportsForDeadlines } from "../judgments/judgment-deadlines";
import { amountMinorOf } from "../judgments/present-judgment";
import { loadRecoveryEvents, loadRemittanceEvents } from "../ledger/ledger-queries";
import { countOpenSanctionsHits } from "../sanctions/record-sanctions-hits";
import { loadMatter } from "./load-matter";

/**
 * The matter's figures as of now, counted from the record: judgments, reviews, deadlines (packet
 * response deadlines included), sanctions alerts, packets, the ledger and the latest waterfall; crypto
 * exposure and the traced phase from its succeeded asset maps.
 */
export async function retrieveMatterDashboard(
  read: ReadContext,
  { params }: OperationInput<typeof matterOperations.dashboard>,
): Promise<MatterDashboard> {
  const matter = await loadMatter(read.db, read.actor, params.matter_id);
  const now = read.clock();
  const today = calendarDateOf(now);
  const j = schema.judgments;
  const m = schema.assetMaps;
  const p = schema.packets;
  const w = schema.waterfalls;
  const [judgments, sanctionsHits, succeededMaps, packets, recoveryEvents, remittances, [latestWaterfall]] =
    await Promise.all([
      read.db
        .select()
        .from(j)
        .where(and(tenantScope(j, read.actor), eq(j.matterId, matter.id))),
      countOpenSanctionsHits(read.db, read.actor, matter.id),
      read.db
        .select({ chain: m.chain, cents: m.exposureUsdCents })
        .from(m)
        .where(and(tenantScope(m, read.actor), eq(m.matterId, matter.id), eq(m.status, "succeeded")))
        .orderBy(desc(m.id)),
      read.db
        .select({ status: p.status })
        .from(p)
        .where(and(tenantScope(p, read.actor), eq(p.matterId, matter.id))),
      loadRecoveryEvents(read.db, read.actor, matter.id),
      loadRemittanceEvents(read.db, read.actor, matter.id),
      read.db
        .select({ platformEconomics: w.platformEconomics, currency: w.currency })
        .from(w)
        .where(and(tenantScope(w, read.actor), eq(w.matterId, matter.id)))
        .orderBy(desc(w.createdAt), desc(w.id))
        .limit(1),
    ]);
  // Known crypto exposure: the USD value of the token exposures of the latest succeeded map of each chain.
  const latestPerChain = new Map<string, bigint>();
  for (const map of succeededMaps) {
    if (!latestPerChain.has(map.chain)) latestPerChain.set(map.chain, map.cents ?? 0n);
  }
  const cryptoExposureCents = [...latestPerChain.values()].reduce((sum, cents) => sum + cents, 0n);
  const packetExports = await loadPacketExportsForDeadlines(
    read.db,
    read.actor,
    judgments.map((judgment) => judgment.id),
  );
  const deadlines = judgments.flatMap((judgment) =>
    computeJudgmentDeadlines(judgment, matter, today, packetExports.get(judgment.id) ?? []),
  );
  const pendingReviews = judgments.filter((judgment) => isReviewRequired(judgment.reviewStatus)).length;
  const staysInEffect = judgments.filter((judgment) =>
    isStayInEffect({ appeal_stay_status: judgment.appealStayStatus, bankruptcy_status: judgment.bankruptcyStatus }),
  ).length;

  const currency = matter.economics.currency;
  const valuationTime = formatTimestamp(now);
  const amountOf = (units: bigint, cur: string) => ({
    amount: fromMinorUnits(units, FIAT_DECIMALS),
    currency: cur,
    valuation_time: valuationTime,
  });
  const totals = sumActiveJudgmentAmounts(
    judgments.map((judgment) => ({
      status: judgment.status,
      amount_minor: amountMinorOf(judgment),
      currency: judgment.currency,
    })),
  );
  const otherCurrencies = [...totals.keys()].filter((code) => code !== currency).sort();
  const phase = deriveRecoveryPhase({
    status: matter.status,
    succeededTraces: succeededMaps.length,
    packets: packets.length,
    exportedPackets: packets.filter((packet) => packet.status !== "assembled").length,
    remittances: remittances.length,
    settled: recoveryEvents.some((event) => event.eventType === "settled"),
  });
  return {
    object: "matter_dashboard",
    matter_id: matter.id,
    judgment_value: amountOf(totals.get(currency) ?? 0n, currency),
    other_judgment_values: otherCurrencies.map((code) => amountOf(totals.get(code) ?? 0n, code)),
    known_crypto_exposure: amountOf(cryptoExposureCents, "USD"),
    open_actions: countOpenActions({ pendingReviews, deadlines, today }),
    open_packets: packets.filter((packet) => isPacketOpen(packet.status)).length,
    alerts: countAlerts({ sanctionsHits, staysInEffect, deadlines, today }),
    recovery_events: recoveryEvents.length,
    platform_economics: latestWaterfall
      ? amountOf(parseMinorUnits(latestWaterfall.platformEconomics, FIAT_DECIMALS), latestWaterfall.currency)
      : amountOf(0n, currency),
    ...phase,
    packets: packets.length,
    remittances: remittances.length,
  };
}
