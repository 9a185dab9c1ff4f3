import type { AmountFact, AssetRef, Network } from "./types";

/** `1500000n`, 6 → `"1.5"`. Exact; no trailing zeros; `"0"` for zero. */
export function formatBaseUnits(units: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0) throw new RangeError(`bad decimals: ${decimals}`);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** `"1.5"`, 6 → `1500000n`. Refuses exponents, signs other than a leading minus, and excess decimals. */
export function parseDecimalToBaseUnits(text: string, decimals: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`not a plain decimal: ${text}`);
  const [, sign = "", whole = "", fraction = ""] = match;
  if (fraction.length > decimals) throw new RangeError(`${text} has more than ${decimals} decimal places`);
  const units = BigInt(whole + fraction.padEnd(decimals, "0"));
  return sign ? -units : units;
}

/** An amount in the result: base units as an integer string, and the exact decimal when decimals are known. */
export interface ResultAmount {
  base_units: string;
  /** null when the token's decimals are unknown. */
  amount: string | null;
}

export function toResultAmount(units: bigint, asset: AssetRef): ResultAmount {
  return {
    base_units: units.toString(),
    amount: asset.decimals === null ? null : formatBaseUnits(units, asset.decimals),
  };
}

/** EVM-style networks compare addresses in lower case; others (base58, bech32 with case) as given. */
export function normalizeAddress(network: Network, address: string): string {
  return isHexAddressNetwork(network) ? address.toLowerCase() : address;
}

export function isHexAddressNetwork(network: Network): boolean {
  return network === "ethereum" || network.startsWith("evm:") || network.startsWith("synthetic:");
}

/** `native` or `erc20:<contract>`: the key under which per-asset settings and totals are kept. */
export function assetKey(asset: Pick<AssetRef, "kind" | "contract">): string {
  return asset.kind === "native" ? "native" : `erc20:${asset.contract}`;
}

/** A price for valuing an asset in USD, with where it came from. */
export interface UsdPrice {
  /** USD per whole unit of the asset, as a plain decimal string (e.g. `"1.00"`, `"3120.55"`). */
  usd_per_unit: string;
  as_of: string;
  source: string;
}

const PRICE_SCALE_DECIMALS = 18;

/**
 * USD value of `units` at `price`, rounded half-up to cents, as a decimal string.
 * Exact: the price is scaled to an integer and the product computed in bigint.
 */
export function valueInUsd(units: bigint, decimals: number, price: UsdPrice): string {
  const priceScaled = parseDecimalToBaseUnits(price.usd_per_unit, PRICE_SCALE_DECIMALS);
  const numerator = units * priceScaled;
  const denominator = 10n ** BigInt(decimals + PRICE_SCALE_DECIMALS - 2);
  const cents = (numerator + denominator / 2n) / denominator;
  return formatBaseUnits(cents, 2);
}

/**
 * A provider's balance read as a trace may rest on it: none when the provider gave none, or gave one
 * below zero, which no address can hold (a provider written against the interface may have a bug).
 */
export function usableBalance(fact: AmountFact | null | undefined): AmountFact | null {
  return fact && fact.amount >= 0n ? fact : null;
}
