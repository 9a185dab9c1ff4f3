import { isCalendarDate } from "./time";

/**
 * Exact arithmetic on `YYYY-MM-DD` calendar dates. Dates are counted as whole days since
 * 1970-01-01 with the proleptic Gregorian calendar, so no time zone, clock or `Date` quirk
 * (two-digit years, daylight saving) can shift a deadline by a day.
 */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** Splits a real calendar date; throws a RangeError for anything `isCalendarDate` refuses. */
export function parseCalendarDate(text: string): CalendarDate {
  if (!isCalendarDate(text)) throw new RangeError(`not a calendar date (YYYY-MM-DD): ${JSON.stringify(text)}`);
  return { year: Number(text.slice(0, 4)), month: Number(text.slice(5, 7)), day: Number(text.slice(8, 10)) };
}

export function formatCalendarDate(date: CalendarDate): string {
  if (date.year < 0 || date.year > 9999) throw new RangeError(`year ${date.year} cannot be written as YYYY`);
  return `${String(date.year).padStart(4, "0")}-${String(date.month).padStart(2, "0")}-${String(date.day).padStart(2, "0")}`;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The same day and month `years` later. A 29 February lands on 28 February in a common year:
 * the earlier of the two candidate days, so a deadline computed this way never falls after
 * the true anniversary however a court counts it.
 */
export function addYears(date: string, years: number): string {
  assertWholeNumber(years, "years");
  const { year, month, day } = parseCalendarDate(date);
  const targetYear = year + years;
  return formatCalendarDate({ year: targetYear, month, day: Math.min(day, daysInMonth(targetYear, month)) });
}

/** The date `days` days later (or earlier, for a negative count). */
export function addDays(date: string, days: number): string {
  assertWholeNumber(days, "days");
  return formatCalendarDate(dateFromDayNumber(dayNumber(parseCalendarDate(date)) + days));
}

/** Whole days from `from` to `to`: positive when `to` is later. */
export function daysBetween(from: string, to: string): number {
  return dayNumber(parseCalendarDate(to)) - dayNumber(parseCalendarDate(from));
}

/** Orders two calendar dates; validated first, so a malformed date never compares as text. */
export function compareDates(a: string, b: string): -1 | 0 | 1 {
  const difference = daysBetween(b, a);
  return difference < 0 ? -1 : difference > 0 ? 1 : 0;
}

function assertWholeNumber(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a whole number, got ${value}`);
}

/** Days since 1970-01-01 (Howard Hinnant's days_from_civil). */
function dayNumber({ year, month, day }: CalendarDate): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** Inverse of `dayNumber` (Howard Hinnant's civil_from_days). */
function dateFromDayNumber(days: number): CalendarDate {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}
