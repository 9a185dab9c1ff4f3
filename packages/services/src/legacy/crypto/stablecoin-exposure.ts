import {
  AppError,
  type legacyCryptoOperations,
  type OperationInput,
  type StablecoinExposureAnswer,
} from "@crs/contract";
import { type AssetSelector, createIssuerRegistry, parseAssetSelector, selectsAsset } from "@crs/core";
import type { WriteContext } from "../../context";
import type { TraceSource } from "../../crypto/trace-providers";
import { analysisInput, analysisSource, readAnalysisMatter, runAnalysisTrace, traceReport } from "./analysis-trace";

/**
 * The `assets` entries as selectors, each naming a stablecoin the chain's issuer registry knows (the
 * registry the trace reads): a well-formed name of no known stablecoin is refused (422) with the list,
 * rather than answered with nothing.
 */
function assetSelectors(assets: readonly string[], source: TraceSource, chain: string): AssetSelector[] {
  const known = (source.issuers ?? createIssuerRegistry()).entries
    .filter((entry) => entry.network === chain)
    .map((entry) => ({ asset: `erc20:${entry.contract}`, symbol: entry.symbol }));
  const allowed = known.flatMap((entry) => [entry.symbol, entry.asset]);
  const invalid: Array<{ param: string; message: string; allowed: string[] }> = [];
  const selectors = assets.map((text, index) => {
    const selector = parseAssetSelector(text);
    if (!selector || !known.some((entry) => selectsAsset(selector, entry))) {
      invalid.push({ param: `assets.${index}`, message: `names no stablecoin known on ${chain}`, allowed });
    }
    return selector;
  });
  const first = invalid[0];
  if (first) {
    throw new AppError("invalid_request", {
      message: `Invalid ${invalid.map((entry) => entry.param).join(", ")} (${first.message}).`,
      param: first.param,
      details: { invalid, allowed },
    });
  }
  return selectors.filter((selector): selector is AssetSelector => selector !== null);
}

/** The stablecoin exposures of the wallets' trace, of the named assets (all when none are named). Records nothing. */
export async function stablecoinExposure(
  write: WriteContext,
  { body }: OperationInput<typeof legacyCryptoOperations.stablecoinExposure>,
): Promise<StablecoinExposureAnswer> {
  const matter = await readAnalysisMatter(write, body.matter_id);
  const input = analysisInput(write, body);
  const selectors = body.assets ? assetSelectors(body.assets, analysisSource(write, input), input.chains[0]) : null;
  const trace = await runAnalysisTrace(write, input);
  return {
    object: "crypto_stablecoin_exposure",
    assets: body.assets ?? null,
    items: trace.fields.stablecoin_exposure.filter(
      (item) => selectors === null || selectors.some((selector) => selectsAsset(selector, item)),
    ),
    ...traceReport(matter, trace),
  };
}
