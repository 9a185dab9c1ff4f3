import scalar from "@scalar/fastify-api-reference";
import type { FastifyInstance } from "fastify";
import { errorHeadingAnchors, errorsMarkdown } from "./errors-section";

export interface RegisterDocsOptions {
  /** The generated OpenAPI document (what GET /v1/openapi.json serves). */
  openApiDocument: Record<string, unknown>;
}

/** The document the reference page renders: the contract's, with the "## Errors" section appended to `info.description`. */
export function withErrorsSection(document: Record<string, unknown>): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  const description = typeof info.description === "string" ? info.description : "";
  return { ...document, info: { ...info, description: `${description}\n\n${errorsMarkdown()}` } };
}

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
 * the machine.
 */
export async function registerDocs(app: FastifyInstance, options: RegisterDocsOptions): Promise<void> {
  await app.register(scalar, {
    routePrefix: "/docs",
    logLevel: "silent",
    configuration: {
      content: withErrorsSection(options.openApiDocument),
      slug: DOCUMENT_SLUG,
      pageTitle: "Case-recovery enforcement API reference",
      withDefaultFonts: false,
      agent: { disabled: true },
      showDeveloperTools: "never",
      telemetry: false,
      generateHeadingSlug: headingSlugGenerator(errorHeadingAnchors()),
    },
  });
}
