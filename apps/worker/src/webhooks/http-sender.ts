import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import {
  checkResolvedAddresses,
  checkWebhookTarget,
  WEBHOOK_TARGET_POLICIES,
  type WebhookEnvironment,
  type WebhookTargetPolicy,
} from "@crs/core";
import { type ResolvedAddress, type ResolveHostname, resolveWithSystemResolver } from "@crs/services";

// The sender calls the resolver once per delivery; the same type resolves targets at create time.
export { type ResolvedAddress, type ResolveHostname, resolveWithSystemResolver } from "@crs/services";

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024;

export interface SendWebhookOptions {
  url: string;
  /** The exact bytes that were signed. */
  body: string | Uint8Array;
  /** Request headers (signature, event id and type, content type...). `Host` and `Content-Length` are set here. */
  headers: Readonly<Record<string, string>>;
  /** Whose target rules apply: live allows only https and public addresses. */
  environment: WebhookEnvironment;
  /** Replaces the environment's rules (e.g. a hosted sandbox that must not reach private networks). */
  policy?: WebhookTargetPolicy;
  /** One deadline for the whole delivery: resolution, connection, request and response headers. */
  timeoutMs?: number;
  resolve?: ResolveHostname;
  /** How much of the response body to keep; the rest is never read. */
  maxResponseBytes?: number;
  /** Stops the delivery early (worker shutdown); the result is then an `aborted` failure. */
  signal?: AbortSignal;
}

export type WebhookSendFailure =
  | "target_refused"
  | "dns_failed"
  | "connection_failed"
  | "timeout"
  | "aborted"
  | "redirect"
  | "http_status";

export type WebhookSendResult =
  | { ok: true; status: number; error: null; failure: null; responseBody: string }
  | { ok: false; status: number | null; error: string; failure: WebhookSendFailure; responseBody: string | null };

class DeadlineExceeded extends Error {}

function failed(
  failure: WebhookSendFailure,
  error: string,
  status: number | null = null,
  responseBody: string | null = null,
) {
  return { ok: false as const, status, error, failure, responseBody };
}

/**
 * POSTs one webhook delivery and reports the outcome as data; it never throws for anything the network or
 * the receiver does. 2xx is success. A redirect is not followed: it fails with its status, since following
 * it would send the signed event somewhere the target rules never checked.
 *
 * The host name is resolved once, every address is checked against the target rules, and the connection
 * goes to the first checked address, so a DNS answer that changes between the check and the connection
 * (DNS rebinding) cannot steer the request to an internal address. TLS still verifies the certificate for
 * the original host name, which is also sent as SNI and in the Host header.
 */
export async function sendWebhook(options: SendWebhookOptions): Promise<WebhookSendResult> {
  const {
    url,
    body,
    headers,
    environment,
    policy = WEBHOOK_TARGET_POLICIES[environment],
    timeoutMs = DEFAULT_WEBHOOK_TIMEOUT_MS,
    resolve = resolveWithSystemResolver,
    maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    signal,
  } = options;

  const target = checkWebhookTarget(url, environment, policy);
  if (!target.ok) return failed("target_refused", target.message);
  if (signal?.aborted) return failed("aborted", "the delivery was stopped before it started");

  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new DeadlineExceeded()), timeoutMs);
  const forwardAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", forwardAbort, { once: true });
  const stopped = () =>
    controller.signal.reason instanceof DeadlineExceeded
      ? failed("timeout", `no response within ${timeoutMs} ms`)
      : failed("aborted", "the delivery was stopped");

  try {
    let candidates: readonly ResolvedAddress[];
    if (target.ipAddress !== null) {
      candidates = [{ address: target.ipAddress, family: target.ipAddress.includes(":") ? 6 : 4 }];
    } else {
      try {
        candidates = await untilAborted(
          Promise.resolve().then(() => resolve(target.hostname)),
          controller.signal,
        );
      } catch (error) {
        if (controller.signal.aborted) return stopped();
        return failed("dns_failed", `could not resolve ${target.hostname}: ${describeError(error)}`);
      }
    }

    const vetted = checkResolvedAddresses(
      candidates.map((candidate) => candidate.address),
      policy,
    );
    if (!vetted.ok) {
      return failed(
        "target_refused",
        target.ipAddress === null ? `${target.hostname}: ${vetted.message}` : vetted.message,
      );
    }
    const [destination] = vetted.addresses;
    if (destination === undefined) return failed("dns_failed", `${target.hostname} resolved to no address`);

    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    // The socket is opened to the vetted address; this lookup only guards against anything asking again.
    const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [destination]);
      else callback(null, destination.address, destination.family);
    };
    const requestOptions: https.RequestOptions = {
      method: "POST",
      host: destination.address,
      family: destination.family,
      port: target.port,
      path: target.path,
      headers: {
        ...withoutHeaders(headers, ["host", "content-length"]),
        host: target.host,
        "content-length": bytes.length,
      },
      lookup: pinnedLookup,
      agent: false,
      signal: controller.signal,
      // SNI and certificate checks use the name the client registered (an IP target has no SNI).
      ...(target.protocol === "https:" && target.ipAddress === null ? { servername: target.hostname } : {}),
    };
    const send = target.protocol === "https:" ? https.request : http.request;

    const response = await new Promise<{ status: number; responseBody: string } | { error: unknown }>((settle) => {
      let finishResponse: (() => void) | undefined;
      const request = send(requestOptions, (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          request.destroy();
          settle({ status, responseBody: Buffer.concat(chunks).toString("utf8") });
        };
        finishResponse = finish;
        res.on("data", (chunk: Buffer) => {
          const room = maxResponseBytes - kept;
          if (room > 0) {
            chunks.push(chunk.subarray(0, room));
            kept += Math.min(room, chunk.length);
          }
          if (kept >= maxResponseBytes) finish();
        });
        // The status line decided the outcome; a body cut short by the deadline or the peer changes nothing.
        res.on("end", finish);
        res.on("error", finish);
        res.on("close", finish);
      });
      // After the status line, an error (the deadline, a reset) only cuts the body short.
      request.on("error", (error) => (finishResponse ? finishResponse() : settle({ error })));
      request.end(bytes);
    });

    if ("error" in response) {
      if (controller.signal.aborted) return stopped();
      return failed("connection_failed", `could not deliver to ${target.host}: ${describeError(response.error)}`);
    }
    const { status, responseBody } = response;
    if (status >= 200 && status < 300) return { ok: true, status, error: null, failure: null, responseBody };
    if (status >= 300 && status < 400) {
      return failed("redirect", `the receiver answered ${status}; redirects are not followed`, status, responseBody);
    }
    return failed("http_status", `the receiver answered ${status}`, status, responseBody);
  } catch (error) {
    // Nothing above should throw; if something does, it is still a failed delivery, not a crashed task.
    return failed("connection_failed", describeError(error));
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener("abort", forwardAbort);
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function withoutHeaders(headers: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
