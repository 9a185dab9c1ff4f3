/** A thin fetch wrapper for the REST API: JSON in, JSON and headers out. */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiRequest {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export async function api<T = Record<string, unknown>>(url: string, request: ApiRequest = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  if (request.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url, {
    method: request.method ?? "GET",
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let body: T;
  try {
    body = JSON.parse(text) as T;
  } catch {
    throw new Error(`${request.method ?? "GET"} ${url} answered ${response.status} with a non-JSON body: ${text}`);
  }
  return { status: response.status, headers: response.headers, body };
}

/** A response body without its per-request `audit_ref`, to compare the same object read twice. */
export function withoutAuditRef<T extends object>(body: T): Omit<T, "audit_ref"> {
  const { audit_ref: _ignored, ...rest } = body as T & { audit_ref?: unknown };
  return rest;
}
