import { readFile } from "node:fs/promises";
import {
  createIssuerRegistry,
  type IssuerControls,
  type IssuerRegistry,
  isHexAddressNetwork,
  KNOWN_ISSUER_CONTROLS,
  normalizeAddress,
} from "@crs/core";
import { z } from "zod";

/**
 * Issuer-controls files: what a stablecoin issuer can do on chain to holders of its token (freeze
 * list, seizure), for tokens the built-in registry does not know (another EVM chain's USDT, a
 * regional stablecoin). One JSON document per file (format `crs-issuers/1`, described in this
 * package's README). Freeze facts must come from the contract source, so every entry cites it.
 */
export const ISSUER_FILE_FORMAT = "crs-issuers/1";

const IssuerEntry = z
  .object({
    network: z.string().min(1),
    contract: z.string().min(1),
    issuer: z.string().min(1),
    symbol: z.string().min(1),
    freeze_check: z.enum(["isBlacklisted", "isBlackListed", "isFrozen"]).nullable(),
    freeze_functions: z.array(z.string().min(1)),
    freeze_role: z.string().min(1),
    seize_function: z.string().min(1).nullable(),
    policy_notes: z.string().min(1).nullable().optional(),
    remediation: z.array(z.string().min(1)).min(1),
    source: z
      .object({
        title: z.string().min(1),
        uri: z.string().min(1),
        as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD"),
      })
      .strict(),
  })
  .strict();

export const IssuerDocument = z
  .object({
    format: z.literal(ISSUER_FILE_FORMAT),
    issuers: z.array(IssuerEntry),
  })
  .strict();

export class IssuerFileError extends Error {
  override readonly name = "IssuerFileError";
}

/** Validates an issuer-controls document. Throws IssuerFileError naming the bad entry and field. */
export function parseIssuerDocument(input: unknown, origin = "issuer document"): IssuerControls[] {
  const parsed = IssuerDocument.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new IssuerFileError(`${origin}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data.issuers.map((entry, index) => {
    if (isHexAddressNetwork(entry.network) && !/^0x[0-9a-fA-F]{40}$/.test(entry.contract)) {
      throw new IssuerFileError(`${origin}: issuers.${index}.contract: ${entry.contract} is not a 20-byte hex address`);
    }
    return {
      ...entry,
      contract: normalizeAddress(entry.network, entry.contract),
      policy_notes: entry.policy_notes ?? null,
      synthetic: false,
    } satisfies IssuerControls;
  });
}

/** Reads and validates an issuer-controls file (JSON, format `crs-issuers/1`). */
export async function loadIssuerFile(path: string): Promise<IssuerControls[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new IssuerFileError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseIssuerDocument(json, path);
}

/**
 * The built-in registry (`KNOWN_ISSUER_CONTROLS`) plus the entries of the given files. A token listed
 * twice (in two files, or in a file and the built-in registry) is refused: which entry holds would
 * otherwise depend on the order of the files.
 */
export async function createIssuerStore(input: { files?: string[] }): Promise<IssuerRegistry> {
  const fromFiles = await Promise.all(
    (input.files ?? []).map(async (path) => ({ path, entries: await loadIssuerFile(path) })),
  );
  const seen = new Map<string, string>(
    KNOWN_ISSUER_CONTROLS.map((entry) => [
      `${entry.network}|${normalizeAddress(entry.network, entry.contract)}`,
      "the built-in registry",
    ]),
  );
  for (const { path, entries } of fromFiles) {
    entries.forEach((entry, index) => {
      const key = `${entry.network}|${entry.contract}`;
      const earlier = seen.get(key);
      if (earlier) throw new IssuerFileError(`${path}: issuers.${index}: ${key} is already listed in ${earlier}`);
      seen.set(key, path);
    });
  }
  return createIssuerRegistry([...KNOWN_ISSUER_CONTROLS, ...fromFiles.flatMap(({ entries }) => entries)]);
}
