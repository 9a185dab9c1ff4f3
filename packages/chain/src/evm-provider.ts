import {
  type AmountFact,
  type AssetRef,
  type ChainProvider,
  type ChainRequestRef,
  type FreezeCheckMethod,
  type FreezeFact,
  hashCanonical,
  type Network,
  normalizeAddress,
  type Transfer,
  type TransferPage,
  type TransferQuery,
} from "@crs/core";
import {
  type Address,
  BaseError,
  createPublicClient,
  erc20Abi,
  type Hex,
  http,
  numberToHex,
  type PublicClient,
  parseAbiItem,
} from "viem";

/**
 * A chain provider over an EVM JSON-RPC endpoint, with viem.
 *
 * - Token transfers: ERC-20 `Transfer(address,address,uint256)` logs with the address as the
 *   indexed `from` (outflows) or `to` (inflows), for every token or a configured list.
 * - Native transfers: the transaction's own value, from `trace_filter` (Erigon, Reth, Nethermind,
 *   anvil). Value moved by internal calls is not followed (`nativeTransfers: "trace_filter"` reads
 *   top-level calls only); `"off"` reads tokens only.
 * - Paging: one page per block window. When the node refuses a window as too large (the messages
 *   differ per provider), the window is narrowed to the range the error suggests, or halved, and
 *   the same window start is asked again; it widens again after a success.
 * - Retries: transient failures (HTTP 429/5xx/timeouts, JSON-RPC internal and rate-limit codes) are
 *   retried by viem's HTTP transport with exponential backoff (`retryCount`, `retryDelayMs`).
 * - Freeze lists: `isBlacklisted` / `isBlackListed` / `isFrozen` read by `eth_call` at a pinned block.
 *
 * Nothing here reads the environment; the URL and options come from the caller.
 */
export interface EvmRpcProviderOptions {
  url: string;
  /** e.g. `ethereum` or `evm:31337`. */
  network: Network;
  /** Display name for source refs; default `evm-rpc <host>`. Never put credentials here. */
  name?: string;
  /** ERC-20 contracts to follow, or every token (`all`, the default). */
  tokens?: "all" | string[];
  nativeTransfers?: "trace_filter" | "off";
  /** First block window tried per page (default 2,000); narrowed on limit errors. */
  blockWindow?: number;
  retryCount?: number;
  retryDelayMs?: number;
  timeoutMs?: number;
  /** When the node has no `finalized` block tag: head minus this many blocks (default 64). */
  finalityDepth?: number;
  /** Clock for `fetched_at` (default: the system clock). */
  now?: () => Date;
  /** Symbol of the native coin (default `ETH`). */
  nativeSymbol?: string;
}

const TRANSFER_EVENT = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

const freezeAbi = (method: FreezeCheckMethod) =>
  [
    {
      type: "function",
      name: method,
      stateMutability: "view",
      inputs: [{ name: "account", type: "address" }],
      outputs: [{ name: "", type: "bool" }],
    },
  ] as const;

/** Messages nodes and hosted providers use when a log or trace query is too large. */
const RANGE_LIMIT_PATTERNS = [
  /block range/i,
  /range (is )?too (large|wide|big)/i,
  /exceeds? (the )?(max|maximum)/i,
  /query returned more than/i,
  /response size (is )?(exceeded|too large)/i,
  /too many (results|logs|blocks)/i,
  /limit exceeded/i,
  /max(imum)? results/i,
  /retry with the range/i,
  /limited to (a )?[\d,]+ (block )?range/i,
];

interface TraceCall {
  action: { from: Hex; to: Hex; value: Hex; callType?: string };
  blockNumber: number;
  transactionHash: Hex;
  transactionPosition: number;
  traceAddress: number[];
  type: string;
  error?: string;
}

type RawRequest = (args: { method: string; params: unknown[] }) => Promise<unknown>;

function errorText(error: unknown): string {
  if (error instanceof BaseError) return [error.shortMessage, error.details, error.message].join(" ");
  return error instanceof Error ? error.message : String(error);
}

export function isRangeLimitError(error: unknown): boolean {
  const text = errorText(error);
  return RANGE_LIMIT_PATTERNS.some((pattern) => pattern.test(text));
}

/** The block range a provider suggests in its error (e.g. `retry with the range 0x10-0x1f`), if any. */
export function suggestedRange(error: unknown): [bigint, bigint] | null {
  const match = /(0x[0-9a-f]+)\s*(?:-|,|to)\s*(0x[0-9a-f]+)/i.exec(errorText(error));
  if (!match) return null;
  const from = BigInt(match[1]!);
  const to = BigInt(match[2]!);
  return to >= from ? [from, to] : null;
}

export class EvmRpcProvider implements ChainProvider {
  readonly kind = "live" as const;
  readonly network: Network;
  readonly name: string;
  private readonly client: PublicClient;
  private readonly raw: RawRequest;
  private readonly tokens: "all" | Address[];
  private readonly native: "trace_filter" | "off";
  private readonly initialWindow: bigint;
  private readonly finalityDepth: bigint;
  private readonly now: () => Date;
  private readonly uri: string;
  private readonly nativeAsset: AssetRef;
  private readonly blockTimes = new Map<bigint, number>();
  private readonly assetCache = new Map<string, Promise<AssetRef>>();
  private finalized: bigint | null = null;
  /** Block windows narrowed after limit errors; exposed for tests and diagnostics. */
  rangeSplits = 0;

  constructor(options: EvmRpcProviderOptions) {
    const url = new URL(options.url);
    this.network = options.network;
    this.uri = `${url.protocol}//${url.host}`;
    this.name = options.name ?? `evm-rpc ${url.host}`;
    this.tokens = options.tokens === undefined || options.tokens === "all" ? "all" : options.tokens.map(toAddress);
    this.native = options.nativeTransfers ?? "trace_filter";
    this.initialWindow = BigInt(options.blockWindow ?? 2_000);
    if (this.initialWindow < 1n) throw new RangeError("blockWindow must be at least 1");
    this.finalityDepth = BigInt(options.finalityDepth ?? 64);
    this.now = options.now ?? (() => new Date());
    this.nativeAsset = { kind: "native", contract: null, decimals: 18, symbol: options.nativeSymbol ?? "ETH" };
    this.client = createPublicClient({
      transport: http(options.url, {
        retryCount: options.retryCount ?? 3,
        retryDelay: options.retryDelayMs ?? 150,
        timeout: options.timeoutMs ?? 20_000,
      }),
    });
    this.raw = this.client.request as unknown as RawRequest;
  }

  async head(signal?: AbortSignal): Promise<{ number: bigint; finalized: bigint }> {
    signal?.throwIfAborted();
    const number = await this.client.getBlockNumber({ cacheTime: 0 });
    let finalized: bigint;
    try {
      const block = await this.client.getBlock({ blockTag: "finalized" });
      finalized = block.number ?? 0n;
    } catch {
      finalized = number > this.finalityDepth ? number - this.finalityDepth : 0n;
    }
    this.finalized = finalized;
    return { number, finalized };
  }

  private ref(method: string, params: unknown, range: [bigint, bigint] | null): ChainRequestRef {
    const finalized = range !== null && this.finalized !== null && range[1] <= this.finalized;
    return {
      provider: this.name,
      method,
      request_hash: hashCanonical({ network: this.network, method, params }),
      block_range: range ? [range[0].toString(), range[1].toString()] : null,
      fetched_at: this.now().toISOString(),
      finalized,
      uri: this.uri,
    };
  }

  async transfers(query: TransferQuery): Promise<TransferPage> {
    const address = toAddress(query.address);
    if (this.finalized === null) await this.head(query.signal);
    let cursor = parseCursor(query.cursor, query.fromBlock, this.initialWindow);
    for (;;) {
      query.signal?.throwIfAborted();
      const windowEnd = min(cursor.from + cursor.window - 1n, query.toBlock);
      try {
        const items = await this.readWindow(address, cursor.from, windowEnd, query.signal);
        const next =
          windowEnd >= query.toBlock
            ? null
            : JSON.stringify({
                from: (windowEnd + 1n).toString(),
                window: min(cursor.window * 2n, this.initialWindow).toString(),
              });
        return { items, next };
      } catch (error) {
        if (!isRangeLimitError(error) || cursor.window <= 1n) throw error;
        this.rangeSplits++;
        const suggested = suggestedRange(error);
        const narrowed =
          suggested && suggested[0] === cursor.from && suggested[1] < windowEnd
            ? suggested[1] - suggested[0] + 1n
            : cursor.window / 2n;
        cursor = { from: cursor.from, window: narrowed < 1n ? 1n : narrowed };
      }
    }
  }

  private async readWindow(address: Address, from: bigint, to: bigint, signal?: AbortSignal): Promise<Transfer[]> {
    const range: [bigint, bigint] = [from, to];
    const tokenFilter = this.tokens === "all" ? undefined : this.tokens;
    const [outLogs, inLogs] = await Promise.all([
      this.client.getLogs({
        address: tokenFilter,
        event: TRANSFER_EVENT,
        args: { from: address },
        fromBlock: from,
        toBlock: to,
        strict: true,
      }),
      this.client.getLogs({
        address: tokenFilter,
        event: TRANSFER_EVENT,
        args: { to: address },
        fromBlock: from,
        toBlock: to,
        strict: true,
      }),
    ]);
    signal?.throwIfAborted();
    let traces: TraceCall[] = [];
    if (this.native === "trace_filter") {
      const bounds = { fromBlock: numberToHex(from), toBlock: numberToHex(to) };
      const [outTraces, inTraces] = await Promise.all([
        this.raw({ method: "trace_filter", params: [{ ...bounds, fromAddress: [address] }] }),
        this.raw({ method: "trace_filter", params: [{ ...bounds, toAddress: [address] }] }),
      ]);
      traces = [...((outTraces as TraceCall[] | null) ?? []), ...((inTraces as TraceCall[] | null) ?? [])];
    }
    const methods = this.native === "trace_filter" ? "eth_getLogs+trace_filter" : "eth_getLogs";
    const sourceRef = this.ref(
      methods,
      { address, tokens: this.tokens, native: this.native, range: range.map(String) },
      range,
    );
    const seen = new Set<string>();
    const items: Transfer[] = [];
    for (const log of [...outLogs, ...inLogs]) {
      const key = `${log.transactionHash}:${log.logIndex}`;
      if (seen.has(key)) continue;
      seen.add(key);
      items.push({
        network: this.network,
        tx_hash: log.transactionHash,
        event_index: log.logIndex,
        block: log.blockNumber,
        block_time: await this.blockTime(log.blockNumber),
        tx_index: log.transactionIndex,
        from: normalizeAddress(this.network, log.args.from),
        to: normalizeAddress(this.network, log.args.to),
        asset: await this.tokenAsset(log.address),
        amount: log.args.value,
        source_ref: sourceRef,
      });
    }
    for (const trace of traces) {
      if (trace.type !== "call" || trace.traceAddress.length !== 0 || trace.error) continue;
      const value = BigInt(trace.action.value);
      if (value === 0n) continue;
      const key = `${trace.transactionHash}:-1`;
      if (seen.has(key)) continue;
      seen.add(key);
      const block = BigInt(trace.blockNumber);
      items.push({
        network: this.network,
        tx_hash: trace.transactionHash,
        event_index: -1,
        block,
        block_time: await this.blockTime(block),
        tx_index: trace.transactionPosition,
        from: normalizeAddress(this.network, trace.action.from),
        to: normalizeAddress(this.network, trace.action.to),
        asset: this.nativeAsset,
        amount: value,
        source_ref: sourceRef,
      });
    }
    return items;
  }

  private async blockTime(block: bigint): Promise<number> {
    let time = this.blockTimes.get(block);
    if (time === undefined) {
      const header = await this.client.getBlock({ blockNumber: block });
      time = Number(header.timestamp);
      this.blockTimes.set(block, time);
    }
    return time;
  }

  private tokenAsset(contract: Address): Promise<AssetRef> {
    const key = contract.toLowerCase();
    let pending = this.assetCache.get(key);
    if (!pending) {
      pending = (async () => {
        const [decimals, symbol] = await Promise.allSettled([
          this.client.readContract({ address: contract, abi: erc20Abi, functionName: "decimals" }),
          this.client.readContract({ address: contract, abi: erc20Abi, functionName: "symbol" }),
        ]);
        return {
          kind: "erc20" as const,
          contract: key,
          decimals: decimals.status === "fulfilled" ? Number(decimals.value) : null,
          symbol: symbol.status === "fulfilled" ? symbol.value : null,
        };
      })();
      this.assetCache.set(key, pending);
    }
    return pending;
  }

  async assetOf(contract: string, signal?: AbortSignal): Promise<AssetRef | null> {
    signal?.throwIfAborted();
    return this.tokenAsset(toAddress(contract));
  }

  async balanceAt(address: string, asset: AssetRef, block: bigint, signal?: AbortSignal): Promise<AmountFact | null> {
    signal?.throwIfAborted();
    // Block −1 means the genesis allocation, which is the state at block 0 (block 0 has no transfers).
    const at = block < 0n ? 0n : block;
    const account = toAddress(address);
    try {
      if (asset.kind === "native") {
        const amount = await this.client.getBalance({ address: account, blockNumber: at });
        return { amount, source_ref: this.ref("eth_getBalance", { address: account, block: at.toString() }, [at, at]) };
      }
      const token = toAddress(asset.contract!);
      const amount = await this.client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [account],
        blockNumber: at,
      });
      return {
        amount,
        source_ref: this.ref("eth_call balanceOf", { token, address: account, block: at.toString() }, [at, at]),
      };
    } catch (error) {
      if (error instanceof Error && error.name === "AbortError") throw error;
      return null;
    }
  }

  async freezeStatus(
    token: string,
    address: string,
    method: FreezeCheckMethod,
    block: bigint,
    signal?: AbortSignal,
  ): Promise<FreezeFact> {
    signal?.throwIfAborted();
    const contract = toAddress(token);
    const account = toAddress(address);
    const sourceRef = this.ref(`eth_call ${method}`, { token: contract, address: account, block: block.toString() }, [
      block,
      block,
    ]);
    try {
      const frozen = await this.client.readContract({
        address: contract,
        abi: freezeAbi(method),
        functionName: method,
        args: [account],
        blockNumber: block,
      });
      return { frozen, reason: null, source_ref: sourceRef };
    } catch (error) {
      return {
        frozen: null,
        reason: `the ${method} call failed: ${errorText(error).slice(0, 200)}`,
        source_ref: sourceRef,
      };
    }
  }
}

function toAddress(value: string): Address {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new RangeError(`not an EVM address: ${value}`);
  return value.toLowerCase() as Address;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function parseCursor(cursor: string | null, fromBlock: bigint, window: bigint): { from: bigint; window: bigint } {
  if (cursor === null) return { from: fromBlock, window };
  const parsed = JSON.parse(cursor) as { from: string; window: string };
  return { from: BigInt(parsed.from), window: BigInt(parsed.window) };
}
