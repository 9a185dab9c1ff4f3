/**
 * Splitting a whole number of cents among parties in proportion to integer weights, so that
 *
 * - the parts always sum to the total exactly, and none is negative;
 * - every part is its exact proportional amount rounded down or up (so within one cent of it: "quota");
 * - no part ever shrinks when the total grows ("house monotone": no Alabama paradox);
 * - ties go to the party listed first (for claimants: the earlier created).
 *
 * Largest remainder (Hamilton) has the first two properties but not the third: weights
 * (428571, 428571, 142858) give (4, 4, 2) of 10 cents but (5, 5, 1) of 11. No divisor method
 * (D'Hondt, Sainte-Laguë, ...) has the second. The method used here has all of them:
 *
 * **The quota method of Balinski and Young** (M. L. Balinski and H. P. Young, "The Quota Method of
 * Apportionment", American Mathematical Monthly 82(7), 1975, pp. 701-730; the whole family of such
 * methods is characterized in "Quotatone Apportionment Methods", Mathematics of Operations Research
 * 4(1), 1979, pp. 31-38, and J. W. Still, "A Class of New Methods for Congressional Apportionment",
 * SIAM J. Appl. Math. 37(2), 1979, pp. 401-418). Cents are handed out one at a time; going from a
 * total of h to h + 1 cents, the next cent goes to the party with the highest D'Hondt priority
 * w_i / (a_i + 1) among the parties still under their upper quota, i.e. with a_i < (h + 1) * w_i / W.
 * Balinski and Young prove the result is house monotone and stays within quota at every total.
 *
 * The same rule read as scheduling: party i's j-th cent may not be handed out before total
 * (j - 1) * W / w_i is exceeded (upper quota) and must be handed out by total j * W / w_i (lower
 * quota); the rule above is earliest-deadline-first among released cents, which meets every deadline
 * whenever some schedule does (unit jobs with release dates, Jackson/Horn).
 *
 * **Computing it fast for any total.** With W the sum of the weights (after dividing out their gcd),
 * every quota is an integer at a total of W, so the method is forced to give exactly w_i there; from
 * that point on every release and deadline is the earlier one shifted by exactly one period, so the
 * method repeats itself: allocation(k * W + r) = k * w + allocation(r). Only the r < W remaining cents
 * are handed out one at a time, with two heaps: O(W log n) in the worst case whatever the total
 * (10^12 cents costs no more than 10^6), and exact: every comparison is between integers below 2^53.
 */

/** Largest weight total (after dividing out the gcd) this module accepts: shares in millionths fit. */
export const MAX_APPORTIONMENT_PERIOD = 1_000_000;

/**
 * Splits `total` among parties in proportion to `weights` by the Balinski-Young quota method.
 * Returns one part per weight, in the same order; a zero weight gets 0. Earlier entries win ties.
 */
export function apportionByQuotaMethod(total: bigint, weights: readonly bigint[]): bigint[] {
  if (total < 0n) throw new RangeError("the total to apportion must not be negative");
  if (weights.some((weight) => weight < 0n)) throw new RangeError("weights must not be negative");
  const divisor = weights.reduce((acc, weight) => greatestCommonDivisor(acc, weight), 0n);
  if (divisor === 0n) {
    if (total === 0n) return weights.map(() => 0n);
    throw new RangeError("cannot apportion a positive total when every weight is zero");
  }
  const reduced = weights.map((weight) => weight / divisor);
  const period = reduced.reduce((sum, weight) => sum + weight, 0n);
  if (period > BigInt(MAX_APPORTIONMENT_PERIOD)) {
    throw new RangeError(`the reduced weights must sum to at most ${MAX_APPORTIONMENT_PERIOD}`);
  }
  const fullPeriods = total / period;
  const extra = handOutCentsOneByOne(
    reduced.map((weight) => Number(weight)),
    Number(period),
    Number(total % period),
  );
  return reduced.map((weight, i) => weight * fullPeriods + BigInt(extra[i] ?? 0));
}

/**
 * The quota method run from 0 to `seats` cents, one cent at a time (seats < period). Parties waiting
 * for their next release sit in per-total buckets; released parties sit in a binary heap ordered by
 * deadline (allocated + 1) / weight, compared by cross-multiplication, then by position.
 */
function handOutCentsOneByOne(weights: readonly number[], period: number, seats: number): number[] {
  const n = weights.length;
  const weight = Float64Array.from(weights);
  const allocated = new Float64Array(n);
  const bucketHead = new Int32Array(seats + 2).fill(-1);
  const bucketNext = new Int32Array(n).fill(-1);
  const heap = new Int32Array(n);
  let heapSize = 0;

  // Party i's next cent is released at the first total h with allocated * period < h * weight.
  const schedule = (i: number) => {
    const release = Math.floor((allocated[i]! * period) / weight[i]!) + 1;
    if (release > seats) return;
    bucketNext[i] = bucketHead[release]!;
    bucketHead[release] = i;
  };
  const before = (a: number, b: number) => {
    const difference = (allocated[a]! + 1) * weight[b]! - (allocated[b]! + 1) * weight[a]!;
    return difference < 0 || (difference === 0 && a < b);
  };
  const push = (item: number) => {
    let child = heapSize++;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!before(item, heap[parent]!)) break;
      heap[child] = heap[parent]!;
      child = parent;
    }
    heap[child] = item;
  };
  const pop = () => {
    const top = heap[0]!;
    const last = heap[--heapSize]!;
    let parent = 0;
    for (;;) {
      let child = parent * 2 + 1;
      if (child >= heapSize) break;
      if (child + 1 < heapSize && before(heap[child + 1]!, heap[child]!)) child++;
      if (!before(heap[child]!, last)) break;
      heap[parent] = heap[child]!;
      parent = child;
    }
    heap[parent] = last;
    return top;
  };

  for (let i = 0; i < n; i++) if (weight[i]! > 0) schedule(i);
  for (let house = 1; house <= seats; house++) {
    for (let i = bucketHead[house]!; i !== -1; i = bucketNext[i]!) push(i);
    // Never empty: the upper quotas at `house` sum to at least `house`, and only house - 1 cents are out.
    const next = pop();
    allocated[next]!++;
    schedule(next);
  }
  return Array.from(allocated);
}

function greatestCommonDivisor(a: bigint, b: bigint): bigint {
  let [x, y] = [a, b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}
