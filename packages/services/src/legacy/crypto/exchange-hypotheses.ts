import type { ExchangeHypothesesAnswer, legacyCryptoOperations, OperationInput } from "@crs/contract";
import { meetsConfidence } from "@crs/core";
import type { WriteContext } from "../../context";
import { analysisInput, readAnalysisMatter, runAnalysisTrace, traceReport } from "./analysis-trace";

/** The exchange hypotheses of the wallets' trace, at or above `min_confidence`. Records nothing. */
export async function exchangeHypotheses(
  write: WriteContext,
  { body }: OperationInput<typeof legacyCryptoOperations.exchangeHypotheses>,
): Promise<ExchangeHypothesesAnswer> {
  const matter = await readAnalysisMatter(write, body.matter_id);
  const trace = await runAnalysisTrace(write, analysisInput(write, body));
  const minimum = body.min_confidence ?? "low";
  return {
    object: "crypto_exchange_hypotheses",
    min_confidence: minimum,
    items: trace.fields.exchange_hypotheses.filter((item) => meetsConfidence(item.confidence, minimum)),
    ...traceReport(matter, trace),
  };
}
