import { apportionByQuotaMethod } from "./apportionment";
import { decimalPlaces, toMinorUnits } from "./money";
import { SHARE_DECIMALS, shareToUnits } from "./parties";

/**
 * The recovery waterfall: how a matter's recovered money is split, exact to the cent.
 *
 * All amounts are integer cents (bigint). Each tier takes its cut of what the tiers above it left:
 *
 *   gross        = sum of the chosen recovery events
 *   costs        come off first, each named cost in turn (names in code-unit order), capped at what is left
 *   counsel fee  = counsel_fee_percentage of (gross - costs)
 *   platform     = platform_percentage of (gross - costs - counsel fee)
 *   holdback     = holdback_percentage of (gross - costs - counsel fee - platform)
 *   distributable = what remains, split pro rata by claimant share
 *
 * Why the platform takes its percentage after the counsel fee rather than from the same base: with
 * each tier taking a percentage of what the tiers above left, no combination of valid percentages
 * (each 0..100) can take more money than exists, so no tier is ever negative and no extra rule
 * ("counsel + platform must not exceed 100") is needed; it is also the rule the holdback tier already
 * follows ("of what is left"). A matter whose economics are written the other way round restates the
 * platform percentage against the smaller base.
 *
 * Percentages are numbers 0..100 with at most two decimals and are applied as integer basis points
 * (12.5 % = 1250 bp). A percentage of an amount is rounded DOWN to the cent: a fee or a holdback never
 * exceeds its agreed percentage, and the sub-cent residue flows on to the claimants. Because each
 * tier takes at most 100 % of its base and rounds down, every tier and every remainder grows by 0 or 1
 * cent when the gross grows by 1 cent: no part of the waterfall ever shrinks when the gross grows.
 *
 * Claimant shares are numbers 0..1 with at most six decimals, applied as integer millionths; the
 * shares of one matter sum to at most 1. The distributable amount is apportioned among every claimant
 * with a positive share plus, when the shares sum below 1, an "unallocated" part holding the missing
 * millionths (it goes to holdbacks). A claimant who cannot be paid (status other than `active`, or
 * under sanctions review) is apportioned exactly like the others, and that amount is held back under
 * the claimant's id, so it is the amount the claimant receives once cleared.
 *
 * Rounding of the pro-rata split: the quota method of Balinski and Young (see apportionment.ts), not
 * largest remainder. Largest remainder can pay a claimant less when the gross grows (the Alabama
 * paradox: shares 0.428571/0.428571/0.142858 get 4/4/2 cents of 10 but 5/5/1 of 11). The quota method
 * keeps everything largest remainder promised (parts sum to the distributable amount exactly, every
 * claimant within one cent of its exact pro-rata amount, ties to the earlier-created claimant) and
 * adds that no claimant ever gets less when the gross grows. Nothing is left over, so no `rounding`
 * holdback is needed. Its cost does not depend on the amount (10^12 cents cost no more than 10^6).
 */

export const BASIS_POINTS_PER_WHOLE = 10_000n;
export const SHARE_MILLIONTHS_PER_WHOLE = 10n ** BigInt(SHARE_DECIMALS);

export interface WaterfallRecoveryEvent {
  recovery_event_id: string;
  gross_amount_cents: bigint;
}

export interface WaterfallClaimant {
  claimant_id: string;
  /** 0..1, at most six decimals. */
  share: number;
  /** Party status; only `active` claimants are paid. */
  status: string;
  /** True while the claimant (or one of its wallets) awaits sanctions clearance. */
  sanctions_review: boolean;
}

export interface WaterfallInput {
  recovery_events: readonly WaterfallRecoveryEvent[];
  /** Cost name → amount in cents. */
  costs: Readonly<Record<string, bigint>>;
  /** Percentages 0..100 with at most two decimals. */
  counsel_fee_percentage: number;
  platform_percentage: number;
  holdback_percentage: number;
  /** The matter's claimants in creation order (earlier first: it wins rounding ties). */
  claimants: readonly WaterfallClaimant[];
}

export interface WaterfallCost {
  name: string;
  requested_cents: bigint;
  /** What was actually taken: less than requested only when the gross ran out. */
  applied_cents: bigint;
}

export const WATERFALL_HOLDBACK_REASONS = [
  "holdback_percentage",
  "claimant_sanctions_review",
  "claimant_not_active",
  "unallocated_share",
] as const;
export type WaterfallHoldbackReason = (typeof WATERFALL_HOLDBACK_REASONS)[number];

export interface WaterfallHoldback {
  reason: WaterfallHoldbackReason;
  /** The claimant whose distribution is held, for the claimant reasons; null otherwise. */
  claimant_id: string | null;
  amount_cents: bigint;
}

export interface WaterfallDistribution {
  claimant_id: string;
  amount_cents: bigint;
}

export interface WaterfallClaimantEcho {
  claimant_id: string;
  share: number;
  share_millionths: bigint;
  status: string;
  sanctions_review: boolean;
  payable: boolean;
}

export interface Waterfall {
  gross_cents: bigint;
  costs: WaterfallCost[];
  costs_total_cents: bigint;
  counsel_fee_cents: bigint;
  platform_economics_cents: bigint;
  /** What was split pro rata among the claimants (and the unallocated part). */
  distributable_cents: bigint;
  /** Payable claimants only, in creation order. */
  claimant_distributions: WaterfallDistribution[];
  /** In order: the percentage holdback, one per unpaid claimant (creation order), the unallocated share. */
  holdbacks: WaterfallHoldback[];
  holdbacks_total_cents: bigint;
  /** The inputs as used, with the exact integer forms of the rates and shares. */
  inputs: {
    recovery_events: WaterfallRecoveryEvent[];
    costs: Record<string, bigint>;
    counsel_fee_percentage: number;
    platform_percentage: number;
    holdback_percentage: number;
    counsel_fee_basis_points: bigint;
    platform_basis_points: bigint;
    holdback_basis_points: bigint;
    claimants: WaterfallClaimantEcho[];
    unallocated_share_millionths: bigint;
  };
}

/** 12.5 → 1250n. Throws unless 0 <= percentage <= 100 with at most two decimals. */
export function percentageToBasisPoints(percentage: number): bigint {
  if (!Number.isFinite(percentage) || percentage < 0 || percentage > 100 || decimalPlaces(percentage) > 2) {
    throw new RangeError(`a percentage must be between 0 and 100 with at most two decimals, got ${percentage}`);
  }
  return toMinorUnits(percentage, 2);
}

/** `basisPoints` of `amount`, rounded down to the cent. */
export function takePercentage(amountCents: bigint, basisPoints: bigint): bigint {
  return (amountCents * basisPoints) / BASIS_POINTS_PER_WHOLE;
}

/** A claimant is paid only when active and not under sanctions review. */
export function isClaimantPayable(claimant: Pick<WaterfallClaimant, "status" | "sanctions_review">): boolean {
  return claimant.status === "active" && !claimant.sanctions_review;
}

export function calculateWaterfall(input: WaterfallInput): Waterfall {
  const counselBasisPoints = percentageToBasisPoints(input.counsel_fee_percentage);
  const platformBasisPoints = percentageToBasisPoints(input.platform_percentage);
  const holdbackBasisPoints = percentageToBasisPoints(input.holdback_percentage);

  for (const event of input.recovery_events) {
    if (event.gross_amount_cents < 0n) throw new RangeError(`recovery event ${event.recovery_event_id} is negative`);
  }
  const gross = input.recovery_events.reduce((sum, event) => sum + event.gross_amount_cents, 0n);

  let left = gross;
  const costs = Object.keys(input.costs)
    .sort()
    .map((name): WaterfallCost => {
      const requested = input.costs[name]!;
      if (requested < 0n) throw new RangeError(`cost ${name} is negative`);
      const applied = smallerOf(requested, left);
      left -= applied;
      return { name, requested_cents: requested, applied_cents: applied };
    });
  const costsTotal = gross - left;

  const counselFee = takePercentage(left, counselBasisPoints);
  left -= counselFee;
  const platform = takePercentage(left, platformBasisPoints);
  left -= platform;
  const percentageHoldback = takePercentage(left, holdbackBasisPoints);
  left -= percentageHoldback;
  const distributable = left;

  const claimants = echoClaimants(input.claimants);
  const allocatedMillionths = claimants.reduce((sum, claimant) => sum + claimant.share_millionths, 0n);
  if (allocatedMillionths > SHARE_MILLIONTHS_PER_WHOLE) {
    throw new RangeError("claimant shares of one matter must not sum above 1");
  }
  const unallocatedMillionths = SHARE_MILLIONTHS_PER_WHOLE - allocatedMillionths;
  const parts = apportionByQuotaMethod(distributable, [
    ...claimants.map((claimant) => claimant.share_millionths),
    unallocatedMillionths,
  ]);

  const holdbacks: WaterfallHoldback[] = [];
  if (holdbackBasisPoints > 0n) {
    holdbacks.push({ reason: "holdback_percentage", claimant_id: null, amount_cents: percentageHoldback });
  }
  const distributions: WaterfallDistribution[] = [];
  claimants.forEach((claimant, i) => {
    const amount = parts[i]!;
    if (claimant.payable) distributions.push({ claimant_id: claimant.claimant_id, amount_cents: amount });
    else {
      const reason = claimant.sanctions_review ? "claimant_sanctions_review" : "claimant_not_active";
      holdbacks.push({ reason, claimant_id: claimant.claimant_id, amount_cents: amount });
    }
  });
  if (unallocatedMillionths > 0n) {
    holdbacks.push({ reason: "unallocated_share", claimant_id: null, amount_cents: parts[claimants.length]! });
  }
  const holdbacksTotal = holdbacks.reduce((sum, holdback) => sum + holdback.amount_cents, 0n);
  const distributed = distributions.reduce((sum, distribution) => sum + distribution.amount_cents, 0n);
  if (costsTotal + counselFee + platform + holdbacksTotal + distributed !== gross) {
    throw new Error("waterfall invariant broken: the parts do not sum to the gross");
  }

  return {
    gross_cents: gross,
    costs,
    costs_total_cents: costsTotal,
    counsel_fee_cents: counselFee,
    platform_economics_cents: platform,
    distributable_cents: distributable,
    claimant_distributions: distributions,
    holdbacks,
    holdbacks_total_cents: holdbacksTotal,
    inputs: {
      recovery_events: input.recovery_events.map((event) => ({ ...event })),
      costs: { ...input.costs },
      counsel_fee_percentage: input.counsel_fee_percentage,
      platform_percentage: input.platform_percentage,
      holdback_percentage: input.holdback_percentage,
      counsel_fee_basis_points: counselBasisPoints,
      platform_basis_points: platformBasisPoints,
      holdback_basis_points: holdbackBasisPoints,
      claimants,
      unallocated_share_millionths: unallocatedMillionths,
    },
  };
}

function echoClaimants(claimants: readonly WaterfallClaimant[]): WaterfallClaimantEcho[] {
  const seen = new Set<string>();
  return claimants.map((claimant) => {
    if (seen.has(claimant.claimant_id)) throw new RangeError(`claimant ${claimant.claimant_id} is listed twice`);
    seen.add(claimant.claimant_id);
    return {
      claimant_id: claimant.claimant_id,
      share: claimant.share,
      share_millionths: shareToUnits(claimant.share),
      status: claimant.status,
      sanctions_review: claimant.sanctions_review,
      payable: isClaimantPayable(claimant),
    };
  });
}

/** Math.min for bigints (Math.min itself throws on them). */
function smallerOf(a: bigint, b: bigint): bigint {
  if (a < b) return a;
  return b;
}
