import type { IssuerControls } from "./issuer-registry";
import { ZERO_ADDRESS } from "./labels";
import { Sfc32 } from "./prng";
import { type SyntheticChain, SyntheticChainWriter } from "./synthetic-chain";
import type { Network } from "./types";

/**
 * A seeded random chain for sandboxes and benchmarks: exchanges (hot wallet, gas funder, one
 * deposit address per customer, swept to the hot wallet), a mixer with fixed denominations, a
 * bridge, a stablecoin whose issuer keeps a freeze list, sanctioned addresses, users with skewed
 * activity, dust spam, and a library of laundering scenarios whose expected outcome is recorded.
 *
 * Obviously synthetic: network `synthetic:<name>`, addresses `0x5eed…`, entities "(synthetic)".
 * Same options → same chain, byte for byte (`digest()`).
 */
export interface SyntheticChainOptions {
  seed: number;
  network?: Network;
  users?: number;
  /** Background transfer events (scenario events come on top). */
  events?: number;
  eventsPerBlock?: number;
  exchanges?: number;
  /** How many scenarios of each kind to plant. */
  scenarios?: number;
}

export type ScenarioKind = "peel_to_exchange" | "fan_out_in" | "mixer" | "bridge" | "frozen_holder";

/** What a planted scenario should produce when its subject is traced with default settings. */
export interface ScenarioTruth {
  id: string;
  kind: ScenarioKind;
  subject: string;
  incident_block: number;
  asset: "native" | "stable";
  amount: bigint;
  /** Where the funds end: the terminal address and its category. */
  terminal: { address: string; category: "exchange" | "mixer" | "bridge"; hop: number } | null;
  /** For exchange scenarios: the deposit address the sweep rule should find, and the exchange. */
  deposit: { address: string; exchange: string; hop: number } | null;
  /** For the frozen-holder scenario: the address that holds frozen stablecoins. */
  frozen_holder: string | null;
}

export interface GeneratedSyntheticChain extends SyntheticChain {
  readonly scenarios: readonly ScenarioTruth[];
  readonly stablecoin: string;
  /** The busiest unlabelled user addresses (for worst-case benchmarks). */
  readonly busiestUsers: readonly string[];
}

const ETHER = 10n ** 18n;
const USD = 10n ** 6n;
const EPOCH = 1_767_225_600; // 2026-01-01T00:00:00Z
const BLOCK_TIME = 12;
const NATIVE = 0;
const STABLE = 1;

function syntheticAddress(seedTag: string, index: number): string {
  return `0x5eed${seedTag}${"0".repeat(20)}${index.toString(16).padStart(8, "0")}`;
}

export function generateSyntheticChain(options: SyntheticChainOptions): GeneratedSyntheticChain {
  const seed = options.seed;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError("seed must be a non-negative integer");
  const network = options.network ?? "synthetic:eth";
  const userCount = options.users ?? 2_000;
  const targetEvents = options.events ?? 20_000;
  const perBlock = options.eventsPerBlock ?? 100;
  const exchangeCount = options.exchanges ?? 3;
  const scenarioCount = options.scenarios ?? 3;
  const seedTag = (seed >>> 0).toString(16).padStart(8, "0");
  let nextIndex = 1;
  const fresh = () => syntheticAddress(seedTag, nextIndex++);

  const stablecoin = syntheticAddress(seedTag, 0);
  const writer = new SyntheticChainWriter(
    network,
    [
      { kind: "native", contract: null, decimals: 18, symbol: "sETH" },
      { kind: "erc20", contract: stablecoin, decimals: 6, symbol: "sUSD" },
    ],
    BLOCK_TIME,
    EPOCH,
  );
  const rng = new Sfc32(seed, "background");

  // Services.
  writer.node(ZERO_ADDRESS);
  const issuer = writer.node(fresh());
  writer.label(issuer, "sUSD Issuer (synthetic)", "issuer", 100);
  const hot: number[] = [];
  const funder: number[] = [];
  const exchangeName = (x: number) => `Exchange ${String.fromCharCode(65 + x)} (synthetic)`;
  for (let x = 0; x < exchangeCount; x++) {
    hot.push(writer.node(fresh()));
    funder.push(writer.node(fresh()));
    writer.label(hot[x]!, exchangeName(x), "exchange", 70);
    writer.label(funder[x]!, exchangeName(x), "exchange", 70);
  }
  const mixer = writer.node(fresh());
  writer.label(mixer, "Mixer (synthetic)", "mixer", 60);
  const bridge = writer.node(fresh());
  writer.label(bridge, "Bridge (synthetic)", "bridge", 70);
  const users: number[] = [];
  for (let u = 0; u < userCount; u++) users.push(writer.node(fresh()));
  const sanctionedCount = Math.max(1, Math.floor(userCount / 1000));
  for (let s = 0; s < sanctionedCount; s++) {
    writer.label(
      users[userCount - 1 - s]!,
      `Sanctioned person ${s + 1} (synthetic)`,
      "sanctioned",
      60,
      "synthetic list entry",
    );
  }

  // Genesis: exchanges and the issuer hold deep balances; users start with a little.
  for (let x = 0; x < exchangeCount; x++) {
    writer.allocate(hot[x]!, NATIVE, 1_000_000n * ETHER);
    writer.allocate(hot[x]!, STABLE, 1_000_000_000n * USD);
    writer.allocate(funder[x]!, NATIVE, 10_000n * ETHER);
  }
  writer.allocate(issuer, STABLE, 10_000_000_000n * USD);
  for (const user of users) {
    writer.allocate(user, NATIVE, BigInt(rng.int(1, 100)) * (ETHER / 10n));
    writer.allocate(user, STABLE, BigInt(rng.int(0, 5_000)) * USD);
  }
  const depositOf = new Map<number, number>();
  const depositAddress = (user: number, x: number, block: number): number => {
    const key = user * exchangeCount + x;
    let deposit = depositOf.get(key);
    if (deposit === undefined) {
      deposit = writer.node(fresh());
      depositOf.set(key, deposit);
      writer.transfer(funder[x]!, deposit, NATIVE, ETHER / 200n, block);
    }
    return deposit;
  };

  // Events scheduled for a later block (sweeps, mixer withdrawals), by block.
  type Scheduled = { from: number; to: number; asset: number; amount: bigint };
  const schedule = new Map<number, Scheduled[]>();
  const later = (block: number, item: Scheduled) => {
    const list = schedule.get(block);
    if (list) list.push(item);
    else schedule.set(block, [item]);
  };

  // Scenarios: planted at evenly spaced blocks through the chain.
  const totalBlocks = Math.max(50, Math.ceil(targetEvents / perBlock));
  const scenarios: ScenarioTruth[] = [];
  const scenarioKinds: ScenarioKind[] = ["peel_to_exchange", "fan_out_in", "mixer", "bridge", "frozen_holder"];
  const plans: Array<{ block: number; run: (block: number) => void }> = [];
  let planIndex = 0;
  const planTotal = scenarioKinds.length * scenarioCount;
  for (let round = 0; round < scenarioCount; round++) {
    for (const kind of scenarioKinds) {
      const at = 5 + Math.floor(((planIndex + 0.5) * (totalBlocks - 40)) / planTotal);
      const id = `${kind}-${round + 1}`;
      const srng = new Sfc32(seed, `scenario:${id}`);
      planIndex++;
      plans.push({
        block: at,
        run: (block) => plantScenario(kind, id, block, srng),
      });
    }
  }

  const plantScenario = (kind: ScenarioKind, id: string, block: number, srng: Sfc32): void => {
    const subject = writer.node(fresh());
    const useStable = kind !== "mixer";
    const asset = useStable ? STABLE : NATIVE;
    const amount = useStable ? BigInt(srng.int(20_000, 200_000)) * USD : 10n * ETHER;
    // Funding before the incident block: minted stablecoins or an exchange withdrawal.
    if (useStable) writer.transfer(issuer, subject, STABLE, amount, block);
    else writer.transfer(hot[0]!, subject, NATIVE, amount + ETHER / 10n, block);
    const incident = block + 1;
    let b = incident;
    const truth: ScenarioTruth = {
      id,
      kind,
      subject: writer.addressOf(subject),
      incident_block: incident,
      asset: useStable ? "stable" : "native",
      amount,
      terminal: null,
      deposit: null,
      frozen_holder: null,
    };
    if (kind === "peel_to_exchange") {
      const x = srng.int(0, exchangeCount - 1);
      let sender = subject;
      let left = amount;
      for (let hop = 0; hop < 3; hop++) {
        const next = writer.node(fresh());
        writer.transfer(sender, next, asset, left, b++);
        const peel = (left * BigInt(srng.int(5, 15))) / 100n;
        writer.transfer(next, users[srng.int(0, userCount - 1)]!, asset, peel, b++);
        left -= peel;
        sender = next;
      }
      const owner = writer.node(fresh());
      const deposit = depositAddress(owner, x, b);
      writer.transfer(sender, deposit, asset, left, b++);
      later(b + srng.int(1, 20), { from: deposit, to: hot[x]!, asset, amount: left });
      truth.deposit = { address: writer.addressOf(deposit), exchange: exchangeName(x), hop: 4 };
      truth.terminal = { address: writer.addressOf(hot[x]!), category: "exchange", hop: 5 };
    } else if (kind === "fan_out_in") {
      const x = srng.int(0, exchangeCount - 1);
      const merge = writer.node(fresh());
      const parts = 4n;
      const share = amount / parts;
      for (let i = 0n; i < parts; i++) {
        const mid = writer.node(fresh());
        const part = i === parts - 1n ? amount - share * (parts - 1n) : share;
        writer.transfer(subject, mid, asset, part, b++);
        writer.transfer(mid, merge, asset, part, b++);
      }
      const owner = writer.node(fresh());
      const deposit = depositAddress(owner, x, b);
      writer.transfer(merge, deposit, asset, amount, b++);
      later(b + srng.int(1, 20), { from: deposit, to: hot[x]!, asset, amount });
      truth.deposit = { address: writer.addressOf(deposit), exchange: exchangeName(x), hop: 3 };
      truth.terminal = { address: writer.addressOf(hot[x]!), category: "exchange", hop: 4 };
    } else if (kind === "mixer") {
      const a = writer.node(fresh());
      const c = writer.node(fresh());
      writer.transfer(subject, a, NATIVE, amount, b++);
      writer.transfer(a, c, NATIVE, amount, b++);
      for (let i = 0; i < 10; i++) {
        writer.transfer(c, mixer, NATIVE, ETHER, b++);
        later(b + srng.int(30, 200), { from: mixer, to: writer.node(fresh()), asset: NATIVE, amount: ETHER });
      }
      truth.terminal = { address: writer.addressOf(mixer), category: "mixer", hop: 3 };
    } else if (kind === "bridge") {
      let sender = subject;
      for (let hop = 0; hop < 5; hop++) {
        const next = writer.node(fresh());
        writer.transfer(sender, next, asset, amount, b++);
        sender = next;
      }
      writer.transfer(sender, bridge, asset, amount, b++);
      truth.terminal = { address: writer.addressOf(bridge), category: "bridge", hop: 6 };
    } else {
      const holder = writer.node(fresh());
      writer.transfer(subject, holder, asset, amount, b++);
      writer.freeze(stablecoin, holder, b + 2);
      truth.frozen_holder = writer.addressOf(holder);
    }
    // Address-poisoning spam: dust from a user to the subject's first counterparties.
    const spammer = users[srng.int(0, userCount - 1)]!;
    if (writer.balanceOf(spammer, STABLE) > 0n) writer.transfer(spammer, subject, STABLE, 1n, b);
    scenarios.push(truth);
  };

  // Background traffic, block by block, with scheduled events first in each block.
  // A scheduled event whose block was skipped (a scenario wrote several blocks at once) runs in the next block written.
  let block = 1;
  let scheduledThrough = 0;
  let planCursor = 0;
  let background = 0;
  while (background < targetEvents || planCursor < plans.length || schedule.size > 0) {
    block = Math.max(block, writer.lastBlock);
    for (; scheduledThrough < block; scheduledThrough++) {
      const due = schedule.get(scheduledThrough + 1);
      if (!due) continue;
      schedule.delete(scheduledThrough + 1);
      for (const item of due) writer.transfer(item.from, item.to, item.asset, item.amount, block);
    }
    while (planCursor < plans.length && plans[planCursor]!.block <= block) {
      plans[planCursor]!.run(Math.max(block, writer.lastBlock));
      planCursor++;
    }
    if (writer.lastBlock > block) continue;
    for (let i = 0; i < perBlock && background < targetEvents; i++) {
      background += emitBackground(block);
    }
    block++;
  }

  function emitBackground(at: number): number {
    const roll = rng.next();
    if (roll < 0.45) {
      const sender = users[rng.skewed(userCount)]!;
      const asset = rng.next() < 0.6 ? NATIVE : STABLE;
      const balance = writer.balanceOf(sender, asset);
      if (balance === 0n) return 0;
      const amount = (balance * BigInt(rng.int(1, 60))) / 100n;
      if (amount === 0n) return 0;
      const receiver = users[rng.next() < 0.5 ? rng.skewed(userCount) : rng.int(0, userCount - 1)]!;
      if (receiver === sender) return 0;
      writer.transfer(sender, receiver, asset, amount, at);
      return 1;
    }
    if (roll < 0.65) {
      const x = rng.int(0, exchangeCount - 1);
      const asset = rng.next() < 0.5 ? NATIVE : STABLE;
      const amount = asset === NATIVE ? BigInt(rng.int(1, 500)) * (ETHER / 100n) : BigInt(rng.int(10, 5_000)) * USD;
      if (writer.balanceOf(hot[x]!, asset) < amount) return 0;
      writer.transfer(hot[x]!, users[rng.int(0, userCount - 1)]!, asset, amount, at);
      return 1;
    }
    if (roll < 0.85) {
      const user = users[rng.skewed(userCount)]!;
      const asset = rng.next() < 0.5 ? NATIVE : STABLE;
      const balance = writer.balanceOf(user, asset);
      const amount = (balance * BigInt(rng.int(10, 90))) / 100n;
      if (amount === 0n) return 0;
      const x = rng.int(0, exchangeCount - 1);
      const deposit = depositAddress(user, x, at);
      writer.transfer(user, deposit, asset, amount, at);
      later(at + rng.int(1, 40), { from: deposit, to: hot[x]!, asset, amount });
      return 1;
    }
    if (roll < 0.88) {
      const user = users[rng.skewed(userCount)]!;
      if (writer.balanceOf(user, NATIVE) < ETHER) return 0;
      writer.transfer(user, mixer, NATIVE, ETHER, at);
      later(at + rng.int(10, 200), { from: mixer, to: writer.node(fresh()), asset: NATIVE, amount: ETHER });
      return 1;
    }
    if (roll < 0.9) {
      const user = users[rng.skewed(userCount)]!;
      const balance = writer.balanceOf(user, STABLE);
      if (balance === 0n) return 0;
      writer.transfer(user, bridge, STABLE, balance / 2n || balance, at);
      return 1;
    }
    if (roll < 0.95) {
      const spammer = users[rng.int(0, userCount - 1)]!;
      if (writer.balanceOf(spammer, NATIVE) === 0n) return 0;
      writer.transfer(spammer, users[rng.int(0, userCount - 1)]!, NATIVE, 1n, at);
      return 1;
    }
    const user = users[rng.int(0, userCount - 1)]!;
    writer.transfer(issuer, user, STABLE, BigInt(rng.int(100, 10_000)) * USD, at);
    return 1;
  }

  const issuerControls: IssuerControls = {
    network,
    contract: stablecoin,
    issuer: "sUSD Issuer (synthetic)",
    symbol: "sUSD",
    freeze_check: "isBlacklisted",
    freeze_functions: ["blacklist(address)", "unBlacklist(address)"],
    freeze_role: "blacklister",
    seize_function: "destroyBlackFunds(address)",
    policy_notes: "Synthetic issuer for sandbox use; no real request can be made.",
    remediation: ["(synthetic) Ask the issuer to blacklist the holding address."],
    source: { title: "Synthetic chain issuer", uri: "synthetic:issuer", as_of: "2026-01-01" },
    synthetic: true,
  };
  writer.issuers.push(issuerControls);
  const busiest = users.slice(0, 64).map((node) => writer.addressOf(node));
  const chain = writer.finish(String(seed));
  return { ...chain, scenarios, stablecoin, busiestUsers: busiest };
}
