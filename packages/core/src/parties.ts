import { decimalPlaces, fromMinorUnits, toMinorUnits } from "./money";

export const PARTY_ROLES = ["claimant", "debtor", "counterparty"] as const;
export type PartyRole = (typeof PARTY_ROLES)[number];

export const PARTY_TYPES = ["individual", "entity", "exchange", "issuer", "custodian", "receiver", "other"] as const;
export type PartyType = (typeof PARTY_TYPES)[number];

/**
 * `active` on create; `inactive` when the matter no longer acts for or against the party
 * (a claimant withdrew, a debtor was dismissed). Nothing else is a status: "under sanctions
 * review" is derived from screening hits and cleared only by a reviewer, so it must not be a
 * value a caller could PATCH away.
 */
export const PARTY_STATUSES = ["active", "inactive"] as const;
export type PartyStatus = (typeof PARTY_STATUSES)[number];

// ---------------------------------------------------------------------------------------------
// Claimant shares

/** A share is a number from 0 to 1 with at most 6 decimal places (one millionth). */
export const SHARE_DECIMALS = 6;
const WHOLE_SHARE_UNITS = 10n ** BigInt(SHARE_DECIMALS);

export type ShareProblem = "not_finite" | "out_of_range" | "too_precise";

/** Why a share value is unacceptable, or null when it is a valid share. */
export function findShareProblem(share: number): ShareProblem | null {
  if (!Number.isFinite(share)) return "not_finite";
  if (share < 0 || share > 1) return "out_of_range";
  if (decimalPlaces(share) > SHARE_DECIMALS) return "too_precise";
  return null;
}

/** `0.25` → `250000n` millionths. Throws a RangeError for an invalid share. */
export function shareToUnits(share: number): bigint {
  const problem = findShareProblem(share);
  if (problem) throw new RangeError(`invalid share ${share}: ${problem}`);
  return toMinorUnits(share, SHARE_DECIMALS);
}

/** `250000n` millionths → `0.25`. */
export function unitsToShare(units: bigint): number {
  return fromMinorUnits(units, SHARE_DECIMALS);
}

export type ClaimantShareCheck =
  /** `total` is the matter's claimant total with the proposed share; `available` what the others leave. */
  | { ok: true; total: number; available: number }
  | { ok: false; reason: "total_above_one"; total: number; available: number }
  | { ok: false; reason: "invalid_share"; share: number; problem: ShareProblem };

/**
 * Claimant shares of one matter never sum above 1. Given the shares of every other claimant
 * (a claimant without a share counts as 0) and the proposed one, says whether the total stays
 * within 1. Sums are taken in integer millionths, so 0.1 + 0.2 + 0.7 is exactly 1.
 */
export function checkClaimantShareTotal(
  otherShares: readonly (number | null | undefined)[],
  proposedShare: number | null | undefined,
): ClaimantShareCheck {
  for (const share of [...otherShares, proposedShare]) {
    if (share === null || share === undefined) continue;
    const problem = findShareProblem(share);
    if (problem) return { ok: false, reason: "invalid_share", share, problem };
  }
  const othersUnits = otherShares.reduce<bigint>((sum, share) => sum + (share == null ? 0n : shareToUnits(share)), 0n);
  const totalUnits = othersUnits + (proposedShare == null ? 0n : shareToUnits(proposedShare));
  const availableUnits = othersUnits >= WHOLE_SHARE_UNITS ? 0n : WHOLE_SHARE_UNITS - othersUnits;
  const total = unitsToShare(totalUnits);
  const available = unitsToShare(availableUnits);
  return totalUnits <= WHOLE_SHARE_UNITS
    ? { ok: true, total, available }
    : { ok: false, reason: "total_above_one", total, available };
}

// ---------------------------------------------------------------------------------------------
// Wallets

export interface Wallet {
  address: string;
  /** The chain as the caller named it; null when the caller did not say. Never guessed. */
  network: string | null;
  label: string | null;
}

/** A caller may send a wallet object or just its address. */
export type WalletInput = string | { address: string; network?: string | null; label?: string | null };

export type WalletNormalization = { ok: true; wallet: Wallet } | { ok: false; problem: "address_blank" };

/**
 * Brings a wallet to its stored form. A plain string becomes `{ address, network: null,
 * label: null }`: the network is not inferred from the address format, because one address
 * format serves many chains (the same 0x address exists on every EVM chain) and a guess would
 * record a fact nobody stated. Surrounding whitespace is trimmed; a blank network or label is
 * null; the address keeps its case (an EVM checksum is information).
 */
export function normalizeWallet(input: WalletInput): WalletNormalization {
  const raw = typeof input === "string" ? { address: input } : input;
  const address = raw.address.trim();
  if (address === "") return { ok: false, problem: "address_blank" };
  return { ok: true, wallet: { address, network: blankToNull(raw.network), label: blankToNull(raw.label) } };
}

export type WalletsNormalization =
  | { ok: true; wallets: Wallet[] }
  | { ok: false; problems: { index: number; problem: "address_blank" }[] };

/** Normalizes every wallet of a list, naming each refused one by its index. */
export function normalizeWallets(inputs: readonly WalletInput[]): WalletsNormalization {
  const wallets: Wallet[] = [];
  const problems: { index: number; problem: "address_blank" }[] = [];
  inputs.forEach((input, index) => {
    const result = normalizeWallet(input);
    if (result.ok) wallets.push(result.wallet);
    else problems.push({ index, problem: result.problem });
  });
  return problems.length === 0 ? { ok: true, wallets } : { ok: false, problems };
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function isEvmAddress(address: string): boolean {
  return EVM_ADDRESS.test(address.trim());
}

/**
 * The form in which two addresses are compared: an EVM 0x address in lower case (its mixed
 * case is only a checksum), any other address exactly as written apart from surrounding
 * whitespace (Base58 addresses are case-sensitive).
 */
export function addressComparisonKey(address: string): string {
  const trimmed = address.trim();
  return EVM_ADDRESS.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}

export function sameAddress(a: string, b: string): boolean {
  return addressComparisonKey(a) === addressComparisonKey(b);
}

function blankToNull(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}
