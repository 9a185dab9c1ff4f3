import { createHash, hash } from "node:crypto";
import { canonicalize } from "../canonical-json";
import { hashCanonical } from "../hashing";
import { assetKey, normalizeAddress } from "./amounts";
import type { IssuerControls } from "./issuer-registry";
import { createLabelIndex, ZERO_ADDRESS } from "./labels";
import { bigintToLimbs } from "./limb-ledger";
import {
  AMOUNT_OVERFLOW,
  buildIncidence,
  decodeSub,
  encodeSub,
  firstIncidentAtOrAfter,
  type TransferColumns,
  type TransferGraph,
} from "./transfer-graph";
import type {
  AddressLabel,
  AmountFact,
  AssetRef,
  ChainProvider,
  ChainRequestRef,
  FreezeCheckMethod,
  FreezeFact,
  LabelLookup,
  Network,
  Transfer,
  TransferPage,
  TransferQuery,
} from "./types";

export const SYNTHETIC_GENERATOR = { name: "crs-synthetic-chain", version: 1 } as const;

/**
 * A deterministic chain held in memory: every event from genesis, the labels of its own services,
 * the issuer controls of its stablecoin and the issuer's freeze list. Same inputs, same bytes.
 */
export interface SyntheticChain {
  readonly network: Network;
  readonly graph: TransferGraph;
  readonly labels: readonly AddressLabel[];
  readonly labelIndex: LabelLookup;
  readonly issuers: readonly IssuerControls[];
  /** `<contract>|<address>` → first block at which the issuer's freeze list holds the address. */
  readonly frozenFrom: ReadonlyMap<string, number>;
  readonly generator: { name: string; version: number; seed: string };
  readonly epoch: number;
  /** sha256 over the canonical export (events, genesis, labels, freeze list). */
  digest(): string;
}

/** Accumulates a synthetic chain in time order, keeping balances so no address ever spends what it lacks. */
export class SyntheticChainWriter {
  readonly network: Network;
  readonly assets: AssetRef[];
  private readonly addresses: string[] = [];
  private readonly nodeIds = new Map<string, number>();
  private readonly balances: bigint[][];
  private readonly genesis = new Map<number, bigint>();
  private from = new Uint32Array(1024);
  private to = new Uint32Array(1024);
  private block = new Uint32Array(1024);
  private sub = new Float64Array(1024);
  private time = new Uint32Array(1024);
  private asset = new Uint16Array(1024);
  private amountLow = new BigUint64Array(1024);
  private readonly amountHigh = new Map<number, bigint>();
  private count = 0;
  private currentBlock = -1;
  private txInBlock = 0;
  private logInBlock = 0;
  readonly labels: AddressLabel[] = [];
  readonly frozenFrom = new Map<string, number>();
  readonly issuers: IssuerControls[] = [];
  /** Transaction hashes given to events (a scenario replayed on a real node); other events get derived ones. */
  private readonly txHashes = new Map<number, string>();

  constructor(
    network: Network,
    assets: AssetRef[],
    readonly blockTime: number,
    readonly epoch: number,
  ) {
    this.network = network;
    this.assets = assets.map((a) => ({
      ...a,
      contract: a.contract === null ? null : normalizeAddress(network, a.contract),
    }));
    this.balances = assets.map(() => []);
  }

  get eventCount(): number {
    return this.count;
  }

  get nodeCount(): number {
    return this.addresses.length;
  }

  get lastBlock(): number {
    return this.currentBlock;
  }

  addressOf(node: number): string {
    return this.addresses[node]!;
  }

  node(address: string): number {
    const key = normalizeAddress(this.network, address);
    let id = this.nodeIds.get(key);
    if (id === undefined) {
      id = this.addresses.length;
      this.addresses.push(key);
      this.nodeIds.set(key, id);
      for (const list of this.balances) list.push(0n);
    }
    return id;
  }

  balanceOf(node: number, asset: number): bigint {
    return this.balances[asset]![node]!;
  }

  /** Value an address holds before the first block (genesis allocation). */
  allocate(node: number, asset: number, amount: bigint): void {
    if (this.count > 0) throw new Error("genesis allocations come before the first event");
    const key = node * this.assets.length + asset;
    this.genesis.set(key, (this.genesis.get(key) ?? 0n) + amount);
    this.balances[asset]![node]! += amount;
  }

  /** Appends a transfer in `block` as the next transaction of that block. Mints come from the zero address. */
  transfer(from: number, to: number, asset: number, amount: bigint, block: number): number {
    if (block < this.currentBlock) throw new Error(`block ${block} before ${this.currentBlock}`);
    if (amount <= 0n) throw new RangeError("synthetic transfers move a positive amount");
    const isMint = this.addresses[from] === ZERO_ADDRESS;
    if (!isMint && this.balances[asset]![from]! < amount) {
      throw new RangeError(`${this.addresses[from]} cannot send ${amount} of asset ${asset}`);
    }
    if (block !== this.currentBlock) {
      this.currentBlock = block;
      this.txInBlock = 0;
      this.logInBlock = 0;
    }
    const e = this.count++;
    if (e >= this.from.length) this.grow();
    this.from[e] = from;
    this.to[e] = to;
    this.block[e] = block;
    const native = this.assets[asset]!.kind === "native";
    this.sub[e] = encodeSub(this.txInBlock++, native ? -1 : this.logInBlock++);
    this.time[e] = this.epoch + block * this.blockTime;
    this.asset[e] = asset;
    if (amount >= AMOUNT_OVERFLOW) {
      this.amountLow[e] = AMOUNT_OVERFLOW;
      this.amountHigh.set(e, amount);
    } else this.amountLow[e] = amount;
    if (!isMint) this.balances[asset]![from]! -= amount;
    this.balances[asset]![to]! += amount;
    return e;
  }

  /**
   * Gives event `event` the hash its transaction has on a real node, so a chain built from a scenario
   * replayed there carries the same hashes (and so the same edge ids) as the node.
   */
  setTxHash(event: number, hash: string): void {
    if (!(Number.isInteger(event) && event >= 0 && event < this.count)) throw new RangeError(`no event ${event}`);
    if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new RangeError(`${hash} is not a 32-byte hex transaction hash`);
    this.txHashes.set(event, hash.toLowerCase());
  }

  label(
    node: number,
    entity: string,
    category: AddressLabel["category"],
    confidence = 70,
    note: string | null = null,
    /** unix seconds the label holds from and until (exclusive); unset: always */
    validity: { from?: number; to?: number } = {},
  ): void {
    this.labels.push({
      network: this.network,
      address: this.addresses[node]!,
      entity,
      category,
      confidence,
      confidence_basis: "ownership",
      source: { dataset: "synthetic", uri: null, license: null, as_of: null, retrieved_at: null },
      valid_from: validity.from ?? null,
      valid_to: validity.to ?? null,
      note,
    });
  }

  freeze(contract: string, node: number, fromBlock: number): void {
    this.frozenFrom.set(`${normalizeAddress(this.network, contract)}|${this.addresses[node]}`, fromBlock);
  }

  private grow(): void {
    const size = this.from.length * 2;
    const copy = <T extends { length: number; set(source: ArrayLike<number> | ArrayLike<bigint>): void }>(
      make: (n: number) => T,
      old: T,
    ): T => {
      const next = make(size);
      next.set(old as unknown as ArrayLike<number>);
      return next;
    };
    this.from = copy((n) => new Uint32Array(n), this.from);
    this.to = copy((n) => new Uint32Array(n), this.to);
    this.block = copy((n) => new Uint32Array(n), this.block);
    this.sub = copy((n) => new Float64Array(n), this.sub);
    this.time = copy((n) => new Uint32Array(n), this.time);
    this.asset = copy((n) => new Uint16Array(n), this.asset);
    const amounts = new BigUint64Array(size);
    amounts.set(this.amountLow);
    this.amountLow = amounts;
  }

  finish(seed: string): SyntheticChain {
    const n = this.count;
    const columns: TransferColumns = {
      nodeCount: this.addresses.length,
      eventCount: n,
      from: this.from.slice(0, n),
      to: this.to.slice(0, n),
      block: this.block.slice(0, n),
      sub: this.sub.slice(0, n),
      time: this.time.slice(0, n),
      asset: this.asset.slice(0, n),
      amountLow: this.amountLow.slice(0, n),
      amountHigh: new Map(this.amountHigh),
    };
    const incidence = buildIncidence(columns);
    const network = this.network;
    const addresses = this.addresses.slice();
    const nodeIds = new Map(this.nodeIds);
    const assets = this.assets.slice();
    const assetCount = assets.length;
    const genesis = new Map(this.genesis);
    // Genesis allocations by node × assetCount + asset, built on first read: a sweep asks for one per
    // address it opens, and a flat array answers that without hashing into a map of every holder.
    let genesisFlat: bigint[] | undefined;
    const genesisOf = (node: number, asset: number): bigint => {
      if (!genesisFlat) {
        genesisFlat = new Array<bigint>(addresses.length * assetCount).fill(0n);
        for (const [key, amount] of genesis) genesisFlat[key] = amount;
      }
      return genesisFlat[node * assetCount + asset] ?? 0n;
    };
    // The same allocations as limbs, built on first read (null: one is beyond the limbs' range).
    let genesisLimbs: Float64Array | null | undefined;
    const genesisLimbsOf = (): Float64Array | undefined => {
      if (genesisLimbs === undefined) {
        const limbs = new Float64Array(2 * addresses.length * assetCount);
        const split = { h: 0, l: 0 };
        let exact = true;
        for (const [key, amount] of genesis) {
          if (!bigintToLimbs(amount, split)) exact = false;
          limbs[2 * key] = split.h;
          limbs[2 * key + 1] = split.l;
        }
        genesisLimbs = exact ? limbs : null;
      }
      return genesisLimbs ?? undefined;
    };
    const labels = this.labels.slice();
    const labelsByNode = new Map<number, AddressLabel[]>();
    for (const label of labels) {
      const node = nodeIds.get(normalizeAddress(network, label.address));
      if (node === undefined) continue;
      const list = labelsByNode.get(node);
      if (list) list.push(label);
      else labelsByNode.set(node, [label]);
    }
    const lastBlock = Math.max(this.currentBlock, 0);
    const source: ChainRequestRef = {
      provider: `synthetic:${seed}`,
      method: "synthetic.chain",
      request_hash: hashCanonical({ generator: SYNTHETIC_GENERATOR, seed, network }),
      block_range: ["0", String(lastBlock)],
      fetched_at: new Date(this.epoch * 1000).toISOString(),
      finalized: true,
      uri: null,
    };
    const noLabels: readonly AddressLabel[] = [];
    const txHashes = new Map(this.txHashes);
    const graph: TransferGraph = {
      network,
      ...columns,
      ...incidence,
      assets,
      sources: [source],
      addressOf: (node) => addresses[node]!,
      nodeOf: (address) => nodeIds.get(normalizeAddress(network, address)),
      txHashOf: (event) => txHashes.get(event) ?? `0x${hash("sha256", `${network}|${seed}|${event}`, "hex")}`,
      sourceOf: () => 0,
      nodeLabels: (node) => labelsByNode.get(node) ?? noLabels,
      balanceAt: (node, asset, block) => {
        // Before block 0 (block −1) only the genesis allocation counts: no event comes earlier.
        if (block < 0) return genesisOf(node, asset);
        let balance = genesis.get(node * assetCount + asset) ?? 0n;
        const end = firstIncidentAtOrAfter(graph, node, block + 1, Number.NEGATIVE_INFINITY);
        for (let i = incidence.incidentOffset[node]!; i < end; i++) {
          const e = incidence.incident[i]!;
          if (columns.asset[e] !== asset) continue;
          const low = columns.amountLow[e]!;
          const amount = low === AMOUNT_OVERFLOW ? columns.amountHigh.get(e)! : low;
          if (columns.to[e] === node) balance += amount;
          if (columns.from[e] === node && addresses[node] !== ZERO_ADDRESS) balance -= amount;
        }
        return balance;
      },
      get genesisLimbs() {
        return genesisLimbsOf();
      },
    };
    const frozenFrom = new Map(this.frozenFrom);
    const issuers = this.issuers.slice();
    const epoch = this.epoch;
    return {
      network,
      graph,
      labels,
      labelIndex: createLabelIndex(labels),
      issuers,
      frozenFrom,
      generator: { ...SYNTHETIC_GENERATOR, seed },
      epoch,
      digest: () => {
        const hash = createHash("sha256");
        hash.update(canonicalize({ generator: SYNTHETIC_GENERATOR, seed, network, epoch, assets, addresses }));
        for (const column of [
          columns.from,
          columns.to,
          columns.block,
          columns.sub,
          columns.time,
          columns.asset,
          columns.amountLow,
        ]) {
          hash.update(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
        }
        hash.update(
          canonicalize({
            amountHigh: [...columns.amountHigh].map(([e, v]) => [e, v.toString()]),
            genesis: [...genesis].sort((a, b) => a[0] - b[0]).map(([k, v]) => [k, v.toString()]),
            labels,
            frozen: [...frozenFrom].sort(),
            // Only scenarios replayed on a node carry given hashes; generated chains keep their digests.
            ...(txHashes.size > 0 ? { tx_hashes: [...txHashes].sort((a, b) => a[0] - b[0]) } : {}),
          }),
        );
        return hash.digest("hex");
      },
    };
  }
}

/** Serves a synthetic chain through the provider interface, paged, with deterministic source refs. */
export class SyntheticChainProvider implements ChainProvider {
  readonly kind = "synthetic" as const;
  readonly network: Network;
  readonly name: string;
  private readonly chain: SyntheticChain;
  private readonly pageSize: number;
  private readonly fetchedAt: string;

  constructor(chain: SyntheticChain, options: { pageSize?: number; fetchedAt?: string } = {}) {
    this.chain = chain;
    this.network = chain.network;
    this.name = `synthetic:${chain.generator.seed}`;
    this.pageSize = options.pageSize ?? 500;
    if (!(Number.isInteger(this.pageSize) && this.pageSize > 0)) throw new RangeError("pageSize must be positive");
    this.fetchedAt = options.fetchedAt ?? new Date(chain.epoch * 1000).toISOString();
  }

  private ref(method: string, params: unknown, range: [string, string] | null): ChainRequestRef {
    return {
      provider: this.name,
      method,
      request_hash: hashCanonical({ method, params }),
      block_range: range,
      fetched_at: this.fetchedAt,
      finalized: true,
      uri: null,
    };
  }

  async head(signal?: AbortSignal): Promise<{ number: bigint; finalized: bigint }> {
    signal?.throwIfAborted();
    const { graph } = this.chain;
    const last = graph.eventCount > 0 ? graph.block[graph.eventCount - 1]! : 0;
    return { number: BigInt(last), finalized: BigInt(last) };
  }

  async transfers(query: TransferQuery): Promise<TransferPage> {
    query.signal?.throwIfAborted();
    const { graph } = this.chain;
    const node = graph.nodeOf(query.address);
    if (node === undefined) return { items: [], next: null };
    const start = firstIncidentAtOrAfter(graph, node, Number(query.fromBlock), Number.NEGATIVE_INFINITY);
    const end = firstIncidentAtOrAfter(graph, node, Number(query.toBlock) + 1, Number.NEGATIVE_INFINITY);
    const offset = query.cursor === null ? 0 : Number(query.cursor);
    if (!(Number.isInteger(offset) && offset >= 0)) throw new RangeError(`bad cursor ${query.cursor}`);
    const pageStart = start + offset;
    const pageEnd = Math.min(end, pageStart + this.pageSize);
    const range: [string, string] = [query.fromBlock.toString(), query.toBlock.toString()];
    const sourceRef = this.ref(
      "synthetic.transfers",
      { address: normalizeAddress(this.network, query.address), range, cursor: query.cursor },
      range,
    );
    const items: Transfer[] = [];
    for (let i = pageStart; i < pageEnd; i++) {
      const e = graph.incident[i]!;
      const { tx_index, event_index } = decodeSub(graph.sub[e]!);
      const low = graph.amountLow[e]!;
      items.push({
        network: this.network,
        tx_hash: graph.txHashOf(e),
        event_index,
        block: BigInt(graph.block[e]!),
        block_time: graph.time[e]!,
        tx_index,
        from: graph.addressOf(graph.from[e]!),
        to: graph.addressOf(graph.to[e]!),
        asset: graph.assets[graph.asset[e]!]!,
        amount: low === AMOUNT_OVERFLOW ? graph.amountHigh.get(e)! : low,
        source_ref: sourceRef,
      });
    }
    return { items, next: pageEnd < end ? String(pageEnd - start) : null };
  }

  async assetOf(contract: string, signal?: AbortSignal): Promise<AssetRef | null> {
    signal?.throwIfAborted();
    const wanted = contract.toLowerCase();
    return this.chain.graph.assets.find((asset) => asset.contract === wanted) ?? null;
  }

  async balanceAt(address: string, asset: AssetRef, block: bigint, signal?: AbortSignal): Promise<AmountFact | null> {
    signal?.throwIfAborted();
    const { graph } = this.chain;
    const index = graph.assets.findIndex((a) => assetKey(a) === assetKey(asset));
    const node = graph.nodeOf(address);
    const amount = index < 0 || node === undefined ? 0n : graph.balanceAt!(node, index, Number(block));
    return {
      amount,
      source_ref: this.ref("synthetic.balanceAt", { address, asset: assetKey(asset), block: block.toString() }, null),
    };
  }

  async freezeStatus(
    token: string,
    address: string,
    method: FreezeCheckMethod,
    block: bigint,
    signal?: AbortSignal,
  ): Promise<FreezeFact> {
    signal?.throwIfAborted();
    const key = `${normalizeAddress(this.network, token)}|${normalizeAddress(this.network, address)}`;
    const from = this.chain.frozenFrom.get(key);
    return {
      frozen: from !== undefined && from <= Number(block),
      reason: null,
      source_ref: this.ref(`synthetic.${method}`, { token: key, block: block.toString() }, null),
    };
  }
}
