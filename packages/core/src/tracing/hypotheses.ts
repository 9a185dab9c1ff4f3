import { pickDecidingLabel } from "./labels";
import { amountOf, firstIncidentAtOrAfter, incidentPositionOf, type TransferGraph } from "./transfer-graph";
import type { AddressLabel } from "./types";

/**
 * Exchange hypotheses: where an exchange (or another service) can be asked about the funds.
 *
 * Bases, strongest first:
 * - `labeled_service_address`: tainted value reached an address labelled as the exchange.
 * - `deposit_address_sweep`: an unlabelled address forwarded everything it received, within the
 *   sweep window after each deposit, to addresses of one labelled exchange (tokens: exactly; the
 *   native coin: short by at most the gas allowance). It is then most likely a customer deposit
 *   address of that exchange, which is what the exchange needs to identify the account holder
 *   (address clustering heuristic of Victor, "Address Clustering Heuristics for Ethereum", FC 2020).
 * - `behavioral_only`: an unlabelled hub (very many transfers) took the funds. Never packet-ready.
 */
export type HypothesisBasis = "labeled_service_address" | "deposit_address_sweep" | "behavioral_only";
export type Confidence = "high" | "medium" | "low";
export type PacketReadiness = "ready" | "needs_review" | "insufficient";

export interface SweepAssetEvidence {
  asset: number;
  inflows: number;
  outflows: number;
  received: bigint;
  swept: bigint;
  /** Longest time from a deposit to the sweep that followed it, in seconds. */
  longest_delay_seconds: number;
  /** Token swept exactly; false for the native coin (gas comes out of the balance). */
  exact: boolean;
}

export interface DepositSweepEvidence {
  assets: SweepAssetEvidence[];
  /** true when the first native coin that reached the address came from the same exchange; null when no native inflow was read. */
  gas_funded_by_exchange: boolean | null;
  sweep_events: number[];
}

const isExchangeLabel = (label: AddressLabel | null, entity: string) =>
  label !== null && label.entity === entity && (label.category === "exchange" || label.category === "exchange_deposit");

/**
 * Applies the deposit-address sweep rule to an open, unlabelled address, over its transfers from the
 * one that opened its ledger (`fromEvent`, with the ledger's opening balances); null when it does not hold.
 */
export function checkDepositSweep(input: {
  graph: TransferGraph;
  node: number;
  fromEvent: number;
  entity: string;
  labelsOf: (node: number) => readonly AddressLabel[];
  openingOf: (asset: number) => bigint | null;
  windowSeconds: number;
  nativeGasAllowance: bigint;
  lastBlock: number;
}): DepositSweepEvidence | null {
  const { graph, node, entity } = input;
  const { from, to, time, asset } = graph;
  const start = incidentPositionOf(graph, node, input.fromEvent);
  const end = firstIncidentAtOrAfter(graph, node, input.lastBlock + 1, Number.NEGATIVE_INFINITY);
  /**
   * Per asset, the deposits in order with the running total through each: a deposit is forwarded once
   * the outflows so far reach that total (less the gas allowance for the native coin), and the wait is
   * measured from its arrival to that outflow. What the address held when its ledger opened arrived at a
   * time this scan does not know (NaN): if it must be forwarded too, the rule cannot be shown to hold.
   */
  type Tally = SweepAssetEvidence & {
    balance: bigint;
    deposited: bigint;
    forwarded: bigint;
    slack: bigint;
    depositTime: number[];
    depositedThrough: bigint[];
    next: number;
  };
  /**
   * Settles, at time `at`, the deposits the outflows so far cover; false when one waited longer than the
   * window. On a deposit it settles only that deposit, when nothing needs to forward it (zero, or native
   * dust within the gas allowance): any earlier one still waiting was not covered at the last outflow,
   * and neither total has moved since.
   */
  const settle = (tally: Tally, at: number): boolean => {
    while (
      tally.next < tally.depositTime.length &&
      tally.forwarded >= tally.depositedThrough[tally.next]! - tally.slack
    ) {
      const wait = at - tally.depositTime[tally.next]!;
      if (!(wait >= 0 && wait <= input.windowSeconds)) return false;
      tally.longest_delay_seconds = Math.max(tally.longest_delay_seconds, wait);
      tally.next++;
    }
    return true;
  };
  const tallies = new Map<number, Tally>();
  const sweepEvents: number[] = [];
  let gasFunded: boolean | null = null;
  for (let i = start; i < end; i++) {
    const e = graph.incident[i]!;
    const a = asset[e]!;
    let tally = tallies.get(a);
    if (!tally) {
      const native = graph.assets[a]!.kind === "native";
      const opening = input.openingOf(a) ?? 0n;
      const slack = native ? input.nativeGasAllowance : 0n;
      tally = {
        asset: a,
        inflows: 0,
        outflows: 0,
        received: 0n,
        swept: 0n,
        longest_delay_seconds: 0,
        exact: !native,
        balance: opening,
        deposited: opening,
        forwarded: 0n,
        slack,
        depositTime: opening > slack ? [Number.NaN] : [],
        depositedThrough: opening > slack ? [opening] : [],
        next: 0,
      };
      tallies.set(a, tally);
    }
    const amount = amountOf(graph, e);
    if (to[e] === node && from[e] !== node) {
      tally.inflows++;
      tally.received += amount;
      tally.balance += amount;
      tally.deposited += amount;
      tally.depositTime.push(time[e]!);
      tally.depositedThrough.push(tally.deposited);
      settle(tally, time[e]!);
      if (gasFunded === null && graph.assets[a]!.kind === "native") {
        gasFunded = isExchangeLabel(pickDecidingLabel(input.labelsOf(from[e]!), time[e]!), entity);
      }
    } else if (from[e] === node && to[e] !== node) {
      if (!isExchangeLabel(pickDecidingLabel(input.labelsOf(to[e]!), time[e]!), entity)) return null;
      tally.forwarded += amount;
      if (!settle(tally, time[e]!)) return null;
      tally.outflows++;
      tally.swept += amount;
      tally.balance -= amount;
      sweepEvents.push(e);
    }
  }
  const assets: SweepAssetEvidence[] = [];
  for (const tally of tallies.values()) {
    const native = graph.assets[tally.asset]!.kind === "native";
    if (tally.outflows === 0) {
      if (native || tally.inflows === 0) continue;
      return null;
    }
    if (native ? tally.balance < 0n || tally.balance > input.nativeGasAllowance : tally.balance !== 0n) return null;
    const {
      balance: _balance,
      deposited: _deposited,
      forwarded: _forwarded,
      slack: _slack,
      depositTime: _times,
      depositedThrough: _through,
      next: _next,
      ...evidence
    } = tally;
    assets.push(evidence);
  }
  if (assets.length === 0) return null;
  assets.sort((a, b) => a.asset - b.asset);
  return { assets, gas_funded_by_exchange: gasFunded, sweep_events: sweepEvents };
}

/** Label confidence ≥ 60 and path ≥ 0.8 with a direct label or an exact sweep: high; ≥ 40 and ≥ 0.5: medium. */
export function scoreHypothesis(
  basis: HypothesisBasis,
  labelConfidence: number,
  pathConfidence: number,
  exact: boolean,
): Confidence {
  if (basis === "behavioral_only") return "low";
  const strongBasis = basis === "labeled_service_address" || exact;
  if (labelConfidence >= 60 && pathConfidence >= 0.8 && strongBasis) return "high";
  if (labelConfidence >= 40 && pathConfidence >= 0.5) return "medium";
  return "low";
}

/**
 * `ready` needs all of: high confidence, every edge on the path final with a provider record, a
 * label with a dereferenceable source and an as-of date, and a live (not synthetic) chain.
 * Whatever is missing is listed; a behavioural guess alone is `insufficient`.
 */
export function assessReadiness(input: {
  basis: HypothesisBasis;
  confidence: Confidence;
  pathFinal: boolean;
  label: AddressLabel | null;
  providerKind: string;
}): { readiness: PacketReadiness; reasons: string[] } {
  if (input.basis === "behavioral_only") {
    return { readiness: "insufficient", reasons: ["only a behavioural pattern, no attribution"] };
  }
  const reasons: string[] = [];
  if (input.confidence !== "high") reasons.push(`confidence is ${input.confidence}`);
  if (!input.pathFinal) reasons.push("a transfer on the path is not final yet");
  if (!input.label?.source.uri) reasons.push("the label has no dereferenceable source");
  if (!input.label?.source.as_of) reasons.push("the label has no as-of date");
  if (input.providerKind !== "live") reasons.push(`chain data is ${input.providerKind}, not live`);
  return { readiness: reasons.length === 0 ? "ready" : "needs_review", reasons };
}
