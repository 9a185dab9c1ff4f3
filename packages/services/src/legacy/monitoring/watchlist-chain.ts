import { AppError } from "@crs/contract";
import type { Environment } from "@crs/core";
import { DEFAULT_LIVE_CHAIN, SANDBOX_CHAIN } from "../../jobs/trace-input";

const LIVE_CHAIN = /^(ethereum|evm:[1-9][0-9]{0,9})$/;

/** The chain a watchlist watches: the synthetic chain in the sandbox, ethereum or an EVM chain id live. */
export function watchlistChainOf(chains: readonly string[] | undefined, environment: Environment): string {
  const chain = chains?.[0] ?? (environment === "sandbox" ? SANDBOX_CHAIN : DEFAULT_LIVE_CHAIN);
  const refuse = (message: string, allowed?: readonly string[]) =>
    new AppError("invalid_request", {
      message: `Invalid chains.0 (${message}).`,
      param: "chains.0",
      details: {
        invalid: [{ param: "chains.0", message, ...(allowed ? { allowed } : {}) }],
        ...(allowed ? { allowed } : {}),
      },
    });
  if (environment === "sandbox" && chain !== SANDBOX_CHAIN) {
    throw refuse(`sandbox watchlists read the synthetic chain: must be ${SANDBOX_CHAIN}`, [SANDBOX_CHAIN]);
  }
  if (environment === "live" && !LIVE_CHAIN.test(chain)) throw refuse("must be ethereum or evm:<chain id>");
  return chain;
}
