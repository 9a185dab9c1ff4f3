import { z } from "zod";
import { ERROR_CODES } from "./errors";
import { isWrite, type ListedOperation, pathParamNames } from "./operation";
import { CURRENT_OPERATIONS, exportDownload } from "./operations/index";
import { CURRENT_VERSION } from "./versions";

const ErrorEnvelope = z
  .object({
    error: z.object({
      type: z.string(),
      code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]]),
      message: z.string(),
      param: z.string().optional(),
      details: z.record(z.string(), z.unknown()).optional(),
      doc_url: z.string(),
      request_id: z.string(),
    }),
    audit_ref: z.string(),
  })
  .meta({ id: "Error" });

type JsonSchema = Record<string, unknown>;

/** The shapes older versions keep, as an extension beside the current schema (OpenAPI has no per-header responses). */
function versionedResponses(
  versions: ListedOperation["definition"]["versions"],
  toSchema: (schema: z.ZodType, io: "output") => JsonSchema,
): Record<string, unknown> {
  const entries = Object.entries(versions ?? {}).flatMap(([version, shape]) =>
    shape ? [[version, withAuditRef(toSchema(shape.response, "output"))] as const] : [],
  );
  if (entries.length === 0) return {};
  return { "x-svc-version-responses": Object.fromEntries(entries) };
}

/** Every response body carries a top-level audit_ref (the request id), beside the resource's own fields. */
function withAuditRef(schema: JsonSchema): JsonSchema {
  return {
    allOf: [
      schema,
      {
        type: "object",
        properties: { audit_ref: { type: "string", description: "the request id (Svc-Request-Id)" } },
        required: ["audit_ref"],
      },
    ],
  };
}

/**
 * A body schema's example (`.meta({ example })`), also set on the media type, where reference
 * renderers take a request example from.
 */
function exampleOf(schema: JsonSchema, components: Record<string, JsonSchema>): unknown {
  const ref = typeof schema.$ref === "string" ? schema.$ref.replace("#/components/schemas/", "") : undefined;
  return (ref === undefined ? schema : components[ref])?.example;
}

/** The OpenAPI 3.1 document, generated from the same zod schemas the service validates with. */
/** What REST serves: the surface's operations and the export downloads beside them (REST only). */
export const DOCUMENTED_OPERATIONS: readonly ListedOperation[] = [
  ...CURRENT_OPERATIONS,
  { procedure: "packets.download", definition: exportDownload },
];

export function buildOpenApiDocument(
  serverUrl: string,
  operations: readonly ListedOperation[] = DOCUMENTED_OPERATIONS,
): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  const toSchema = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
    const generated = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" });
    const json = JSON.parse(
      JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/'),
    ) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const { $defs, $schema: _ignored, ...rest } = json;
    for (const [name, def] of Object.entries($defs ?? {})) components[name] = def;
    return rest;
  };
  toSchema(ErrorEnvelope, "output"); // registers components.schemas.Error

  const paths: Record<string, Record<string, unknown>> = {};
  for (const { procedure, definition: op } of operations) {
    if (!op.path) continue;
    const params = pathParamNames(op).map((name) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const query = op.query ? toSchema(op.query, "input") : undefined;
    const queryParams = query?.properties
      ? Object.entries(query.properties as Record<string, JsonSchema>).map(([name, schema]) => ({
          name,
          in: "query",
          required: ((query.required as string[] | undefined) ?? []).includes(name),
          schema,
        }))
      : [];
    const headerParams = [
      { name: "Svc-Version", in: "header", required: false, schema: { type: "string", example: CURRENT_VERSION } },
      ...(op.idempotent
        ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } }]
        : []),
    ];
    const errorResponse = (description: string) => ({
      description,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    });
    const operation: Record<string, unknown> = {
      operationId: op.id,
      summary: op.summary,
      tags: [op.tag],
      "x-scope": op.scope,
      ...(op.rpc === false ? {} : { "x-rpc-procedure": procedure }),
      ...(isWrite(op) ? { "x-events": [...op.events] } : {}),
      parameters: [...params, ...queryParams, ...headerParams],
      security: op.scope === "none" ? [] : [{ bearerAuth: [] }],
      responses: {
        [String(op.successStatus)]: op.fileResponse
          ? {
              description: "The file's bytes, with their Content-Type",
              content: Object.fromEntries(
                op.fileResponse.map((type) => [type, { schema: { type: "string", contentMediaType: type } }]),
              ),
            }
          : {
              description: "Success",
              content: { "application/json": { schema: withAuditRef(toSchema(op.response, "output")) } },
              ...versionedResponses(op.versions, toSchema),
            },
        "400": errorResponse("Malformed request: unreadable JSON, a bad query parameter or an unknown Svc-Version"),
        "401": errorResponse(op.scope === "none" ? "A key was sent and it is invalid" : "Missing or invalid key"),
        ...(op.scope !== "none" && op.scope !== "any" ? { "403": errorResponse("Key lacks the scope") } : {}),
        ...(op.path.includes("{") ? { "404": errorResponse("Unknown id") } : {}),
        ...(op.idempotent
          ? {
              "409": errorResponse(
                "Idempotency-Key reused with another body or still in flight, or the matter is closed",
              ),
            }
          : {}),
        ...(isWrite(op) ? { "413": errorResponse("Body over 1 MiB"), "415": errorResponse("Body is not JSON") } : {}),
        ...(op.body
          ? { "422": errorResponse("Invalid body; names every bad field") }
          : isWrite(op)
            ? { "422": errorResponse("A body was sent and it is not a JSON object") }
            : {}),
        "429": errorResponse("Rate limited; Retry-After says when to retry"),
        ...Object.fromEntries(
          Object.entries(op.alsoAnswers ?? {}).map(([status, answer]) => [
            status,
            answer.schema
              ? {
                  description: answer.description,
                  content: { "application/json": { schema: withAuditRef(toSchema(answer.schema, "output")) } },
                }
              : errorResponse(answer.description),
          ]),
        ),
      },
    };
    if (op.body) {
      const schema = toSchema(op.body, "input");
      const example = exampleOf(schema, components);
      operation.requestBody = {
        required: true,
        content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } },
      };
    }
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method.toLowerCase()]: operation };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Case-recovery enforcement API",
      version: CURRENT_VERSION,
      description:
        "System of record for recovering court judgments. Every state change is a signed event on a tamper-evident hash chain.",
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "svc_test_… or svc_live_… key" } },
      schemas: components,
    },
    paths,
  };
}
