import { assetKey, normalizeAddress } from "./amounts";
import { growUint32 } from "./typed-growth";
import type { AddressLabel, AssetRef, ChainRequestRef, Network, Transfer } from "./types";

/**
 * The engine's in-memory transfer store: columns in typed arrays, events numbered in time order,
 * and for every address the list of its events (in and out) in time order (a CSR incidence list).
 *
 * Time order is (block, sub) where sub = tx_index · 2^32 + (event_index + 1): a transaction's native
 * value (event_index −1) moves before its logs, and logs move in log-index order.
 *
 * Amounts are exact: base units below 2^64 − 1 sit in `amountLow`; larger ones sit in `amountHigh`
 * with `amountLow` holding the sentinel AMOUNT_OVERFLOW.
 */
export interface TransferGraph {
  readonly network: Network;
  readonly nodeCount: number;
  readonly eventCount: number;
  readonly from: Uint32Array;
  readonly to: Uint32Array;
  readonly block: Uint32Array;
  readonly sub: Float64Array;
  /** Unix seconds of the event's block. */
  readonly time: Uint32Array;
  readonly asset: Uint16Array;
  readonly amountLow: BigUint64Array;
  readonly amountHigh: ReadonlyMap<number, bigint>;
  /** Events of node n are incident[incidentOffset[n] .. incidentOffset[n+1]), in time order. */
  readonly incidentOffset: Uint32Array;
  readonly incident: Uint32Array;
  readonly assets: readonly AssetRef[];
  readonly sources: readonly ChainRequestRef[];
  addressOf(node: number): string;
  nodeOf(address: string): number | undefined;
  txHashOf(event: number): string;
  /** tx_index and event_index are recoverable from `sub`; `source` indexes `sources`. */
  sourceOf(event: number): number;
  /** Labels the graph carries for its own nodes (a synthetic chain labels its services). */
  nodeLabels?: (node: number) => readonly AddressLabel[];
  /** Balance at the end of `block` when the graph holds the full history from genesis. */
  balanceAt?: (node: number, asset: number, block: number) => bigint;
  /**
   * The genesis allocations (`balanceAt` before block 0) as limb pairs h·2^48 + l at [2k, 2k + 1],
   * k = node × assets.length + asset, for the sweep (see limb-ledger.ts); absent when the graph does not
   * hold the history from genesis or an allocation is beyond the limbs' exact range.
   */
  readonly genesisLimbs?: Float64Array;
}

export const AMOUNT_OVERFLOW = 0xffff_ffff_ffff_ffffn;
export const MAX_BLOCK = 0xffff_ffff;
const SUB_TX_FACTOR = 2 ** 32;
const MAX_TX_INDEX = 2 ** 20;

export function encodeSub(txIndex: number, eventIndex: number): number {
  if (!(Number.isInteger(txIndex) && txIndex >= 0 && txIndex < MAX_TX_INDEX))
    throw new RangeError(`tx_index ${txIndex}`);
  if (!(Number.isInteger(eventIndex) && eventIndex >= -1 && eventIndex < SUB_TX_FACTOR - 1)) {
    throw new RangeError(`event_index ${eventIndex}`);
  }
  return txIndex * SUB_TX_FACTOR + eventIndex + 1;
}

export function decodeSub(sub: number): { tx_index: number; event_index: number } {
  const txIndex = Math.floor(sub / SUB_TX_FACTOR);
  return { tx_index: txIndex, event_index: sub - txIndex * SUB_TX_FACTOR - 1 };
}

export function amountOf(graph: TransferGraph, event: number): bigint {
  const low = graph.amountLow[event]!;
  return low === AMOUNT_OVERFLOW ? graph.amountHigh.get(event)! : low;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Index offsets of the low and high 32-bit words of an amount within `amountWords` (platform byte order). */
export const AMOUNT_LO_WORD = LITTLE_ENDIAN ? 0 : 1;
export const AMOUNT_HI_WORD = LITTLE_ENDIAN ? 1 : 0;

/**
 * The amounts as 32-bit words (event e: `words[2e + AMOUNT_LO_WORD]`, `words[2e + AMOUNT_HI_WORD]`), a
 * view over `amountLow` that lets hot loops compare and add amounts without creating a bigint per event.
 */
export function amountWords(graph: Pick<TransferGraph, "amountLow">): Uint32Array {
  const column = graph.amountLow;
  return new Uint32Array(column.buffer, column.byteOffset, column.length * 2);
}

/** Columns from which `buildIncidence` makes a graph. Events must already be in time order. */
export interface TransferColumns {
  nodeCount: number;
  eventCount: number;
  from: Uint32Array;
  to: Uint32Array;
  block: Uint32Array;
  sub: Float64Array;
  time: Uint32Array;
  asset: Uint16Array;
  amountLow: BigUint64Array;
  amountHigh: Map<number, bigint>;
}

/** Per-node incidence lists by a stable counting sort over time-ordered events: O(nodes + events). */
export function buildIncidence(columns: TransferColumns): { incidentOffset: Uint32Array; incident: Uint32Array } {
  const { nodeCount, eventCount, from, to } = columns;
  const offset = new Uint32Array(nodeCount + 1);
  for (let e = 0; e < eventCount; e++) {
    const f = from[e]!;
    const t = to[e]!;
    offset[f + 1]!++;
    if (t !== f) offset[t + 1]!++;
  }
  for (let n = 0; n < nodeCount; n++) offset[n + 1]! += offset[n]!;
  const cursor = offset.slice(0, nodeCount);
  const incident = new Uint32Array(offset[nodeCount]!);
  for (let e = 0; e < eventCount; e++) {
    const f = from[e]!;
    const t = to[e]!;
    incident[cursor[f]!++] = e;
    if (t !== f) incident[cursor[t]!++] = e;
  }
  return { incidentOffset: offset, incident };
}

/** First index in node's incidence list whose event is at or after (block, sub). Binary search. */
export function firstIncidentAtOrAfter(graph: TransferGraph, node: number, block: number, sub: number): number {
  let lo = graph.incidentOffset[node]!;
  let hi = graph.incidentOffset[node + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = graph.incident[mid]!;
    const b = graph.block[e]!;
    if (b < block || (b === block && graph.sub[e]! < sub)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * First index in node's incidence list whose event id is at or after `event` (ids count in time order,
 * and each list is in time order). Binary search.
 */
export function incidentPositionOf(graph: TransferGraph, node: number, event: number): number {
  let lo = graph.incidentOffset[node]!;
  let hi = graph.incidentOffset[node + 1]!;
  const incident = graph.incident;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (incident[mid]! < event) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Search aids for the engine's hot loops, built once per graph on first use and kept with it:
 * - the block of every entry of the incidence lists beside it (`incidentBlock`), so a binary search
 *   by block reads one contiguous array instead of an event id and then that event's block;
 * - each node's outgoing events in time order (`outEvent[outOffset[n] .. outOffset[n+1])`), the sending
 *   half of the incidence lists, with the columns discovery reads per outflow copied beside them in the
 *   same order (`outTo`, `outRank`, `outAsset`, `outBits`): an expansion then reads its outflows
 *   sequentially instead of taking a cache miss per column per event on a large graph.
 *
 * `outRank` is the event's time rank: the index of the first event with the same (block, sub). Events
 * are numbered in time order, so comparing ranks compares (block, sub), ties included.
 */
export interface TimeIndex {
  readonly incidentBlock: Uint32Array;
  readonly outOffset: Uint32Array;
  readonly outEvent: Uint32Array;
  readonly outTo: Uint32Array;
  readonly outRank: Uint32Array;
  readonly outAsset: Uint16Array;
  /** Bit length of the amount (0 for zero); AMOUNT_OVERFLOW_BITS for amounts held in `amountHigh`. */
  readonly outBits: Uint8Array;
}

/** `TimeIndex.outBits` of an amount at or above AMOUNT_OVERFLOW: above the bit length of any smaller amount. */
export const AMOUNT_OVERFLOW_BITS = 65;

/** Bit length of a non-negative bigint (0 for 0). */
export function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

const timeIndexCache = new WeakMap<TransferGraph, TimeIndex>();

export function timeIndexOf(graph: TransferGraph): TimeIndex {
  const known = timeIndexCache.get(graph);
  if (known) return known;
  const { nodeCount, eventCount, from, to, block, sub, asset, incident } = graph;
  const incidentBlock = new Uint32Array(incident.length);
  for (let i = 0; i < incident.length; i++) incidentBlock[i] = block[incident[i]!]!;
  const outOffset = new Uint32Array(nodeCount + 1);
  for (let e = 0; e < eventCount; e++) outOffset[from[e]! + 1]!++;
  for (let n = 0; n < nodeCount; n++) outOffset[n + 1]! += outOffset[n]!;
  const cursor = outOffset.slice(0, nodeCount);
  const outEvent = new Uint32Array(eventCount);
  const outTo = new Uint32Array(eventCount);
  const outRank = new Uint32Array(eventCount);
  const outAsset = new Uint16Array(eventCount);
  const outBits = new Uint8Array(eventCount);
  const words = amountWords(graph);
  let rank = 0;
  for (let e = 0; e < eventCount; e++) {
    if (e === 0 || block[e]! !== block[e - 1]! || sub[e]! !== sub[e - 1]!) rank = e;
    const at = cursor[from[e]!]!++;
    outEvent[at] = e;
    outTo[at] = to[e]!;
    outRank[at] = rank;
    outAsset[at] = asset[e]!;
    const hi = words[2 * e + AMOUNT_HI_WORD]!;
    const lo = words[2 * e + AMOUNT_LO_WORD]!;
    // Both words all ones is the overflow sentinel (read as words: a BigUint64Array read makes a bigint).
    outBits[at] =
      hi === 0xffff_ffff && lo === 0xffff_ffff
        ? AMOUNT_OVERFLOW_BITS
        : hi !== 0
          ? 64 - Math.clz32(hi)
          : 32 - Math.clz32(lo);
  }
  const built = { incidentBlock, outOffset, outEvent, outTo, outRank, outAsset, outBits };
  timeIndexCache.set(graph, built);
  return built;
}

/** `firstIncidentAtOrAfter(graph, node, block, −Infinity)` over the time index. */
export function firstIncidentFromBlock(graph: TransferGraph, index: TimeIndex, node: number, block: number): number {
  const blocks = index.incidentBlock;
  let lo = graph.incidentOffset[node]!;
  let hi = graph.incidentOffset[node + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (blocks[mid]! < block) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The time rank of a moment (block, sub) in this graph: the rank of the events at exactly that moment
 * when there are any, else half a step before the first event after it. An event is after the moment
 * exactly when its rank is greater, and before it exactly when its rank is smaller. (block, sub) may be
 * any numbers, e.g. sub −1 for the start of a block, and Infinity stays Infinity.
 */
export function timeRankOf(graph: TransferGraph, block: number, sub: number): number {
  if (block === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  let lo = 0;
  let hi = graph.eventCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const b = graph.block[mid]!;
    if (b < block || (b === block && graph.sub[mid]! < sub)) lo = mid + 1;
    else hi = mid;
  }
  return lo < graph.eventCount && graph.block[lo] === block && graph.sub[lo] === sub ? lo : lo - 0.5;
}

/**
 * First index in node's out-edge list whose event's time rank is at or after `rank`, or strictly after
 * it when `strict`. Binary search.
 */
export function firstOutEdgeFromRank(index: TimeIndex, node: number, rank: number, strict: boolean): number {
  const ranks = index.outRank;
  let lo = index.outOffset[node]!;
  let hi = index.outOffset[node + 1]!;
  if (strict) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ranks[mid]! <= rank) lo = mid + 1;
      else hi = mid;
    }
  } else {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ranks[mid]! < rank) lo = mid + 1;
      else hi = mid;
    }
  }
  return lo;
}

/**
 * Accumulates provider transfers (deduplicated by transaction hash and event index) and builds
 * time-ordered graph snapshots from them. Node ids are stable across snapshots; event ids are not.
 */
export class TransferGraphBuilder {
  readonly network: Network;
  private readonly nodeIds = new Map<string, number>();
  private readonly addresses: string[] = [];
  private readonly assetIds = new Map<string, number>();
  private readonly assetList: AssetRef[] = [];
  private readonly sourceIds = new Map<string, number>();
  private readonly sourceList: ChainRequestRef[] = [];
  private readonly eventIds = new Map<string, number>();
  private from = new Uint32Array(1024);
  private to = new Uint32Array(1024);
  private readonly blocks: number[] = [];
  private readonly subs: number[] = [];
  private readonly times: number[] = [];
  private readonly assetOf: number[] = [];
  private readonly amounts: bigint[] = [];
  private readonly txHashes: string[] = [];
  private readonly sourceOfEvent: number[] = [];

  constructor(network: Network) {
    this.network = network;
  }

  get nodeCount(): number {
    return this.addresses.length;
  }

  get eventCount(): number {
    return this.amounts.length;
  }

  internAddress(address: string): number {
    const key = normalizeAddress(this.network, address);
    let id = this.nodeIds.get(key);
    if (id === undefined) {
      id = this.addresses.length;
      this.nodeIds.set(key, id);
      this.addresses.push(key);
    }
    return id;
  }

  nodeOf(address: string): number | undefined {
    return this.nodeIds.get(normalizeAddress(this.network, address));
  }

  addressOf(node: number): string {
    return this.addresses[node]!;
  }

  private internAsset(asset: AssetRef): number {
    const key = assetKey(asset);
    let id = this.assetIds.get(key);
    if (id === undefined) {
      if (this.assetList.length >= 0xffff) throw new RangeError("too many distinct assets in one trace");
      id = this.assetList.length;
      this.assetIds.set(key, id);
      this.assetList.push({
        ...asset,
        contract: asset.contract === null ? null : normalizeAddress(this.network, asset.contract),
      });
    }
    return id;
  }

  private internSource(ref: ChainRequestRef): number {
    const key = `${ref.provider}|${ref.request_hash}`;
    let id = this.sourceIds.get(key);
    if (id === undefined) {
      id = this.sourceList.length;
      this.sourceIds.set(key, id);
      this.sourceList.push(ref);
    }
    return id;
  }

  /** Adds a transfer; returns false when the same (tx_hash, event_index) is already held. */
  addTransfer(transfer: Transfer): boolean {
    if (transfer.network !== this.network) {
      throw new Error(`transfer on ${transfer.network} in a ${this.network} trace`);
    }
    if (transfer.amount < 0n) throw new RangeError(`negative amount in ${transfer.tx_hash}`);
    if (transfer.block < 0n || transfer.block > BigInt(MAX_BLOCK)) throw new RangeError(`block ${transfer.block}`);
    const key = `${transfer.tx_hash.toLowerCase()}:${transfer.event_index}`;
    if (this.eventIds.has(key)) return false;
    const event = this.amounts.length;
    this.eventIds.set(key, event);
    this.from = growUint32(this.from, event + 1);
    this.to = growUint32(this.to, event + 1);
    this.from[event] = this.internAddress(transfer.from);
    this.to[event] = this.internAddress(transfer.to);
    this.blocks.push(Number(transfer.block));
    this.subs.push(encodeSub(transfer.tx_index, transfer.event_index));
    this.times.push(transfer.block_time);
    this.assetOf.push(this.internAsset(transfer.asset));
    this.amounts.push(transfer.amount);
    this.txHashes.push(transfer.tx_hash.toLowerCase());
    this.sourceOfEvent.push(this.internSource(transfer.source_ref));
    return true;
  }

  /** A time-ordered snapshot of everything added so far. */
  build(): TransferGraph {
    const eventCount = this.amounts.length;
    const order = Array.from({ length: eventCount }, (_, i) => i);
    order.sort(
      (a, b) =>
        this.blocks[a]! - this.blocks[b]! ||
        this.subs[a]! - this.subs[b]! ||
        (this.txHashes[a]! < this.txHashes[b]! ? -1 : this.txHashes[a]! > this.txHashes[b]! ? 1 : 0),
    );
    const columns: TransferColumns = {
      nodeCount: this.addresses.length,
      eventCount,
      from: new Uint32Array(eventCount),
      to: new Uint32Array(eventCount),
      block: new Uint32Array(eventCount),
      sub: new Float64Array(eventCount),
      time: new Uint32Array(eventCount),
      asset: new Uint16Array(eventCount),
      amountLow: new BigUint64Array(eventCount),
      amountHigh: new Map(),
    };
    const txHashes: string[] = new Array(eventCount);
    const sources = new Uint32Array(eventCount);
    for (let rank = 0; rank < eventCount; rank++) {
      const e = order[rank]!;
      columns.from[rank] = this.from[e]!;
      columns.to[rank] = this.to[e]!;
      columns.block[rank] = this.blocks[e]!;
      columns.sub[rank] = this.subs[e]!;
      columns.time[rank] = this.times[e]!;
      columns.asset[rank] = this.assetOf[e]!;
      const amount = this.amounts[e]!;
      if (amount >= AMOUNT_OVERFLOW) {
        columns.amountLow[rank] = AMOUNT_OVERFLOW;
        columns.amountHigh.set(rank, amount);
      } else {
        columns.amountLow[rank] = amount;
      }
      txHashes[rank] = this.txHashes[e]!;
      sources[rank] = this.sourceOfEvent[e]!;
    }
    const addresses = this.addresses.slice();
    const nodeIds = new Map(this.nodeIds);
    return {
      network: this.network,
      ...columns,
      ...buildIncidence(columns),
      assets: this.assetList.slice(),
      sources: this.sourceList.slice(),
      addressOf: (node) => addresses[node]!,
      nodeOf: (address) => nodeIds.get(normalizeAddress(this.network, address)),
      txHashOf: (event) => txHashes[event]!,
      sourceOf: (event) => sources[event]!,
    };
  }
}
