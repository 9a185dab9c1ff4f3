import postgres from "postgres";

/**
 * What a process prints when it cannot start: one line a person can act on, never a stack trace.
 * Used by every app's main.ts, `pnpm start` and the operator commands.
 */

const CONNECT_TIMEOUT_S = 10;

/** The URL with its password replaced by `***`, for messages. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(not a URL)";
  }
}

function serverOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}`;
  } catch {
    return "(unknown server)";
  }
}

/** A database problem described for a person: what happened, where, and what to check. */
export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
}

/** Node's and postgres.js's connection error codes, and PostgreSQL's SQLSTATEs for a refused login. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ECONNREFUSED":
      return "refused the connection";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "cannot be found (its host name does not resolve)";
    case "ETIMEDOUT":
    case "CONNECT_TIMEOUT":
      return `did not answer within ${CONNECT_TIMEOUT_S} s`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "is not reachable from this machine";
    case "ECONNRESET":
      return "closed the connection";
    case "28P01":
    case "28000":
    case "3D000":
      return `refused the login: ${message}`;
    default:
      return `could not be used: ${message}`;
  }
}

/**
 * Connects to `url` and runs `select 1`. Throws a DatabaseUnavailableError whose message names the
 * server and the reason (refused, unknown host, timeout, login refused, not a URL).
 */
export async function assertDatabaseReachable(url: string): Promise<void> {
  let client: ReturnType<typeof postgres>;
  try {
    client = postgres(url, { max: 1, connect_timeout: CONNECT_TIMEOUT_S, onnotice: () => {} });
  } catch {
    throw new DatabaseUnavailableError(
      "DATABASE_URL is not a valid URL; it looks like postgres://user:password@host:5432/database",
    );
  }
  try {
    await client`select 1`;
  } catch (error) {
    throw new DatabaseUnavailableError(
      `the database server at ${serverOf(url)} ${reasonOf(error)}. ` +
        `Is PostgreSQL running there, and is DATABASE_URL right? (${redactDatabaseUrl(url)})`,
    );
  } finally {
    await client.end({ timeout: 1 }).catch(() => undefined);
  }
}

/**
 * One line for any startup failure: a DatabaseUnavailableError as it is; an invalid environment
 * ("Invalid environment:\n✖ X is required\n  → at X") folded onto one line; anything else by its
 * message's first line.
 */
export function describeStartupError(error: unknown): string {
  if (error instanceof DatabaseUnavailableError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  const [first = "", ...rest] = message.split("\n");
  if (/^Invalid .*environment:$/.test(first.trim())) {
    const problems: string[] = [];
    const lines = rest.map((line) => line.trim());
    lines.forEach((line, index) => {
      if (!line.startsWith("✖")) return;
      const problem = line.slice(1).trim();
      const field = /^→ at (\S+)/.exec(lines[index + 1] ?? "")?.[1];
      problems.push(field && !problem.includes(field) ? `${field} ${problem}` : problem);
    });
    return `invalid environment: ${problems.join("; ") || lines.join(" ")}`;
  }
  return first.trim() || "unknown error";
}
