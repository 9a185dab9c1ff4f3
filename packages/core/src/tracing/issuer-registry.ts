import { normalizeAddress } from "./amounts";
import type { FreezeCheckMethod, Network } from "./types";

/**
 * What an issuer can do to a holder's tokens on chain, from the token contract itself, with the
 * document that says so. Freeze facts come from the contract source, never from secondary pages.
 */
export interface IssuerControls {
  network: Network;
  /** Token contract in the network's normal form. */
  contract: string;
  issuer: string;
  symbol: string;
  /** Contract function that reads the freeze list at a block; null when there is none. */
  freeze_check: FreezeCheckMethod | null;
  /** Functions that add/remove an address to/from the freeze list, and who may call them. */
  freeze_functions: string[];
  freeze_role: string;
  /** Function that destroys or wipes a frozen holder's balance; null when the contract has none. */
  seize_function: string | null;
  /** Off-chain policy conditions, e.g. what legal process the issuer requires. */
  policy_notes: string | null;
  /** What an operator may ask for; always reviewed by a person before use. */
  remediation: string[];
  source: { title: string; uri: string; as_of: string };
  synthetic: boolean;
}

/**
 * The documented controls of the main fiat-backed stablecoins. Each entry cites the contract
 * source it was read from; `as_of` is when that source was read.
 */
export const KNOWN_ISSUER_CONTROLS: readonly IssuerControls[] = [
  {
    network: "ethereum",
    contract: "0xdac17f958d2ee523a2206206994597c13d831ec7",
    issuer: "Tether",
    symbol: "USDT",
    freeze_check: "isBlackListed",
    freeze_functions: ["addBlackList(address)", "removeBlackList(address)"],
    freeze_role: "contract owner",
    seize_function: "destroyBlackFunds(address)",
    policy_notes: "The owner can blacklist an address and then destroy its balance (event DestroyedBlackFunds).",
    remediation: ["Ask Tether to blacklist the holding address (issuer freeze request)."],
    source: {
      title: "TetherToken contract source, verified at 0xdAC17F958D2ee523a2206206994597C13D831ec7",
      uri: "https://etherscan.io/address/0xdac17f958d2ee523a2206206994597c13d831ec7#code",
      as_of: "2026-07-05",
    },
    synthetic: false,
  },
  {
    network: "tron",
    contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    issuer: "Tether",
    symbol: "USDT",
    freeze_check: "isBlackListed",
    freeze_functions: ["addBlackList(address)", "removeBlackList(address)"],
    freeze_role: "contract owner",
    seize_function: "destroyBlackFunds(address)",
    policy_notes: "Same TetherToken controls as on Ethereum.",
    remediation: ["Ask Tether to blacklist the holding address (issuer freeze request)."],
    source: {
      title: "TRON USDT (TRC-20) contract TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      uri: "https://tronscan.org/#/token20/TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      as_of: "2026-07-05",
    },
    synthetic: false,
  },
  {
    network: "ethereum",
    contract: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
    issuer: "Circle",
    symbol: "USDC",
    freeze_check: "isBlacklisted",
    freeze_functions: ["blacklist(address)", "unBlacklist(address)"],
    freeze_role: "blacklister (set by the owner with updateBlacklister)",
    seize_function: null,
    policy_notes:
      "FiatToken can only blocklist: it has no function that seizes or burns a blocked balance. " +
      "Circle's access denial policy asks for a U.S. court order before it blocklists an address.",
    remediation: ["Ask Circle to blocklist the holding address; prepare a U.S. court order."],
    source: {
      title: "circlefin/stablecoin-evm contracts/v1/Blacklistable.sol and contracts/v2/FiatTokenV2_2.sol",
      uri: "https://github.com/circlefin/stablecoin-evm/blob/master/contracts/v1/Blacklistable.sol",
      as_of: "2026-07-05",
    },
    synthetic: false,
  },
  {
    network: "ethereum",
    contract: "0x8e870d67f660d95d5be530380d0ec0bd388289e1",
    issuer: "Paxos",
    symbol: "USDP",
    freeze_check: "isFrozen",
    freeze_functions: ["freeze(address)", "unfreeze(address)"],
    freeze_role: "assetProtectionRole",
    seize_function: "wipeFrozenAddress(address)",
    policy_notes: "The asset protection role can freeze an address and then wipe its balance.",
    remediation: ["Ask Paxos to freeze the holding address (asset protection request)."],
    source: {
      title: "paxosglobal/usdp-contracts README, asset protection section",
      uri: "https://github.com/paxosglobal/usdp-contracts#asset-protection-role",
      as_of: "2026-07-05",
    },
    synthetic: false,
  },
];

export interface IssuerRegistry {
  controlsFor(network: Network, contract: string): IssuerControls | null;
  readonly entries: readonly IssuerControls[];
}

export function createIssuerRegistry(entries: Iterable<IssuerControls> = KNOWN_ISSUER_CONTROLS): IssuerRegistry {
  const byKey = new Map<string, IssuerControls>();
  for (const entry of entries) {
    const key = `${entry.network}|${normalizeAddress(entry.network, entry.contract)}`;
    if (byKey.has(key)) throw new Error(`duplicate issuer registry entry: ${key}`);
    byKey.set(key, { ...entry, contract: normalizeAddress(entry.network, entry.contract) });
  }
  const list = [...byKey.values()];
  return {
    entries: list,
    controlsFor(network, contract) {
      return byKey.get(`${network}|${normalizeAddress(network, contract)}`) ?? null;
    },
  };
}

/** A human-readable sentence on what the issuer can do, for `freeze_capability_notes`. */
export function describeFreezeCapability(controls: IssuerControls): string {
  const freeze = `${controls.issuer} can freeze ${controls.symbol} holdings on chain (${controls.freeze_functions.join(", ")}; caller: ${controls.freeze_role}).`;
  const seize = controls.seize_function
    ? ` A frozen balance can then be destroyed with ${controls.seize_function}.`
    : " The contract has no function that seizes a frozen balance.";
  return `${freeze}${seize}${controls.policy_notes ? ` ${controls.policy_notes}` : ""}`;
}
