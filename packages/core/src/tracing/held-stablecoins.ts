import { usableBalance } from "./amounts";
import { inBatches } from "./batches";
import type { IssuerControls, IssuerRegistry } from "./issuer-registry";
import type { AmountFact, AssetRef, ChainProvider, Network } from "./types";

/** A subject's holding of an issuer's token that the trace did not follow: read from the chain. */
export interface HeldStablecoin {
  address: string;
  asset: AssetRef;
  controls: IssuerControls;
  /** The balance read at the trace's last block (above zero). */
  fact: AmountFact;
}

/**
 * What each subject holds at `lastBlock` of the tokens of `issuers` on `network` that the trace did not
 * follow for it (`traced(address, contract)` false: no ledger of it opened, no taint of it reached the
 * subject): a trace reads transfers, so a holding that never moves is otherwise not seen, and it is the
 * first thing an issuer can freeze. A holding the trace follows is listed from the trace, never twice.
 * One balance read per subject and token; a token a holding is read in is described by the trace's own
 * assets when it moved elsewhere in the trace, else by the provider (`assetOf`), else by the registry's
 * symbol alone (decimals unknown). Holdings of nothing, and reads the provider could not give, are left out.
 */
export async function readHeldStablecoins(input: {
  provider: ChainProvider;
  issuers: IssuerRegistry;
  network: Network;
  subjects: readonly string[];
  traced: (address: string, contract: string) => boolean;
  knownAssets: readonly AssetRef[];
  lastBlock: bigint;
  concurrency: number;
  signal: AbortSignal | undefined;
}): Promise<HeldStablecoin[]> {
  const { provider, issuers, network, subjects, traced, knownAssets, lastBlock, signal } = input;
  const balanceAt = provider.balanceAt?.bind(provider);
  if (!balanceAt) return [];
  const tokens = issuers.entries.filter((controls) => controls.network === network);
  const wanted = subjects.flatMap((address) =>
    tokens.filter((controls) => !traced(address, controls.contract)).map((controls) => ({ address, controls })),
  );
  const assets = new Map<string, Promise<AssetRef>>();
  const assetFor = (controls: IssuerControls): Promise<AssetRef> => {
    let asset = assets.get(controls.contract);
    if (!asset) {
      const known = knownAssets.find((candidate) => candidate.contract === controls.contract);
      asset = known
        ? Promise.resolve(known)
        : (provider.assetOf?.(controls.contract, signal) ?? Promise.resolve(null)).then(
            (described) =>
              described ?? { kind: "erc20", contract: controls.contract, decimals: null, symbol: controls.symbol },
          );
      assets.set(controls.contract, asset);
    }
    return asset;
  };
  const held = await inBatches(wanted, input.concurrency, async ({ address, controls }) => {
    const asset = await assetFor(controls);
    const fact = usableBalance(await balanceAt(address, asset, lastBlock, signal));
    return fact && fact.amount > 0n ? { address, asset, controls, fact } : null;
  });
  return held.filter((holding): holding is HeldStablecoin => holding !== null);
}
