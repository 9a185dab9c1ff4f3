import type { AppRouter } from "@crs/trpc";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";

export type { AppRouter };

export interface InternalClientOptions {
  /** e.g. http://127.0.0.1:3001/trpc */
  url: string;
  apiKey: string;
  fetch?: typeof fetch;
}

/** A typed client for the internal tRPC API, authenticated with an ordinary API key. */
export function createInternalClient(options: InternalClientOptions) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: options.url,
        headers: () => ({ authorization: `Bearer ${options.apiKey}` }),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}

export type InternalClient = ReturnType<typeof createInternalClient>;

/** The REST-shaped error envelope a failed procedure carries, if any. */
export function errorEnvelopeOf(error: unknown): { code: string; message: string; param?: string } | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const data = error.data as { error?: { code: string; message: string; param?: string } } | undefined;
  return data?.error;
}
