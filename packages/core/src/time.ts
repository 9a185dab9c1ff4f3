/** ISO 8601 UTC with milliseconds, e.g. 2026-07-05T20:33:57.005Z. */
export function formatTimestamp(date: Date): string {
  return date.toISOString();
}

/** True for a real calendar date written as YYYY-MM-DD. */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The UTC calendar date (YYYY-MM-DD) of an instant: "today" for deadlines counted against a clock. */
export function calendarDateOf(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}
