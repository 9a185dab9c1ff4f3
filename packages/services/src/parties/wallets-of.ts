import { AppError, type WalletInput } from "@crs/contract";
import { normalizeWallets, type Wallet } from "@crs/core";
import type { z } from "zod";

/** The wallets as stored: a plain address becomes `{address, network: null, label: null}`. */
export function walletsOf(inputs: readonly z.output<typeof WalletInput>[]): Wallet[] {
  const normalized = normalizeWallets(inputs);
  if (normalized.ok) return normalized.wallets;
  // The body schema refuses blank addresses first; this is the same rule, named per wallet.
  const invalid = normalized.problems.map(({ index }) => ({ param: `wallets.${index}`, message: "must not be blank" }));
  throw new AppError("invalid_request", {
    message: `Invalid ${invalid.map((field) => `${field.param} (${field.message})`).join("; ")}.`,
    param: invalid[0]?.param ?? "wallets",
    details: { invalid },
  });
}
