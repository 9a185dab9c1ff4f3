import {
  type AlertCandidate,
  alertsForCaseRecord,
  alertsForTransfer,
  alertsForWatchedAddress,
  calendarDateOf,
  checkMatterWritable,
  formatTimestamp,
  isReviewRequired,
  type Transfer,
} from "@crs/core";
import { schema, type Tenant, tenantRow, tenantScope } from "@crs/db";
import { and, eq, inArray, isNull, lt, or } from "drizzle-orm";
import { writeStamp } from "../../audit";
import { type ServiceDeps, sanctionsListFor, type WriteContext } from "../../context";
import type { TraceProviders, TraceSource } from "../../crypto/trace-providers";
import {
  computeJudgmentDeadlines,
  identifyDeadlines,
  loadPacketExportsForDeadlines,
} from "../../judgments/judgment-deadlines";
import { lockMatter } from "../../matters/load-matter";
import type { MatterRow } from "../../matters/present-matter";
import { systemActor } from "../../system-actor";
import { runWrite } from "../../write/run-write";
import { loadWatchlist, loadWatchlistAddresses } from "./load-monitoring";
import { recordMonitoringChange } from "./monitoring-events";
import { type AlertRow, presentAlert, type WatchlistRow } from "./present-monitoring";
import { recordWatchedAddressHits } from "./record-watched-hits";
import { listSweepTargets, type SweepTarget } from "./sweep-targets";

export const MONITORING_SWEEP_TASK = "monitoring.sweep";
/**
 * One sweep reads at most this many blocks per address: an address far behind (a new one on a live
 * chain, read from genesis) catches up over successive sweeps instead of one unbounded read.
 */
export const MAX_SWEEP_BLOCKS = 100_000n;
/**
 * One sweep takes at most about this many chain alerts per watchlist: it stops after the block at which
 * the count is reached, and that address's cursor stays at the last block it took whole (the addresses
 * after it are not read this time), so the rest is raised by the next sweeps. The first block an address
 * is read from is always taken whole, so a sweep always moves forward.
 */
export const MAX_SWEEP_ALERTS = 1_000;
const INSERT_BATCH = 500;

export interface SweepOptions {
  /** only this tenant's watchlists (tests, an operator); default every organization's */
  tenant?: Tenant;
  signal?: AbortSignal;
  /** the chain alerts one sweep takes per watchlist; default MAX_SWEEP_ALERTS */
  maxAlertsPerWatchlist?: number;
}

export interface WatchlistSweep {
  watchlist_id: string;
  organization_id: string;
  alerts_raised: number;
  /**
   * why the chain was not read (no provider for the environment, another chain, a closed matter), or why
   * the watchlist's sweep failed and wrote nothing (then `failed`); null when it was read
   */
  skipped: string | null;
  /** the watchlist's sweep failed (its write rolled back, the reason in `skipped`); the others still ran */
  failed: boolean;
  /** the alert bound stopped the chain read short of `finalized_block`: the next sweep continues */
  capped: boolean;
  /** the provider's finalized block the sweep read up to (an address far behind stops earlier); null when the chain was not read */
  finalized_block: string | null;
}

/**
 * The monitoring sweep: for each active watchlist, reads each watched address's transfers from the
 * environment's chain provider since the block it last read up to the provider's finalized block, and
 * the matter's case record; raises the alerts core's rules find. Each watchlist is one write under its
 * matter's lock; an alert is inserted with ON CONFLICT DO NOTHING on its fact, so a sweep run twice, or
 * two at once, raises each alert once.
 */
export async function sweepMonitoring(
  deps: ServiceDeps,
  providers: TraceProviders,
  options: SweepOptions = {},
): Promise<WatchlistSweep[]> {
  const targets = await listSweepTargets(deps.db, options.tenant);
  const results: WatchlistSweep[] = [];
  for (const target of targets) {
    options.signal?.throwIfAborted();
    try {
      results.push(await sweepWatchlist(deps, providers, target, options));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // One watchlist's failure (its write rolled back, its cursors where they were) is its own: it is
      // reported, and the watchlists after it are still swept.
      results.push({
        watchlist_id: target.watchlistId,
        organization_id: target.organizationId,
        alerts_raised: 0,
        skipped: `the sweep of this watchlist failed: ${failureReason(error)}`,
        failed: true,
        capped: false,
        finalized_block: null,
      });
    }
  }
  return results;
}

/** Why a watchlist's sweep failed, in a line: the database's own message rather than the query that failed. */
function failureReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const message = cause instanceof Error ? cause.message : String(cause);
  return message.length > 500 ? `${message.slice(0, 499)}…` : message;
}

interface ChainRead {
  candidates: AlertCandidate[];
  /** the block each read address is now swept to */
  sweptTo: Map<string, bigint>;
  /** the provider's finalized block when the sweep read it */
  head: bigint;
  /** the alert bound stopped the read before every address reached `head` */
  capped: boolean;
}

async function sweepWatchlist(
  deps: ServiceDeps,
  providers: TraceProviders,
  target: SweepTarget,
  options: SweepOptions,
): Promise<WatchlistSweep> {
  const { signal } = options;
  const tenant: Tenant = { organizationId: target.organizationId, environment: target.environment };
  const watchlist = await loadWatchlist(deps.db, tenant, target.watchlistId);
  const addresses = (await loadWatchlistAddresses(deps.db, tenant, [watchlist.id])).get(watchlist.id) ?? [];
  const source = tenant.environment === "sandbox" ? providers.sandbox() : providers.live;
  const sanctionsList = sanctionsListFor(deps.sanctionsLists, tenant.environment);

  let skipped: string | null = null;
  let chainRead: ChainRead | null = null;
  if (!source) skipped = "no chain data provider is configured for live organizations";
  else if (source.provider.network !== watchlist.chain) {
    skipped = `the configured chain provider serves ${source.provider.network}, not ${watchlist.chain}`;
  } else {
    try {
      chainRead = await readChain(
        source,
        watchlist,
        addresses,
        sanctionsList,
        options.maxAlertsPerWatchlist ?? MAX_SWEEP_ALERTS,
        signal,
      );
    } catch (error) {
      if (signal?.aborted) throw error;
      // A provider that fails leaves this watchlist's cursors where they are (the next sweep reads the same
      // blocks again); its case record and the other watchlists are still swept.
      skipped = `the chain provider failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  const actor = systemActor(tenant, MONITORING_SWEEP_TASK, deps.newId("request"));
  return runWrite(
    deps,
    actor,
    async (write) => {
      const locked = await lockMatter(write.tx, actor, watchlist.matterId);
      const current = await loadWatchlist(write.tx, actor, watchlist.id);
      const result = {
        watchlist_id: watchlist.id,
        organization_id: tenant.organizationId,
        alerts_raised: 0,
        skipped,
        failed: false,
        capped: chainRead?.capped ?? false,
        finalized_block: null as string | null,
      };
      // A matter that refuses writes (core's rule) takes no alerts either; its watchlists are not swept.
      if (checkMatterWritable(locked.status).refused || current.status !== "active")
        return { ...result, skipped: "the matter is closed" };
      // A watched address on the configured list is a sanctions hit of the matter (the hold), whatever the
      // chain and the thresholds say; recorded first, so this sweep's case record already shows it.
      const watched = addresses.map((row) => row.address);
      const { matter } = await recordWatchedAddressHits(write, locked, watchlist.id, watched);
      const addressCandidates = watched.flatMap((address) =>
        alertsForWatchedAddress(address, watchlist.chain, current.thresholds, sanctionsList),
      );
      const caseCandidates = alertsForCaseRecord(await readCaseRecord(write, matter), current.thresholds);
      const raised =
        (await raiseAlerts(write, matter, watchlist.id, watchlist.id, [
          ...addressCandidates,
          ...(chainRead?.candidates ?? []),
        ])) + (await raiseAlerts(write, matter, null, matter.id, caseCandidates));
      const now = write.clock();
      // Cursors only move forward: a concurrent sweep that read the same blocks leaves them where they are.
      const a = schema.watchlistAddresses;
      for (const [address, sweptTo] of chainRead?.sweptTo ?? []) {
        await write.tx
          .update(a)
          .set({ sweptToBlock: sweptTo })
          .where(
            and(
              tenantScope(a, actor),
              eq(a.watchlistId, watchlist.id),
              eq(a.address, address),
              or(isNull(a.sweptToBlock), lt(a.sweptToBlock, sweptTo)),
            ),
          );
      }
      await write.tx
        .update(schema.watchlists)
        .set({ lastSweptAt: now })
        .where(tenantRow(schema.watchlists, actor, watchlist.id));
      return {
        ...result,
        alerts_raised: raised,
        finalized_block: chainRead ? chainRead.head.toString() : null,
      };
    },
    { events: ["matter.updated"] },
  );
}

/**
 * Each address's transfers since its last swept block, up to the provider's finalized block (at most
 * MAX_SWEEP_BLOCKS of them), through core's rules, block by block until `maxAlerts` chain alerts are
 * taken: the address where that happens is swept to the last block taken, the ones after it not at all.
 */
async function readChain(
  source: TraceSource,
  watchlist: WatchlistRow,
  addresses: readonly { address: string; sweptToBlock: bigint | null }[],
  sanctionsList: Parameters<typeof alertsForTransfer>[2],
  maxAlerts: number,
  signal: AbortSignal | undefined,
): Promise<ChainRead> {
  const { provider } = source;
  const head = (await provider.head(signal)).finalized;
  const candidates: AlertCandidate[] = [];
  const sweptTo = new Map<string, bigint>();
  let capped = false;
  for (const { address, sweptToBlock } of addresses) {
    const fromBlock = sweptToBlock === null ? 0n : sweptToBlock + 1n;
    if (fromBlock > head) continue;
    if (candidates.length >= maxAlerts) {
      capped = true;
      break;
    }
    const toBlock = head < fromBlock + MAX_SWEEP_BLOCKS - 1n ? head : fromBlock + MAX_SWEEP_BLOCKS - 1n;
    const byBlock = new Map<bigint, AlertCandidate[]>();
    let cursor: string | null = null;
    do {
      const page = await provider.transfers({
        address,
        fromBlock,
        toBlock,
        cursor,
        ...(signal ? { signal } : {}),
      });
      for (const transfer of page.items) {
        const found = alertsForTransfer(
          watchedTransfer(source, address, transfer),
          watchlist.thresholds,
          sanctionsList,
        );
        byBlock.set(transfer.block, [...(byBlock.get(transfer.block) ?? []), ...found]);
      }
      cursor = page.next;
    } while (cursor !== null);
    // Whole blocks in order, while under the bound: the cursor never stops inside a block.
    let reached = toBlock;
    for (const block of [...byBlock.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (candidates.length >= maxAlerts) {
        reached = block - 1n;
        capped = true;
        break;
      }
      candidates.push(...(byBlock.get(block) ?? []));
    }
    if (reached >= fromBlock) sweptTo.set(address, reached);
    if (capped) break;
  }
  return { candidates, sweptTo, head, capped };
}

function watchedTransfer(source: TraceSource, address: string, transfer: Transfer) {
  const counterparty = transfer.from.toLowerCase() === address ? transfer.to : transfer.from;
  const issuer =
    transfer.asset.kind === "erc20" && transfer.asset.contract
      ? (source.issuers?.controlsFor(transfer.network, transfer.asset.contract)?.issuer ?? null)
      : null;
  return {
    network: transfer.network,
    watched_address: address,
    tx_hash: transfer.tx_hash,
    event_index: transfer.event_index,
    block: transfer.block,
    block_time: transfer.block_time,
    from: transfer.from,
    to: transfer.to,
    asset: transfer.asset,
    amount: transfer.amount,
    counterparty_labels: source.labels?.labelsFor(transfer.network, counterparty) ?? [],
    stablecoin_issuer: issuer,
  };
}

/** The matter's deadlines (with their ids), open sanctions hits and pending enforcement reviews, as of the clock. */
async function readCaseRecord(write: WriteContext, matter: MatterRow) {
  const { tx, actor } = write;
  const now = write.clock();
  const today = calendarDateOf(now);
  const j = schema.judgments;
  const judgments = await tx
    .select()
    .from(j)
    .where(and(tenantScope(j, actor), eq(j.matterId, matter.id)));
  const exports = await loadPacketExportsForDeadlines(
    tx,
    actor,
    judgments.map((judgment) => judgment.id),
  );
  const deadlines = [];
  for (const judgment of judgments) {
    const computed = computeJudgmentDeadlines(judgment, matter, today, exports.get(judgment.id) ?? []);
    deadlines.push(...(await identifyDeadlines(tx, { tenant: actor, newId: write.newId, now }, judgment, computed)));
  }
  const h = schema.sanctionsHits;
  const hits = await tx
    .select()
    .from(h)
    .where(and(tenantScope(h, actor), eq(h.matterId, matter.id), eq(h.status, "open")));
  const pending = judgments.filter((judgment) => isReviewRequired(judgment.reviewStatus));
  const e = schema.enforcementPostures;
  const postures =
    pending.length === 0
      ? []
      : await tx
          .select({ judgmentId: e.judgmentId, updatedAt: e.updatedAt })
          .from(e)
          .where(
            and(
              tenantScope(e, actor),
              inArray(
                e.judgmentId,
                pending.map((judgment) => judgment.id),
              ),
            ),
          );
  const postureAt = new Map(postures.map((posture) => [posture.judgmentId, formatTimestamp(posture.updatedAt)]));
  return {
    today,
    deadlines: deadlines.map((deadline) => ({ ...deadline, deadline_id: deadline.id })),
    open_sanctions_hits: hits.map((hit) => ({
      hit_id: hit.id,
      matched_value: hit.matchedValue,
      entry_value: hit.entryValue,
      entry_source: hit.entrySource,
    })),
    pending_reviews: pending.map((judgment) => ({
      judgment_id: judgment.id,
      case_number: judgment.caseNumber,
      // The posture records when the review was asked for; without one nothing does (the judgment's own
      // updated_at moves with every PATCH), and the pending review is one fact until it is cleared.
      since: postureAt.get(judgment.id) ?? null,
    })),
  };
}

/** Inserts the candidates not yet raised (ON CONFLICT DO NOTHING on their fact) and records each one raised. */
async function raiseAlerts(
  write: WriteContext,
  matter: MatterRow,
  watchlistId: string | null,
  sourceKey: string,
  candidates: readonly AlertCandidate[],
): Promise<number> {
  if (candidates.length === 0) return 0;
  const { tx, actor } = write;
  const now = write.clock();
  // One candidate per fact: the same transfer read twice (a watched address paying another) is one fact per address.
  const unique = [
    ...new Map(candidates.map((candidate) => [`${candidate.type}|${candidate.fact_key}`, candidate])).values(),
  ];
  const inserted: AlertRow[] = [];
  // In batches, so a busy address's history stays well under the statement's parameter limit.
  for (let start = 0; start < unique.length; start += INSERT_BATCH) {
    const rows = await tx
      .insert(schema.alerts)
      .values(
        unique.slice(start, start + INSERT_BATCH).map((candidate) => ({
          organizationId: actor.organizationId,
          environment: actor.environment,
          id: write.newId("alert"),
          matterId: matter.id,
          watchlistId,
          sourceKey,
          type: candidate.type,
          factKey: candidate.fact_key,
          fact: candidate.fact,
          severity: candidate.severity,
          status: "new" as const,
          target: candidate.target,
          reason: candidate.reason,
          createdAt: now,
          ...writeStamp(actor, now),
        })),
      )
      .onConflictDoNothing()
      .returning();
    inserted.push(...rows);
  }
  inserted.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const row of inserted) {
    const alert = presentAlert(row);
    recordMonitoringChange(write, matter, "alert.raised", { alert_id: alert.id, watchlist_id: watchlistId, alert });
  }
  return inserted.length;
}
