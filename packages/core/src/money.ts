/**
 * Exact money: amounts travel as JSON numbers but are computed in integer minor units.
 * A number is converted through its shortest decimal string, never by multiplying floats.
 */
export const FIAT_DECIMALS = 2;
export const CRYPTO_DECIMALS = 18;

/** Number of decimal places in the shortest decimal form of a finite number. */
export function decimalPlaces(value: number): number {
  const text = toPlainDecimal(value);
  const dot = text.indexOf(".");
  return dot === -1 ? 0 : text.length - dot - 1;
}

/** `12.5` → `1250n` for 2 decimals. Throws when the number has more decimals than allowed. */
export function toMinorUnits(value: number, decimals: number = FIAT_DECIMALS): bigint {
  const text = toPlainDecimal(value);
  const negative = text.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? text.slice(1) : text).split(".");
  if (fraction.length > decimals) throw new RangeError(`${value} has more than ${decimals} decimal places`);
  const units = BigInt(whole + fraction.padEnd(decimals, "0"));
  return negative ? -units : units;
}

/** `1250n` → `12.5` for 2 decimals. */
export function fromMinorUnits(units: bigint, decimals: number = FIAT_DECIMALS): number {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return Number(`${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`);
}

/** Expands exponent notation (`1e-7`, `1.5e+21`) into plain decimal digits. */
function toPlainDecimal(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError("amount must be a finite number");
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign = "", whole = "", fraction = "", exponentText = "0"] = match;
  const exponent = Number(exponentText);
  const digits = whole + fraction;
  const point = whole.length + exponent;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * `123450n` → `"1234.50"` for 2 decimals: the exact decimal text of an amount in minor units, with
 * every decimal place written, as a Postgres numeric column takes and returns it.
 */
export function formatMinorUnits(units: bigint, decimals: number = FIAT_DECIMALS): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return `${negative ? "-" : ""}${whole}${decimals > 0 ? `.${fraction}` : ""}`;
}

/**
 * `"1234.50"` → `123450n` for 2 decimals, without passing through a binary float (so amounts above
 * 2^53 minor units stay exact). Trailing zeros beyond `decimals` are accepted; any other digit there,
 * or text that is not a plain decimal, throws a RangeError.
 */
export function parseMinorUnits(text: string, decimals: number = FIAT_DECIMALS): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new RangeError(`not a decimal number: ${JSON.stringify(text)}`);
  const [, sign = "", whole = "0", rawFraction = ""] = match;
  const fraction = rawFraction.replace(/0+$/, "");
  if (fraction.length > decimals) throw new RangeError(`${text} has more than ${decimals} decimal places`);
  const units = BigInt(whole + fraction.padEnd(decimals, "0"));
  return sign === "-" ? -units : units;
}
