import { readFile } from "node:fs/promises";
import {
  type AddressLabel,
  createLabelIndex,
  isHexAddressNetwork,
  LABEL_CATEGORIES,
  LABEL_CONFIDENCE,
  type LabelLookup,
  type Network,
  normalizeAddress,
} from "@crs/core";
import { z } from "zod";

/**
 * Label files: exchange and service attributions, one JSON document per dataset (format
 * `crs-labels/1`, described in this package's README). Sanctioned addresses come in through
 * `sanctionedAddressLabels` as labels of category `sanctioned`, so a sanctions-list parser can feed
 * the same lookup.
 */
export const LABEL_FILE_FORMAT = "crs-labels/1";

const confidenceBasis = z.enum(Object.keys(LABEL_CONFIDENCE) as [keyof typeof LABEL_CONFIDENCE]);
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD");
const isoDateTime = z.iso.datetime();

const LabelEntry = z
  .object({
    network: z.string().min(1),
    address: z.string().min(1),
    entity: z.string().min(1),
    category: z.enum(LABEL_CATEGORIES),
    /** A basis from the confidence vocabulary, or a number 0–100. */
    confidence: z.union([confidenceBasis, z.number().int().min(0).max(100)]),
    source_uri: z.string().url().nullable().optional(),
    as_of: isoDate.nullable().optional(),
    valid_from: isoDateTime.nullable().optional(),
    valid_to: isoDateTime.nullable().optional(),
    note: z.string().nullable().optional(),
  })
  .strict();

export const LabelDocument = z
  .object({
    format: z.literal(LABEL_FILE_FORMAT),
    dataset: z.string().min(1),
    license: z.string().nullable().optional(),
    retrieved_at: isoDateTime.nullable().optional(),
    /** Used for entries without their own `source_uri`. */
    source_uri: z.string().url().nullable().optional(),
    labels: z.array(LabelEntry),
  })
  .strict();

export type LabelDocument = z.infer<typeof LabelDocument>;

export class LabelFileError extends Error {
  override readonly name = "LabelFileError";
}

function checkAddress(network: Network, address: string, where: string): string {
  if (isHexAddressNetwork(network) && !/^0x[0-9a-fA-F]{40}$/.test(address)) {
    throw new LabelFileError(`${where}: ${address} is not a 20-byte hex address`);
  }
  return normalizeAddress(network, address);
}

function toUnix(value: string | null | undefined): number | null {
  return value ? Math.floor(Date.parse(value) / 1000) : null;
}

/** Validates a label document and turns it into labels. Throws LabelFileError naming the bad entry. */
export function parseLabelDocument(input: unknown, origin = "label document"): AddressLabel[] {
  const parsed = LabelDocument.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new LabelFileError(`${origin}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const document = parsed.data;
  return document.labels.map((entry, index) => {
    const where = `${origin}: labels.${index}`;
    const validFrom = toUnix(entry.valid_from);
    const validTo = toUnix(entry.valid_to);
    if (validFrom !== null && validTo !== null && validTo <= validFrom) {
      throw new LabelFileError(`${where}: valid_to must be after valid_from`);
    }
    const basis = typeof entry.confidence === "number" ? "unknown" : entry.confidence;
    return {
      network: entry.network,
      address: checkAddress(entry.network, entry.address, where),
      entity: entry.entity,
      category: entry.category,
      confidence: typeof entry.confidence === "number" ? entry.confidence : LABEL_CONFIDENCE[entry.confidence],
      confidence_basis: typeof entry.confidence === "number" ? "stated" : basis,
      source: {
        dataset: document.dataset,
        uri: entry.source_uri ?? document.source_uri ?? null,
        license: document.license ?? null,
        as_of: entry.as_of ?? null,
        retrieved_at: document.retrieved_at ?? null,
      },
      valid_from: validFrom,
      valid_to: validTo,
      note: entry.note ?? null,
    } satisfies AddressLabel;
  });
}

/** Reads and validates a label file (JSON, format `crs-labels/1`). */
export async function loadLabelFile(path: string): Promise<AddressLabel[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new LabelFileError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseLabelDocument(json, path);
}

/** One address on a sanctions list, as a sanctions parser produces it. */
export interface SanctionedAddress {
  network: Network;
  address: string;
  /** e.g. `OFAC SDN`. */
  list: string;
  /** The list's own id for the entry. */
  entry_id: string;
  /** The listed party's name. */
  name: string;
  /** Publication date of the list version (YYYY-MM-DD). */
  published_at: string;
  source_uri: string;
}

/** Sanctioned addresses as labels: category `sanctioned`, authority-data confidence (60). */
export function sanctionedAddressLabels(entries: Iterable<SanctionedAddress>): AddressLabel[] {
  const labels: AddressLabel[] = [];
  for (const entry of entries) {
    labels.push({
      network: entry.network,
      address: checkAddress(entry.network, entry.address, `${entry.list} ${entry.entry_id}`),
      entity: entry.name,
      category: "sanctioned",
      confidence: LABEL_CONFIDENCE.authority_data,
      confidence_basis: "authority_data",
      source: {
        dataset: entry.list,
        uri: entry.source_uri,
        license: "public",
        as_of: entry.published_at,
        retrieved_at: null,
      },
      valid_from: null,
      valid_to: null,
      note: `${entry.list} entry ${entry.entry_id}`,
    });
  }
  return labels;
}

/** One lookup over label files and sanctioned addresses. */
export async function createLabelStore(input: {
  files?: string[];
  labels?: AddressLabel[];
  sanctioned?: SanctionedAddress[];
}): Promise<LabelLookup & { readonly size: number }> {
  const fromFiles = await Promise.all((input.files ?? []).map((path) => loadLabelFile(path)));
  return createLabelIndex([
    ...fromFiles.flat(),
    ...(input.labels ?? []),
    ...sanctionedAddressLabels(input.sanctioned ?? []),
  ]);
}
