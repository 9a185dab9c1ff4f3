import { canonicalize } from "./canonical-json";
import { hashCanonical } from "./hashing";
import { normalizePartyName, partyNameMatches } from "./names";
import { addressComparisonKey, type PartyRole, type Wallet } from "./parties";

/**
 * A debtor's graph and asset hypotheses (2026-06-11), built only from what the case record holds:
 * the debtor's party row (names, identifiers, wallets), the other parties of its matter, the
 * matter's judgments that name the debtor, and the matter's succeeded asset maps traced from one
 * of the debtor's wallets. Every claim names the records it rests on and carries a confidence
 * given by a fixed rule; nothing is inferred beyond what those records say.
 *
 * Confidence:
 * - a fact the client recorded (a party row, a judgment) is taken as recorded: 1;
 * - a fact an asset map inferred carries the map's own confidence, as a number:
 *   high 0.9, medium 0.6, low 0.3 (`TRACE_CONFIDENCE`). An exchange hypothesis has its own;
 *   a holding has the map's confidence in the wallet that holds it.
 *
 * What of an asset map is the debtor's:
 * - the map counts when one of its subjects (the traced wallets) is one of the debtor's wallets
 *   (addresses compared as `addressComparisonKey` does: EVM addresses without case);
 * - an exchange hypothesis, when the path it names starts at one of the debtor's wallets (or the
 *   deposit wallet is itself one), or when every subject of the map is the debtor's;
 * - a token or stablecoin holding, when it sits at one of the debtor's wallets, or when every
 *   subject of the map is the debtor's (otherwise the value could have come from another subject).
 */

/** The kinds of recorded facts a graph may be built from. */
export const DEBTOR_GRAPH_SOURCES = ["parties", "identifiers", "wallets", "judgments", "asset_maps"] as const;
export type DebtorGraphSource = (typeof DEBTOR_GRAPH_SOURCES)[number];

/** What a claim rests on: the debtor's party row (and its matter's), a judgment, or an asset map. */
export const DEBTOR_CLAIM_SOURCE_TYPES = ["party_record", "judgment_record", "asset_map"] as const;
export type DebtorClaimSourceType = (typeof DEBTOR_CLAIM_SOURCE_TYPES)[number];

export const DEBTOR_GRAPH_NODE_TYPES = [
  "party",
  "matter",
  "name",
  "identifier",
  "wallet",
  "judgment",
  "exchange",
  "asset",
] as const;
export type DebtorGraphNodeType = (typeof DEBTOR_GRAPH_NODE_TYPES)[number];

/** The classes of asset hypotheses. */
export const ASSET_HYPOTHESIS_TYPES = ["wallet", "token_holding", "stablecoin_holding", "exchange_account"] as const;
export type AssetHypothesisType = (typeof ASSET_HYPOTHESIS_TYPES)[number];

/** A fact the client recorded. */
export const RECORDED_FACT_CONFIDENCE = 1;
/** An asset map's confidence as a number. */
export const TRACE_CONFIDENCE = { high: 0.9, medium: 0.6, low: 0.3 } as const;
export type TraceConfidence = keyof typeof TRACE_CONFIDENCE;

// ---------------------------------------------------------------------------------------------
// Inputs: the records as the service reads them

export interface GraphParty {
  id: string;
  matter_id: string;
  role: PartyRole;
  name: string;
  legal_name: string | null;
  aliases: readonly string[];
  identifiers: Readonly<Record<string, unknown>>;
  wallets: readonly Wallet[];
}

export interface GraphJudgment {
  id: string;
  matter_id: string;
  court: string;
  case_number: string;
  creditor: string;
  debtor: string;
}

interface TraceAmountFacts {
  base_units: string;
  amount: string | null;
}

/** The parts of a succeeded asset map the graph reads (the contract's result fields, narrowed). */
export interface GraphAssetMap {
  id: string;
  matter_id: string;
  subjects: readonly string[];
  wallets: readonly { address: string; confidence: TraceConfidence }[];
  edges: readonly { edge_id: string; from: string }[];
  exchange_hypotheses: readonly {
    hypothesis_id: string;
    exchange: string | null;
    wallet: string;
    basis: string;
    confidence: TraceConfidence;
    packet_readiness: "ready" | "needs_review" | "insufficient";
    path_edge_ids: readonly string[];
    source_refs: readonly string[];
  }[];
  token_exposures: readonly {
    asset: string;
    symbol: string | null;
    network: string;
    wallet: string;
    amount: TraceAmountFacts;
    basis: ExposureBasis;
    usd_value: string | null;
    source_refs: readonly string[];
  }[];
  stablecoin_exposure: readonly {
    issuer: string;
    asset: string;
    symbol: string;
    network: string;
    wallet: string;
    amount: TraceAmountFacts;
    basis: ExposureBasis;
    frozen: boolean | null;
    source_refs: readonly string[];
  }[];
}

/** How an asset map came to list a holding (see the trace result's exposures). */
type ExposureBasis = "retained" | "received" | "held";
const HOLDING_PHRASE: Record<ExposureBasis, string> = {
  retained: "still held at",
  received: "received by",
  held: "held (read from the chain, not moved in the window) at",
};

export interface DebtorFacts {
  debtor: GraphParty;
  /** every party of the debtor's matter (the debtor among them or not: it is skipped) */
  parties: readonly GraphParty[];
  /** every judgment of the debtor's matter; those naming the debtor are kept */
  judgments: readonly GraphJudgment[];
  /** the matter's succeeded asset maps; those traced from a debtor's wallet are kept */
  assetMaps: readonly GraphAssetMap[];
}

// ---------------------------------------------------------------------------------------------
// Outputs

export interface ClaimSourceRef {
  record_type: "party" | "judgment" | "asset_map";
  record_id: string;
  /** for an asset map: the `source_id`s of its source manifest the fact rests on */
  source_ids: string[];
}

export interface DebtorClaim {
  claim_id: string;
  matter_id: string;
  subject: string;
  predicate: string;
  object: string;
  source_type: DebtorClaimSourceType;
  source_refs: ClaimSourceRef[];
  confidence: number;
}

export interface DebtorGraphNode {
  node_id: string;
  type: DebtorGraphNodeType;
  label: string;
  /** the record the node is (a party, a judgment, a matter); null for a value (a name, a wallet) */
  record_id: string | null;
}

export interface DebtorGraphEdge {
  from: string;
  to: string;
  predicate: string;
  /** the claims that assert this edge */
  claim_ids: string[];
}

export interface DebtorGraphReview {
  review_required: boolean;
  review_status: "pending" | "not_required";
  reasons: string[];
}

export interface DebtorGraph {
  nodes: DebtorGraphNode[];
  edges: DebtorGraphEdge[];
  claims: DebtorClaim[];
  review_state: DebtorGraphReview;
}

export interface AssetHypothesis {
  hypothesis_id: string;
  asset_type: AssetHypothesisType;
  description: string;
  confidence: number;
  source_refs: ClaimSourceRef[];
}

// ---------------------------------------------------------------------------------------------
// Node ids

/** The graph's node id of a party (what claw's expand compares to leave pursued parties out). */
export const partyNode = (id: string) => `party:${id}`;
const matterNode = (id: string) => `matter:${id}`;
const nameNode = (name: string) => `name:${normalizePartyName(name)}`;
/** The graph's node id of a wallet, by its comparison address. */
export const walletNode = (address: string) => `wallet:${addressComparisonKey(address)}`;
const judgmentNode = (id: string) => `judgment:${id}`;
const exchangeNode = (name: string) => `exchange:${name}`;
const assetNode = (network: string, asset: string) => `asset:${network}:${asset}`;

function identifierText(value: unknown): string {
  return typeof value === "string" ? value : canonicalize(value);
}

/** An id that is the same whenever the same fact rests on the same sources. */
export function contentId(prefix: string, value: unknown): string {
  return `${prefix}_${hashCanonical(value).slice(0, 26)}`;
}

// ---------------------------------------------------------------------------------------------
// Which asset-map facts are the debtor's

export interface DebtorAssetMap {
  map: GraphAssetMap;
  /** every subject of the map is one of the debtor's wallets */
  allSubjectsDebtors: boolean;
  isDebtorWallet: (address: string) => boolean;
  /** the map's confidence in a wallet it lists; null for one it does not, whose facts are left out */
  walletConfidence: (address: string) => TraceConfidence | null;
}

export function debtorAssetMaps(facts: DebtorFacts): DebtorAssetMap[] {
  const own = new Set(facts.debtor.wallets.map((wallet) => addressComparisonKey(wallet.address)));
  const isDebtorWallet = (address: string) => own.has(addressComparisonKey(address));
  return facts.assetMaps
    .filter((map) => map.matter_id === facts.debtor.matter_id && map.subjects.some(isDebtorWallet))
    .map((map) => {
      const confidence = new Map(map.wallets.map((w) => [addressComparisonKey(w.address), w.confidence]));
      return {
        map,
        allSubjectsDebtors: map.subjects.every(isDebtorWallet),
        isDebtorWallet,
        // Every wallet a fact names is in the map's wallet list; one that is not is not vouched for, and
        // its facts are left out rather than given a confidence the map never stated.
        walletConfidence: (address: string) => confidence.get(addressComparisonKey(address)) ?? null,
      };
    });
}

/** Where the funds of an exchange hypothesis came from: the first path edge's sender, or the wallet itself. */
function hypothesisOrigin(map: GraphAssetMap, hypothesis: GraphAssetMap["exchange_hypotheses"][number]): string {
  const first = hypothesis.path_edge_ids[0];
  if (first === undefined) return hypothesis.wallet;
  return map.edges.find((edge) => edge.edge_id === first)?.from ?? hypothesis.wallet;
}

/** The map's exchange hypotheses that are the debtor's, each with the debtor's wallet the path starts at (null: any). */
export function debtorExchangeHypotheses(entry: DebtorAssetMap) {
  return entry.map.exchange_hypotheses.flatMap((hypothesis) => {
    const origin = hypothesisOrigin(entry.map, hypothesis);
    if (entry.isDebtorWallet(origin)) return [{ hypothesis, origin: origin as string | null }];
    if (entry.isDebtorWallet(hypothesis.wallet)) return [{ hypothesis, origin: hypothesis.wallet }];
    return entry.allSubjectsDebtors ? [{ hypothesis, origin: null }] : [];
  });
}

export function isDebtorHolding(entry: DebtorAssetMap, wallet: string): boolean {
  return entry.allSubjectsDebtors || entry.isDebtorWallet(wallet);
}

export const holdingKey = (network: string, asset: string, wallet: string) =>
  `${network}|${asset.toLowerCase()}|${addressComparisonKey(wallet)}`;

export function mapRef(map: GraphAssetMap, sourceIds: readonly string[]): ClaimSourceRef {
  return { record_type: "asset_map", record_id: map.id, source_ids: [...sourceIds] };
}

// ---------------------------------------------------------------------------------------------
// The graph

/**
 * The debtor's graph from its recorded facts, reading only the kinds of facts in `include`.
 * Claims come in a fixed order (the debtor's own record, the other parties, identifiers, wallets,
 * judgments, asset maps; each in the order given), nodes in the order claims first name them (the
 * debtor first), and one edge per (subject, predicate, object) with every claim that asserts it.
 */
export function buildDebtorGraph(facts: DebtorFacts, include: readonly DebtorGraphSource[]): DebtorGraph {
  const wanted = new Set(include);
  const { debtor } = facts;
  const matterId = debtor.matter_id;
  const nodes = new Map<string, DebtorGraphNode>();
  const claims = new Map<string, DebtorClaim>();

  const node = (node_id: string, type: DebtorGraphNodeType, label: string, record_id: string | null = null) => {
    if (!nodes.has(node_id)) nodes.set(node_id, { node_id, type, label, record_id });
    return node_id;
  };
  const claim = (
    subject: string,
    predicate: string,
    object: string,
    source_type: DebtorClaimSourceType,
    source_refs: ClaimSourceRef[],
    confidence: number,
  ) => {
    const claim_id = contentId("claim", { subject, predicate, object, source_type, source_refs });
    if (!claims.has(claim_id)) {
      claims.set(claim_id, {
        claim_id,
        matter_id: matterId,
        subject,
        predicate,
        object,
        source_type,
        source_refs,
        confidence,
      });
    }
  };

  const debtorRef: ClaimSourceRef = { record_type: "party", record_id: debtor.id, source_ids: [] };
  const debtorId = node(partyNode(debtor.id), "party", debtor.legal_name ?? debtor.name, debtor.id);
  const recorded = (subject: string, predicate: string, object: string, ref: ClaimSourceRef = debtorRef) =>
    claim(subject, predicate, object, "party_record", [ref], RECORDED_FACT_CONFIDENCE);

  if (wanted.has("parties")) {
    const matter = node(matterNode(matterId), "matter", matterId, matterId);
    recorded(debtorId, "debtor_in", matter);
    recorded(debtorId, "has_name", node(nameNode(debtor.name), "name", debtor.name));
    if (debtor.legal_name)
      recorded(debtorId, "has_legal_name", node(nameNode(debtor.legal_name), "name", debtor.legal_name));
    for (const alias of debtor.aliases) recorded(debtorId, "also_known_as", node(nameNode(alias), "name", alias));
    for (const party of facts.parties) {
      if (party.id === debtor.id || party.matter_id !== matterId) continue;
      const other = node(partyNode(party.id), "party", party.legal_name ?? party.name, party.id);
      recorded(other, `${party.role}_in`, matter, { record_type: "party", record_id: party.id, source_ids: [] });
    }
  }

  if (wanted.has("identifiers")) {
    for (const [kind, value] of Object.entries(debtor.identifiers)) {
      const text = identifierText(value);
      recorded(debtorId, "has_identifier", node(`identifier:${kind}:${text}`, "identifier", `${kind}: ${text}`));
    }
  }

  if (wanted.has("wallets")) {
    for (const wallet of debtor.wallets) {
      recorded(debtorId, "controls_wallet", node(walletNode(wallet.address), "wallet", wallet.address));
    }
  }

  if (wanted.has("judgments")) {
    const claimants = facts.parties.filter((party) => party.role === "claimant" && party.matter_id === matterId);
    for (const judgment of facts.judgments) {
      if (judgment.matter_id !== matterId || !partyNameMatches(judgment.debtor, debtor)) continue;
      const ref: ClaimSourceRef = { record_type: "judgment", record_id: judgment.id, source_ids: [] };
      const label = `${judgment.court} ${judgment.case_number}`;
      const subject = node(judgmentNode(judgment.id), "judgment", label, judgment.id);
      claim(subject, "names_debtor", debtorId, "judgment_record", [ref], RECORDED_FACT_CONFIDENCE);
      for (const creditor of claimants) {
        if (!partyNameMatches(judgment.creditor, creditor)) continue;
        const object = node(partyNode(creditor.id), "party", creditor.legal_name ?? creditor.name, creditor.id);
        claim(subject, "names_creditor", object, "judgment_record", [ref], RECORDED_FACT_CONFIDENCE);
      }
    }
  }

  if (wanted.has("asset_maps")) {
    for (const entry of debtorAssetMaps(facts)) {
      const { map } = entry;
      for (const { hypothesis, origin } of debtorExchangeHypotheses(entry)) {
        const confidence = TRACE_CONFIDENCE[hypothesis.confidence];
        const refs = [mapRef(map, hypothesis.source_refs)];
        const deposit = node(walletNode(hypothesis.wallet), "wallet", hypothesis.wallet);
        const from = origin === null ? debtorId : node(walletNode(origin), "wallet", origin);
        if (from !== deposit) claim(from, "funds_reached", deposit, "asset_map", refs, confidence);
        if (hypothesis.exchange !== null) {
          const exchange = node(exchangeNode(hypothesis.exchange), "exchange", hypothesis.exchange);
          claim(deposit, "deposit_address_of", exchange, "asset_map", refs, confidence);
        }
      }
      for (const exposure of map.token_exposures) {
        const level = entry.walletConfidence(exposure.wallet);
        if (!isDebtorHolding(entry, exposure.wallet) || level === null) continue;
        const confidence = TRACE_CONFIDENCE[level];
        const refs = [mapRef(map, exposure.source_refs)];
        const wallet = node(walletNode(exposure.wallet), "wallet", exposure.wallet);
        if (!entry.isDebtorWallet(exposure.wallet))
          claim(debtorId, "funds_reached", wallet, "asset_map", refs, confidence);
        const asset = node(assetNode(exposure.network, exposure.asset), "asset", exposure.symbol ?? exposure.asset);
        claim(wallet, exposure.basis === "received" ? "received" : "holds", asset, "asset_map", refs, confidence);
      }
    }
  }

  const claimList = [...claims.values()];
  const edges = new Map<string, DebtorGraphEdge>();
  for (const c of claimList) {
    const key = canonicalize([c.subject, c.predicate, c.object]);
    const edge = edges.get(key);
    if (edge) edge.claim_ids.push(c.claim_id);
    else edges.set(key, { from: c.subject, to: c.object, predicate: c.predicate, claim_ids: [c.claim_id] });
  }
  return {
    nodes: [...nodes.values()],
    edges: [...edges.values()],
    claims: claimList,
    review_state: graphReview(claimList),
  };
}

/** A graph needs a reviewer while any claim rests on an asset map's inference rather than on a record. */
export function graphReview(claims: readonly DebtorClaim[]): DebtorGraphReview {
  const inferred = claims.filter((c) => c.source_type === "asset_map").length;
  if (inferred === 0) return { review_required: false, review_status: "not_required", reasons: [] };
  return {
    review_required: true,
    review_status: "pending",
    reasons: [
      `${inferred} claim${inferred === 1 ? " rests" : "s rest"} on asset-map traces, which a reviewer confirms before they are relied on`,
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Asset hypotheses

function amountText(amount: TraceAmountFacts, unit: string): string {
  return amount.amount === null ? `${amount.base_units} base units of ${unit}` : `${amount.amount} ${unit}`;
}

/**
 * Where the debtor's assets may be, from its recorded facts: each wallet recorded for it, each
 * token or stablecoin holding and each exchange deposit an asset map of its wallets found. A
 * stablecoin holding is reported once, as `stablecoin_holding` (with its issuer and freeze
 * status), not again as a token holding. Kept: the classes asked for (all when `classes` is
 * null) with a confidence of at least `minConfidence`; ordered by confidence, highest first,
 * then in the order found.
 */
export function deriveAssetHypotheses(
  facts: DebtorFacts,
  classes: readonly AssetHypothesisType[] | null,
  minConfidence: number,
): AssetHypothesis[] {
  const found: AssetHypothesis[] = [];
  const foundIds = new Set<string>();
  const add = (
    asset_type: AssetHypothesisType,
    description: string,
    confidence: number,
    source_refs: ClaimSourceRef[],
  ) => {
    const hypothesis_id = contentId("ahyp", { asset_type, description, source_refs });
    if (!foundIds.has(hypothesis_id)) {
      foundIds.add(hypothesis_id);
      found.push({ hypothesis_id, asset_type, description, confidence, source_refs });
    }
  };

  const { debtor } = facts;
  for (const wallet of debtor.wallets) {
    const on = wallet.network ? ` on ${wallet.network}` : "";
    const label = wallet.label ? ` (${wallet.label})` : "";
    add("wallet", `Wallet ${wallet.address}${on}${label}, recorded for the debtor.`, RECORDED_FACT_CONFIDENCE, [
      { record_type: "party", record_id: debtor.id, source_ids: [] },
    ]);
  }

  for (const entry of debtorAssetMaps(facts)) {
    const { map } = entry;
    const stablecoins = new Set<string>();
    for (const exposure of map.stablecoin_exposure) {
      stablecoins.add(holdingKey(exposure.network, exposure.asset, exposure.wallet));
      const level = entry.walletConfidence(exposure.wallet);
      if (!isDebtorHolding(entry, exposure.wallet) || level === null) continue;
      const held = HOLDING_PHRASE[exposure.basis];
      const frozen =
        exposure.frozen === null
          ? "freeze status unknown"
          : exposure.frozen
            ? "frozen by the issuer"
            : "not frozen by the issuer";
      add(
        "stablecoin_holding",
        `${amountText(exposure.amount, exposure.symbol)} (issued by ${exposure.issuer}) ${held} ${exposure.wallet} on ${exposure.network}, ${frozen}; traced in asset map ${map.id}.`,
        TRACE_CONFIDENCE[level],
        [mapRef(map, exposure.source_refs)],
      );
    }
    for (const exposure of map.token_exposures) {
      if (stablecoins.has(holdingKey(exposure.network, exposure.asset, exposure.wallet))) continue;
      const level = entry.walletConfidence(exposure.wallet);
      if (!isDebtorHolding(entry, exposure.wallet) || level === null) continue;
      const held = HOLDING_PHRASE[exposure.basis];
      const usd = exposure.usd_value === null ? "" : ` (USD ${exposure.usd_value})`;
      add(
        "token_holding",
        `${amountText(exposure.amount, exposure.symbol ?? exposure.asset)}${usd} ${held} ${exposure.wallet} on ${exposure.network}; traced in asset map ${map.id}.`,
        TRACE_CONFIDENCE[level],
        [mapRef(map, exposure.source_refs)],
      );
    }
    for (const { hypothesis, origin } of debtorExchangeHypotheses(entry)) {
      const from = origin === null ? "the debtor's wallets" : origin;
      const venue =
        hypothesis.exchange === null
          ? "a service address no label attributes"
          : `a deposit address attributed to ${hypothesis.exchange}`;
      add(
        "exchange_account",
        `Funds traced from ${from} reached ${hypothesis.wallet}, ${venue} (basis ${hypothesis.basis}); asset map ${map.id}, hypothesis ${hypothesis.hypothesis_id}.`,
        TRACE_CONFIDENCE[hypothesis.confidence],
        [mapRef(map, hypothesis.source_refs)],
      );
    }
  }

  const allowed = classes === null ? null : new Set(classes);
  return found
    .filter((h) => (allowed === null || allowed.has(h.asset_type)) && h.confidence >= minConfidence)
    .sort((a, b) => b.confidence - a.confidence);
}
