/**
 * `pnpm bench:waterfall`: core's calculateWaterfall (integer cents, quota-method apportionment,
 * holdbacks, invariant check) beside a bare largest-remainder split of the same amounts in the same run.
 *
 * - Input: BENCH_CLAIMANTS claimants with random shares (millionths, summing to just under 1, so the
 *   unallocated part is apportioned too), one claimant in three unpayable, gross amounts drawn from
 *   1 cent to 10^10 dollars, three costs, counsel 33.33 %, platform 5 %, holdback 2 %.
 * - Baseline: the same distributable amounts split by largest remainder in bigint (floor, then the
 *   leftover cents by largest remainder): the floor for "split an amount by shares, exactly".
 * Timings: median of BENCH_RUNS runs of BENCH_CALCS calculations each, after one warm-up run.
 *
 * What it shows: with shares whose millionths share no common factor, the quota method hands out up to
 * 10^6 cents one at a time (its period), about 0.1 s of CPU per calculation on this machine, thousands of
 * times the bare split. Largest remainder is not an option (it breaks "more gross never pays less").
 */
import { calculateWaterfall, type WaterfallClaimant } from "@crs/core";
import { z } from "zod";

const setting = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce.number().int().min(min).max(max).default(fallback),
  );
const config = z
  .object({
    BENCH_RUNS: setting(5, 1, 50),
    BENCH_CALCS: setting(20, 10, 1_000_000),
    BENCH_CLAIMANTS: setting(50, 1, 5_000),
  })
  .parse(process.env);

let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

const raw = Array.from({ length: config.BENCH_CLAIMANTS }, () => 1 + Math.floor(random() * 1000));
const rawTotal = raw.reduce((sum, n) => sum + n, 0);
const millionths = raw.map((n) => Math.floor((n * 999_000) / rawTotal));
const claimants: WaterfallClaimant[] = millionths.map((m, i) => ({
  claimant_id: `party_${String(i).padStart(26, "0")}`,
  share: m / 1_000_000,
  status: i % 3 === 2 ? "inactive" : "active",
  sanctions_review: false,
}));
const grosses = Array.from({ length: config.BENCH_CALCS }, () => 1n + BigInt(Math.floor(random() * 1e12)));
const weights = [...millionths.map(BigInt), 1_000_000n - millionths.reduce((a, b) => a + BigInt(b), 0n)];

function largestRemainder(total: bigint): bigint[] {
  const whole = weights.reduce((a, b) => a + b, 0n);
  const parts = weights.map((w) => (total * w) / whole);
  let left = total - parts.reduce((a, b) => a + b, 0n);
  const order = weights
    .map((w, i) => ({ i, remainder: (total * w) % whole }))
    .sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  for (const { i } of order) {
    if (left === 0n) break;
    parts[i] = (parts[i] ?? 0n) + 1n;
    left--;
  }
  return parts;
}

function timeRun(work: () => void): number {
  const started = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

let sink = 0n;
const engine = () => {
  for (const gross of grosses) {
    const result = calculateWaterfall({
      recovery_events: [{ recovery_event_id: "rcv_bench", gross_amount_cents: gross }],
      costs: { filing: 125_000n, expert: 480_050n, travel: 9_999n },
      counsel_fee_percentage: 33.33,
      platform_percentage: 5,
      holdback_percentage: 2,
      claimants,
    });
    sink += result.distributable_cents;
  }
};
const baseline = () => {
  for (const gross of grosses) sink += largestRemainder(gross)[0] ?? 0n;
};

engine();
baseline();
const engineTimes: number[] = [];
const baselineTimes: number[] = [];
for (let run = 0; run < config.BENCH_RUNS; run++) {
  engineTimes.push(timeRun(engine));
  baselineTimes.push(timeRun(baseline));
}
const engineMs = median(engineTimes);
const baselineMs = median(baselineTimes);
console.log(
  JSON.stringify(
    {
      calculations: config.BENCH_CALCS,
      claimants: config.BENCH_CLAIMANTS,
      runs: config.BENCH_RUNS,
      waterfall_ms: Number(engineMs.toFixed(1)),
      waterfall_us_per_calculation: Number(((engineMs * 1000) / config.BENCH_CALCS).toFixed(1)),
      baseline_largest_remainder_ms: Number(baselineMs.toFixed(1)),
      ratio: Number((engineMs / baselineMs).toFixed(2)),
      checksum: String(sink % 1_000_000n),
    },
    null,
    2,
  ),
);
