import {
  AppError,
  type NetworkCorrelationResult,
  type networkAttributionOperations,
  type OperationInput,
} from "@crs/contract";
import { addressComparisonKey, correlateSignals } from "@crs/core";
import { schema, type Tenant, type Transaction, tenantScope } from "@crs/db";
import { and, eq } from "drizzle-orm";
import type { WriteContext } from "../../context";
import { readMatter } from "../../matters/load-matter";
import { loadMatterSignals, loadNetworkSignal, type NetworkSignalRow } from "./load-network-signals";
import { correlationSignalOf } from "./present-network-attribution";

interface InvalidField {
  param: string;
  message: string;
}

/** The wallet addresses a matter knows: its parties' wallets and its signals' wallets. */
async function walletsOfMatter(
  tx: Transaction,
  tenant: Tenant,
  matterId: string,
  signals: readonly NetworkSignalRow[],
): Promise<Set<string>> {
  const parties = await tx
    .select({ wallets: schema.parties.wallets })
    .from(schema.parties)
    .where(and(tenantScope(schema.parties, tenant), eq(schema.parties.matterId, matterId)));
  const addresses = [
    ...parties.flatMap((party) => party.wallets.map((wallet) => wallet.address)),
    ...signals.map((signal) => signal.walletAddress),
  ];
  return new Set(addresses.map(addressComparisonKey));
}

function refuse(invalid: InvalidField[]): never {
  throw new AppError("invalid_request", {
    message: `Invalid ${invalid.map((field) => `${field.param} (${field.message})`).join("; ")}.`,
    param: invalid[0]?.param ?? "body",
    details: { invalid },
  });
}

/**
 * Weighs a matter's recorded signals and answers one correlation per signal, oldest first. The signals
 * weighed are `signal_ids` (every signal of the matter when left out), and only those on `wallet_ids`
 * are answered (every wallet when left out); corroboration is counted among the signals weighed. A
 * wallet the matter does not know (no party holds it, no signal points at it) is refused: nothing is
 * correlated with a wallet that was not recorded. Nothing is stored and no event is appended.
 */
export async function correlateNetworkSignals(
  write: WriteContext,
  { body }: OperationInput<typeof networkAttributionOperations.correlate>,
): Promise<NetworkCorrelationResult> {
  const { tx, actor } = write;
  // Read without a lock: correlate writes nothing to the matter.
  const matter = await readMatter(tx, actor, body.matter_id, "matter_id");
  const signals = await loadMatterSignals(tx, actor, matter.id);

  let weighed = signals;
  if (body.signal_ids) {
    const byId = new Map(signals.map((signal) => [signal.id, signal]));
    const invalid: InvalidField[] = [];
    for (const [index, signalId] of body.signal_ids.entries()) {
      if (byId.has(signalId)) continue;
      const param = `signal_ids.${index}`;
      // Unknown to the caller: 404. The caller's signal of another matter: named in the 422.
      const other = await loadNetworkSignal(tx, actor, signalId, param);
      invalid.push({ param, message: `is a signal of matter ${other.matterId}, not of ${matter.id}` });
    }
    if (invalid.length > 0) refuse(invalid);
    const chosen = new Set(body.signal_ids);
    weighed = signals.filter((signal) => chosen.has(signal.id));
  }

  let answered = weighed;
  if (body.wallet_ids) {
    const known = await walletsOfMatter(tx, actor, matter.id, signals);
    const invalid = body.wallet_ids.flatMap((address, index): InvalidField[] =>
      known.has(addressComparisonKey(address))
        ? []
        : [
            {
              param: `wallet_ids.${index}`,
              message: `is not a wallet of matter ${matter.id} (no party holds it, no signal points at it)`,
            },
          ],
    );
    if (invalid.length > 0) refuse(invalid);
    const wanted = new Set(body.wallet_ids.map(addressComparisonKey));
    answered = weighed.filter((signal) => wanted.has(addressComparisonKey(signal.walletAddress)));
  }

  const correlations = correlateSignals(weighed.map(correlationSignalOf));
  const answeredIds = new Set(answered.map((signal) => signal.id));
  return {
    object: "network_correlation",
    matter_id: matter.id,
    correlations: correlations.filter((correlation) => answeredIds.has(correlation.signal_id)),
  };
}
