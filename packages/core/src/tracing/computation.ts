import type { UsdPrice } from "./amounts";
import type { DiscoveryState, TruncationReason } from "./discovery";
import type { SweepResult } from "./sweep";
import type { TaintLedger, TaintModel } from "./taint";
import type { TransferGraph } from "./transfer-graph";
import type { AddressLabel, ChainRequestRef, Network } from "./types";

/** The shapes shared by the engine's entry points (trace.ts) and the result assembly (result.ts). */

/** A reference to a case document supplied by the caller (e.g. the judgment naming the address). */
export interface CaseSourceRef {
  source_id: string;
  source_type: string;
  title: string;
  uri: string | null;
  hash: string | null;
}

export interface TraceBudget {
  /** Addresses whose events are read. */
  max_expansions?: number;
  /** Transfer events read (provider) or admitted (preloaded graph). */
  max_edges?: number;
  /** An unlabelled address with more events than this is reported as a hub and not expanded. */
  hub_event_limit?: number;
}

export interface NormalizedTraceRequest {
  network: Network;
  subjects: Array<{ address: string; incident_block: number; source_refs: CaseSourceRef[] }>;
  max_hops: number;
  taint_model: TaintModel;
  min_value_default: bigint;
  min_value_per_asset: Record<string, bigint>;
  include_exchanges: boolean;
  include_stablecoins: boolean;
  prices: Record<string, UsdPrice>;
  sweep_window_seconds: number;
  native_gas_allowance: bigint;
  traced_at: string;
}

/** Everything discovery and the sweep produced, before enrichment and result assembly. */
export interface TraceComputation {
  request: NormalizedTraceRequest;
  graph: TransferGraph;
  state: DiscoveryState;
  ledger: TaintLedger;
  sweep: SweepResult;
  labelsOf: (node: number) => readonly AddressLabel[];
  truncation: Array<{ reason: TruncationReason; detail: string }>;
  toBlock: number;
  finalizedBlock: number;
  budget: Required<TraceBudget>;
  /**
   * The provider read that gave the opening balance of (node, asset)'s ledger entry, when one did (a
   * trace through a provider); over a preloaded chain the balance follows from the transfers read.
   */
  openingSourceOf?: (node: number, asset: number) => ChainRequestRef | undefined;
}
