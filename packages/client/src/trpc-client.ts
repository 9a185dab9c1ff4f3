import type { RpcErrorData } from "@crs/contract";
import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "./app-router";

export interface InternalClientOptions {
  /** the tRPC endpoint, with its path: e.g. http://127.0.0.1:3001/trpc */
  url: string;
  apiKey: string;
  fetch?: typeof fetch;
}

/** Per-call options: `client.matters.create.mutate(input, withIdempotencyKey("k-1"))`. */
export function withIdempotencyKey(key: string) {
  return { context: { idempotencyKey: key } };
}

/**
 * A typed client for the internal tRPC API, authenticated with an ordinary API key. Queries are
 * batched; each mutation is a request of its own, so the Idempotency-Key it may carry names it alone.
 */
export function createInternalClient(options: InternalClientOptions) {
  const authorization = `Bearer ${options.apiKey}`;
  const transport = { url: options.url, ...(options.fetch ? { fetch: options.fetch } : {}) };
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (operation) => operation.type === "mutation",
        true: httpLink({
          ...transport,
          headers: ({ op }) => {
            const key = op.context.idempotencyKey;
            return typeof key === "string" ? { authorization, "idempotency-key": key } : { authorization };
          },
        }),
        false: httpBatchLink({ ...transport, headers: () => ({ authorization }) }),
      }),
    ],
  });
}

export type InternalClient = ReturnType<typeof createInternalClient>;

/** The REST-shaped error envelope a failed procedure carries, if any. */
export function errorEnvelopeOf(error: unknown): RpcErrorData["error"] | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  return (error.data as RpcErrorData | undefined)?.error;
}
