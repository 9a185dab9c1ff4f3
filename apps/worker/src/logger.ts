import { Logger } from "graphile-worker";

export type LogMeta = Record<string, unknown>;

/** What the worker logs through; apps pass their own, tests a silent or capturing one. */
export interface WorkerLogger {
  error(message: string, meta?: LogMeta): void;
  warn(message: string, meta?: LogMeta): void;
  info(message: string, meta?: LogMeta): void;
  debug(message: string, meta?: LogMeta): void;
}

function format(message: string, meta: LogMeta | undefined): string {
  if (!meta || Object.keys(meta).length === 0) return message;
  try {
    return `${message} ${JSON.stringify(meta)}`;
  } catch {
    return message;
  }
}

/** Plain lines: info to stdout, warnings and errors to stderr, debug only when asked for. */
export function createConsoleLogger(options: { debug?: boolean } = {}): WorkerLogger {
  return {
    error: (message, meta) => console.error(format(message, meta)),
    warn: (message, meta) => console.error(format(message, meta)),
    info: (message, meta) => console.log(format(message, meta)),
    debug: (message, meta) => {
      if (options.debug) console.log(format(message, meta));
    },
  };
}

export const silentLogger: WorkerLogger = { error() {}, warn() {}, info() {}, debug() {} };

/** graphile-worker's log scope (its LogScope type is not exported from the package root). */
type LogScope = NonNullable<ConstructorParameters<typeof Logger>[1]>;

function scopeMeta(scope: LogScope, meta: LogMeta | undefined): LogMeta | undefined {
  const merged: LogMeta = {};
  if (scope.label) merged.label = scope.label;
  if (scope.taskIdentifier) merged.task = scope.taskIdentifier;
  if (scope.jobId) merged.jobId = scope.jobId;
  if (meta) {
    for (const [key, value] of Object.entries(meta)) {
      // graphile-worker attaches Error objects, which JSON.stringify turns into {}.
      merged[key] = value instanceof Error ? value.message : value;
    }
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/** Routes graphile-worker's own log lines (and each job's helpers.logger) into a WorkerLogger. */
export function toGraphileLogger(logger: WorkerLogger): Logger {
  return new Logger((scope) => (level: string, message: string, meta?: LogMeta) => {
    const details = scopeMeta(scope, meta);
    switch (level) {
      case "error":
        return logger.error(message, details);
      case "warning":
        return logger.warn(message, details);
      case "info":
        return logger.info(message, details);
      default:
        return logger.debug(message, details);
    }
  });
}
