import { ERROR_CODES, type ErrorCode } from "@crs/contract";
import { operationHash } from "./anchors";
import { errorAnchor, errorCircumstances, statusesOf } from "./errors-section";

/**
 * A plain-HTML version of the reference, sent inside the /docs page itself. It is on screen from the
 * first paint, before Scalar's 3.5 MB script has loaded and while Scalar renders its sections
 * (Scalar fills its main pane only after a debounce, so it stays blank for a while), and it is all
 * there is without JavaScript. Once Scalar has rendered a section of its own, CSS hides it.
 *
 * Its error headings carry the very anchors `doc_url` points at (`#errors-<code>`), so a followed
 * `doc_url` lands on the right entry at once; Scalar then scrolls to its own copy of the entry.
 */

type Json = Record<string, unknown>;

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The inline markdown the error texts use: `code` and **bold**. */
function inlineMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

interface OperationSummary {
  tag: string;
  method: string;
  path: string;
  summary: string;
  scope: string;
}

function operationsOf(document: Json): OperationSummary[] {
  const operations: OperationSummary[] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const tags = operation.tags as string[] | undefined;
      const scope = operation["x-scope"];
      operations.push({
        tag: tags?.[0] ?? "Other",
        method,
        path,
        summary: typeof operation.summary === "string" ? operation.summary : "",
        scope: scope === "none" ? "no key needed" : scope === "any" ? "any valid key" : `scope ${String(scope)}`,
      });
    }
  }
  return operations;
}

/** The page's first paragraph: the description up to its first heading or blank line. */
function introductionOf(document: Json): string {
  const description = String((document.info as Json | undefined)?.description ?? "");
  return description.split(/\n\s*\n|\n#/)[0]?.trim() ?? "";
}

export function staticReferenceHtml(document: Json): string {
  const info = (document.info ?? {}) as Json;
  const byTag = new Map<string, OperationSummary[]>();
  for (const operation of operationsOf(document)) {
    byTag.set(operation.tag, [...(byTag.get(operation.tag) ?? []), operation]);
  }
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  const lines = [
    '<div class="crs-static-reference">',
    `<h1>${escapeHtml(String(info.title ?? "API reference"))}</h1>`,
    `<p class="crs-meta">Version ${escapeHtml(String(info.version ?? ""))} · <a href="openapi.json">OpenAPI document</a></p>`,
    `<p>${inlineMarkdown(introductionOf(document))}</p>`,
    "<p>Send <code>Authorization: Bearer &lt;API key&gt;</code> with every call but the sandbox key mint; " +
      "<code>POST /api/sandbox-key</code> with <code>{}</code> returns a sandbox key.</p>",
    '<h2 id="operations">Operations</h2>',
  ];
  for (const [tag, operations] of byTag) {
    lines.push(`<h3>${escapeHtml(tag)}</h3>`, '<ul class="crs-operations">');
    for (const op of operations) {
      lines.push(
        `<li><a href="#${escapeHtml(operationHash(op.tag, op.method, op.path))}">` +
          `<span class="crs-method">${op.method.toUpperCase()}</span> <code>${escapeHtml(op.path)}</code></a>` +
          ` <span class="crs-summary">${escapeHtml(op.summary)}</span> <span class="crs-scope">${escapeHtml(op.scope)}</span></li>`,
      );
    }
    lines.push("</ul>");
  }
  lines.push(
    '<h2 id="errors">Errors</h2>',
    "<p>Every error body is <code>{&quot;error&quot;: {type, code, message, param?, details?, doc_url, request_id}, &quot;audit_ref&quot;}</code>.</p>",
    "<table><thead><tr><th>status</th><th>code</th><th>type</th></tr></thead><tbody>",
    ...codes.map(
      (code) =>
        `<tr><td>${statusesOf(code)}</td><td><a href="#${errorAnchor(code)}"><code>${code}</code></a></td>` +
        `<td><code>${ERROR_CODES[code].type}</code></td></tr>`,
    ),
    "</tbody></table>",
  );
  for (const code of codes) {
    lines.push(
      `<h3 id="${errorAnchor(code)}">${code}</h3>`,
      `<p>Status <strong>${statusesOf(code)}</strong>, type <code>${ERROR_CODES[code].type}</code>.</p>`,
      `<p>${inlineMarkdown(errorCircumstances(code))}</p>`,
    );
  }
  lines.push("</div>");
  return lines.join("\n");
}

/**
 * Placed over Scalar's (still blank) main pane, right of its sidebar; hidden as soon as Scalar has
 * rendered a section of its own.
 */
export const STATIC_REFERENCE_CSS = `
.crs-static-reference { position: absolute; top: 0; left: 288px; right: 0; box-sizing: border-box;
  max-width: 880px; padding: 48px 60px; font: 15px/1.6 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: #1b1b1b; background: #fff; }
.crs-static-reference h1 { font-size: 28px; margin: 0 0 8px; }
.crs-static-reference h2 { font-size: 22px; margin: 40px 0 12px; }
.crs-static-reference h3 { font-size: 17px; margin: 28px 0 8px; scroll-margin-top: 16px; }
.crs-static-reference a { color: inherit; }
.crs-static-reference ul.crs-operations a { text-decoration: none; }
.crs-static-reference code { font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; background: #f2f2f2;
  padding: 1px 4px; border-radius: 4px; }
.crs-static-reference .crs-meta { color: #666; margin: 0 0 16px; }
.crs-static-reference ul.crs-operations { list-style: none; padding: 0; }
.crs-static-reference ul.crs-operations li { margin: 6px 0; }
.crs-static-reference .crs-method { display: inline-block; min-width: 52px; font: 600 12px ui-monospace, monospace; }
.crs-static-reference .crs-scope { color: #666; font-size: 13px; }
.crs-static-reference table { border-collapse: collapse; }
.crs-static-reference th, .crs-static-reference td { border: 1px solid #ddd; padding: 4px 10px; text-align: left; }
@media (max-width: 1000px) { .crs-static-reference { left: 0; top: 56px; padding: 24px; } }
body:has(#app .section-container) .crs-static-reference { display: none; }
`;
