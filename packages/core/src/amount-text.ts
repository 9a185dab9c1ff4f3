import { FIAT_DECIMALS, toMinorUnits } from "./money";

/**
 * Amounts written as fixed-point decimal strings ("1250.50"): always exactly `decimals` digits after
 * the point, so one amount has one spelling. Hashed and published documents use this form, so a
 * recipient recomputing a hash never depends on how some language prints a binary float.
 */
export function formatAmountText(minorUnits: bigint, decimals: number = FIAT_DECIMALS): string {
  const negative = minorUnits < 0n;
  const digits = (negative ? -minorUnits : minorUnits).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return `${negative ? "-" : ""}${whole}${decimals > 0 ? `.${fraction}` : ""}`;
}

/** A JSON-number amount (at most `decimals` decimals) as amount text: 1250.5 → "1250.50". */
export function amountTextFromNumber(value: number, decimals: number = FIAT_DECIMALS): string {
  return formatAmountText(toMinorUnits(value, decimals), decimals);
}

/** "1250.50" → 125050n. Throws unless the text is exactly the fixed-point form with `decimals` digits. */
export function parseAmountText(text: string, decimals: number = FIAT_DECIMALS): bigint {
  const pattern = decimals > 0 ? new RegExp(`^(-?)(\\d+)\\.(\\d{${decimals}})$`) : /^(-?)(\d+)()$/;
  const match = pattern.exec(text);
  if (!match) throw new RangeError(`"${text}" is not an amount with exactly ${decimals} decimals`);
  const [, sign = "", whole = "", fraction = ""] = match;
  const units = BigInt(whole + fraction);
  return sign ? -units : units;
}
