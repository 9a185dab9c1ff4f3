import scalar from "@scalar/fastify-api-reference";
import type { FastifyInstance } from "fastify";
import { errorHeadingAnchors, errorsMarkdown } from "./errors-section";
import { STATIC_REFERENCE_CSS, staticReferenceHtml } from "./static-reference";

export interface RegisterDocsOptions {
  /** The generated OpenAPI document (what GET /v1/openapi.json serves). */
  openApiDocument: Record<string, unknown>;
}

/** The document the reference page renders: the contract's, with the "## Errors" section appended to `info.description`. */
export function withErrorsSection(document: Record<string, unknown>): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  const description = typeof info.description === "string" ? info.description : "";
  // The example's doc_url is absolute, as every answer's is: built from the document's server.
  const [server] = (document.servers ?? []) as Array<{ url?: string }>;
  return { ...document, info: { ...info, description: `${description}\n\n${errorsMarkdown(server?.url ?? "")}` } };
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The same schemas in the spelling Scalar's document validator accepts (it logs "document
 * validation errors" otherwise): `anyOf: [X, {type: "null"}]` becomes X with `type: [X.type,
 * "null"]` (and `null` among its enum values); any other `anyOf` whose branches all have a type
 * (their own, or the one of the component a `$ref` names) gets those types beside it
 * (`type: ["string", "object"]`, `type: ["object", "null"]`); and `additionalProperties: {}` becomes
 * `true`. Each is equivalent in JSON Schema 2020-12. Only the page's copy changes; /v1/openapi.json
 * is as built.
 */
export function withScalarCompatibleSchemas(document: Json): Json {
  const components = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const typeOf = (branch: unknown): unknown => {
    if (!isObject(branch)) return undefined;
    const ref = typeof branch.$ref === "string" ? /^#\/components\/schemas\/(.+)$/.exec(branch.$ref)?.[1] : undefined;
    return ref === undefined ? branch.type : components[ref]?.type;
  };
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!isObject(value)) return value;
    const anyOf = value.anyOf;
    if (Array.isArray(anyOf) && anyOf.length === 2) {
      const isNull = (branch: unknown) =>
        isObject(branch) && branch.type === "null" && Object.keys(branch).length === 1;
      const other = anyOf.find((branch) => !isNull(branch));
      if (anyOf.some(isNull) && isObject(other) && typeof other.type === "string" && !("$ref" in other)) {
        const { anyOf: _replaced, ...rest } = value;
        const merged: Json = { ...rest, ...(rewrite(other) as Json), type: [other.type, "null"] };
        if (Array.isArray(other.enum)) merged.enum = [...other.enum, null];
        return merged;
      }
    }
    const result: Json = {};
    if (Array.isArray(anyOf) && value.type === undefined) {
      const types = anyOf.map(typeOf);
      if (types.every((type) => typeof type === "string")) result.type = [...new Set(types)];
    }
    for (const [key, child] of Object.entries(value)) {
      result[key] =
        key === "additionalProperties" && isObject(child) && Object.keys(child).length === 0 ? true : rewrite(child);
    }
    return result;
  };
  return rewrite(document) as Json;
}

/** The first HTTP bearer scheme of the document, which the page preselects for "Try it". */
function bearerSchemeOf(document: Json): string | undefined {
  const schemes = ((document.components as Json | undefined)?.securitySchemes ?? {}) as Record<string, Json>;
  return Object.entries(schemes).find(([, scheme]) => scheme.type === "http" && scheme.scheme === "bearer")?.[0];
}

/** The plain-HTML reference and its style, put into Scalar's page; the page as it was if its shape changed. */
function withStaticReference(page: string, document: Json): string {
  const app = '<div id="app"></div>';
  if (!page.includes(app) || !page.includes("</head>")) return page;
  return page
    .replace(
      "</head>",
      `  <link rel="icon" type="image/svg+xml" href="favicon.svg" />\n    <style>${STATIC_REFERENCE_CSS}</style>\n  </head>`,
    )
    .replace(app, `${app}\n${staticReferenceHtml(document)}`);
}

const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1b1b1b"/>' +
  '<path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>';

/** Scalar's document slug: element ids are `<slug>/<hash>`, and the URL hash leaves the slug out. */
const DOCUMENT_SLUG = "api";

type HeadingSlugGenerator = (heading: { slug?: string }) => string;

/**
 * Scalar ids description headings `<document>/description/<slug>`; the error envelope's `doc_url`
 * points at `/docs#errors-<code>`. This generator gives the Errors headings exactly those ids.
 * Scalar ships configuration functions to the browser as source text (`fn.toString()`), so the
 * function is built from a string with the table inlined: nothing a transpiler adds can leak in.
 */
export function headingSlugGenerator(anchors: Record<string, string>): HeadingSlugGenerator {
  const ids = Object.fromEntries(Object.entries(anchors).map(([slug, anchor]) => [slug, `${DOCUMENT_SLUG}/${anchor}`]));
  return new Function(
    "heading",
    `var ids = ${JSON.stringify(ids)};\n` +
      `return Object.prototype.hasOwnProperty.call(ids, heading.slug) ? ids[heading.slug] : ${JSON.stringify(`${DOCUMENT_SLUG}/description/`)} + heading.slug;`,
  ) as HeadingSlugGenerator;
}

/**
 * Serves the API reference at /docs from the bundled Scalar script. The page, its script and the
 * document all come from this server; default fonts, the hosted AI agent and the developer toolbar
 * (share/deploy to scalar.com) are off and no proxy is set, so the page fetches nothing from outside
 * the machine. Bearer authentication is preselected, and the page carries a plain-HTML version of
 * the reference that is visible until Scalar has rendered (see static-reference.ts).
 */
export async function registerDocs(app: FastifyInstance, options: RegisterDocsOptions): Promise<void> {
  const document = withScalarCompatibleSchemas(withErrorsSection(options.openApiDocument) as Json);
  const bearerScheme = bearerSchemeOf(document);
  await app.register(async (scope) => {
    // Scalar's plugin is not encapsulated, so this hook sees its routes; only the page itself changes.
    scope.addHook("onSend", async (request, reply, payload) => {
      if (request.routeOptions.url !== "/docs/" || typeof payload !== "string") return payload;
      if (!String(reply.getHeader("content-type") ?? "").startsWith("text/html")) return payload;
      return withStaticReference(payload, document);
    });
    scope.get("/docs/favicon.svg", { logLevel: "silent" }, async (_request, reply) =>
      reply.type("image/svg+xml").header("cache-control", "public, max-age=86400").send(FAVICON_SVG),
    );
    await scope.register(scalar, {
      routePrefix: "/docs",
      logLevel: "silent",
      configuration: {
        content: document,
        slug: DOCUMENT_SLUG,
        pageTitle: "Case-recovery enforcement API reference",
        withDefaultFonts: false,
        agent: { disabled: true },
        showDeveloperTools: "never",
        telemetry: false,
        ...(bearerScheme ? { authentication: { preferredSecurityScheme: bearerScheme } } : {}),
        generateHeadingSlug: headingSlugGenerator(errorHeadingAnchors()),
      },
    });
  });
}
