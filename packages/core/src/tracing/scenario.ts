import type { IssuerControls } from "./issuer-registry";
import { type SyntheticChain, SyntheticChainWriter } from "./synthetic-chain";
import type { AddressLabel, AssetRef, Network } from "./types";

/**
 * A hand-written chain history with explicit addresses, blocks and amounts. The same spec can be
 * replayed as real transactions on a local node, so a trace over the node and a trace over the
 * synthetic chain built from the spec must agree (a differential test of the providers).
 */
export interface ScenarioSpec {
  name: string;
  network: Network;
  /** Unix seconds of block 0; block b has time epoch + b · blockTime. */
  epoch: number;
  blockTime: number;
  /** Assets by a short key used in the steps (e.g. `eth`, `usd`). */
  assets: Record<string, AssetRef>;
  genesis: Array<{ address: string; asset: string; amount: bigint }>;
  /** Transfers in order; blocks never decrease. A step from the zero address is a mint. */
  steps: ScenarioStep[];
  labels: AddressLabel[];
  freezes: Array<{ asset: string; address: string; fromBlock: number }>;
  issuers: IssuerControls[];
}

export interface ScenarioStep {
  block: number;
  from: string;
  to: string;
  asset: string;
  amount: bigint;
  /** The transaction's hash on the node the scenario was replayed on; without one the chain derives a hash. */
  tx_hash?: string;
}

export function buildScenarioChain(spec: ScenarioSpec): SyntheticChain {
  const keys = Object.keys(spec.assets).sort();
  const writer = new SyntheticChainWriter(
    spec.network,
    keys.map((key) => spec.assets[key]!),
    spec.blockTime,
    spec.epoch,
  );
  const assetIndex = (key: string) => {
    const index = keys.indexOf(key);
    if (index < 0) throw new Error(`scenario ${spec.name}: unknown asset ${key}`);
    return index;
  };
  for (const allocation of spec.genesis) {
    writer.allocate(writer.node(allocation.address), assetIndex(allocation.asset), allocation.amount);
  }
  for (const step of spec.steps) {
    const event = writer.transfer(
      writer.node(step.from),
      writer.node(step.to),
      assetIndex(step.asset),
      step.amount,
      step.block,
    );
    if (step.tx_hash !== undefined) writer.setTxHash(event, step.tx_hash);
  }
  writer.labels.push(...spec.labels);
  for (const freeze of spec.freezes) {
    writer.freeze(spec.assets[freeze.asset]!.contract!, writer.node(freeze.address), freeze.fromBlock);
  }
  writer.issuers.push(...spec.issuers);
  return writer.finish(`scenario:${spec.name}`);
}

/**
 * The peel-chain topology: the subject sends most of its tokens on through `peels` hops, each hop
 * peeling a fixed share off to a side address, until the last hop pays an exchange deposit address,
 * which the exchange first funds with gas and then sweeps in full to its hot wallet.
 * One transfer per block from `startBlock`.
 */
export function peelChainToExchangeSteps(input: {
  subject: string;
  hops: string[];
  sides: string[];
  deposit: string;
  hotWallet: string;
  gasFunder: string;
  token: string;
  native: string;
  amount: bigint;
  peelPercent: bigint;
  gas: bigint;
  startBlock: number;
}): ScenarioStep[] {
  if (input.sides.length !== input.hops.length) throw new Error("one side address per peel hop");
  const steps: ScenarioStep[] = [];
  let block = input.startBlock;
  let sender = input.subject;
  let amount = input.amount;
  input.hops.forEach((hop, i) => {
    steps.push({ block: block++, from: sender, to: hop, asset: input.token, amount });
    const peel = (amount * input.peelPercent) / 100n;
    steps.push({ block: block++, from: hop, to: input.sides[i]!, asset: input.token, amount: peel });
    amount -= peel;
    sender = hop;
  });
  steps.push({ block: block++, from: input.gasFunder, to: input.deposit, asset: input.native, amount: input.gas });
  steps.push({ block: block++, from: sender, to: input.deposit, asset: input.token, amount });
  steps.push({ block: block++, from: input.deposit, to: input.hotWallet, asset: input.token, amount });
  return steps;
}
