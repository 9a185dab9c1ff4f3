import { isHexAddressNetwork, normalizeAddress } from "./amounts";
import {
  type AddressLabel,
  type LabelCategory,
  type LabelLookup,
  type Network,
  TERMINAL_LABEL_CATEGORIES,
} from "./types";

/**
 * Label confidence levels (0–100), by how the attribution was obtained. The scale follows the
 * open GraphSense TagPack confidence vocabulary so imported tags keep their meaning.
 */
export const LABEL_CONFIDENCE = {
  ownership: 100,
  manual_transaction: 90,
  service_api: 70,
  authority_data: 60,
  trusted_provider: 50,
  forensic: 50,
  untrusted_transaction: 40,
  web_crawl: 20,
  heuristic: 10,
  unknown: 5,
} as const;

export type LabelConfidenceBasis = keyof typeof LABEL_CONFIDENCE;

/** Categories whose addresses end the trace (`TERMINAL_LABEL_CATEGORIES`), as a set. */
export const TERMINAL_CATEGORIES: ReadonlySet<LabelCategory> = new Set(TERMINAL_LABEL_CATEGORIES);

/** On EVM chains, transfers to it burn tokens and transfers from it mint new ones. */
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** Whether funds sent to this address are destroyed by the chain's convention (it is never a subject). */
export function isBurnAddress(network: Network, address: string): boolean {
  return builtInLabels(network, normalizeAddress(network, address)).some((label) => label.category === "burn");
}

const zeroAddressLabels = new Map<Network, readonly AddressLabel[]>();

/**
 * Labels every trace knows without a label file: on an EVM network the zero address is a burn
 * terminal. What reaches it is destroyed, and what leaves it is newly minted, not the funds that were
 * burned, so the trace never follows funds out of it.
 */
export function builtInLabels(network: Network, address: string): readonly AddressLabel[] {
  if (address !== ZERO_ADDRESS || !isHexAddressNetwork(network)) return [];
  let labels = zeroAddressLabels.get(network);
  if (!labels) {
    labels = [
      {
        network,
        address: ZERO_ADDRESS,
        entity: "Zero address (burned)",
        category: "burn",
        confidence: 100,
        confidence_basis: "ownership",
        source: { dataset: "built-in", uri: null, license: null, as_of: null, retrieved_at: null },
        valid_from: null,
        valid_to: null,
        note: "The EVM convention: a transfer to the zero address burns, a transfer from it mints.",
      },
    ];
    zeroAddressLabels.set(network, labels);
  }
  return labels;
}

export function isTerminalCategory(category: LabelCategory): boolean {
  return TERMINAL_CATEGORIES.has(category);
}

/**
 * Whether an address with these labels is a terminal whenever taint could first reach it, from `time`
 * (discovery's earliest arrival, which no tainted edge precedes) on: a terminal label holds from then
 * with no end. A label that holds for a time only leaves it to the sweep, which needs its transfers.
 */
export function isTerminalFrom(labels: readonly AddressLabel[], time: number): boolean {
  return labels.some(
    (label) =>
      isTerminalCategory(label.category) &&
      label.valid_to === null &&
      (label.valid_from === null || label.valid_from <= time),
  );
}

/** Labels valid at `time` (unix seconds). */
export function labelsValidAt(labels: readonly AddressLabel[], time: number): AddressLabel[] {
  return labels.filter(
    (label) =>
      (label.valid_from === null || label.valid_from <= time) && (label.valid_to === null || time < label.valid_to),
  );
}

/**
 * The label that decides how the trace treats an address at `time`: a terminal category first,
 * then the highest confidence, then the entity name (so the choice is deterministic).
 */
export function pickDecidingLabel(labels: readonly AddressLabel[], time: number): AddressLabel | null {
  const valid = labelsValidAt(labels, time);
  valid.sort(
    (a, b) =>
      Number(isTerminalCategory(b.category)) - Number(isTerminalCategory(a.category)) ||
      b.confidence - a.confidence ||
      compareText(a.entity, b.entity) ||
      compareText(a.category, b.category),
  );
  return valid[0] ?? null;
}

/** An in-memory label index. Several labels per address are kept (e.g. an exchange that is also sanctioned). */
export function createLabelIndex(labels: Iterable<AddressLabel>): LabelLookup & { readonly size: number } {
  const byKey = new Map<string, AddressLabel[]>();
  let size = 0;
  for (const label of labels) {
    if (!(label.confidence >= 0 && label.confidence <= 100)) {
      throw new RangeError(`label confidence must be within 0..100: ${label.address}`);
    }
    const key = `${label.network}|${normalizeAddress(label.network, label.address)}`;
    const list = byKey.get(key);
    if (list) list.push(label);
    else byKey.set(key, [label]);
    size++;
  }
  return {
    size,
    labelsFor(network: Network, address: string) {
      return byKey.get(`${network}|${normalizeAddress(network, address)}`) ?? [];
    },
  };
}

/** Several lookups as one (e.g. exchange labels plus the sanctions list). */
export function combineLabelLookups(...lookups: LabelLookup[]): LabelLookup {
  return {
    labelsFor(network, address) {
      return lookups.flatMap((lookup) => lookup.labelsFor(network, address));
    },
  };
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
