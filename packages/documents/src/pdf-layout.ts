/**
 * A small table layout on top of pdfkit: cells made of stacked text runs (mixed fonts, optional
 * side labels), rows that never split across pages, header rows repeated after a page break, and
 * room kept at the bottom of every page for the footer. pdfkit's own table draws one font per cell
 * and does not repeat headers, which hash listings and chain entries need.
 */

export type FontName = "sans" | "bold" | "mono";

export const PAGE_MARGIN = 54;
export const FOOTER_BAND = 26;
const CELL_PADDING = 4;
const RUN_GAP = 2;
const SIDE_LABEL_WIDTH = 26;
const LINE_GAP = 1.2;
const HEADING_HEIGHT = 28;

export const COLORS = {
  text: "#111111",
  muted: "#555555",
  rule: "#8c8c8c",
  headerFill: "#e4e4e4",
  labelFill: "#f3f3f3",
  good: "#1d6b2a",
  bad: "#a30000",
} as const;

export interface Run {
  text: string;
  font?: FontName;
  size?: number;
  color?: string;
  /** A short gray label drawn to the left of the text, e.g. "hash". */
  sideLabel?: string;
  align?: "left" | "right";
}

export type Cell = Run[];

export interface Column {
  header: string;
  /** Points. */
  width: number;
  /** Shade this column as a label column (key/value tables). */
  label?: boolean;
}

const DEFAULT_SIZE: Record<FontName, number> = { sans: 8.5, bold: 8.5, mono: 7.5 };

export class PdfLayout {
  constructor(readonly doc: PDFKit.PDFDocument) {}

  get contentWidth(): number {
    return this.doc.page.width - 2 * PAGE_MARGIN;
  }

  get bottom(): number {
    return this.doc.page.height - PAGE_MARGIN - FOOTER_BAND;
  }

  newPage(): void {
    this.doc.addPage();
    this.doc.y = PAGE_MARGIN;
  }

  ensureSpace(height: number): void {
    if (this.doc.y + height > this.bottom) this.newPage();
  }

  /** Free text across the content width. */
  paragraph(text: string, options: { font?: FontName; size?: number; color?: string; gapAfter?: number } = {}): void {
    const run: Run = {
      text,
      font: options.font ?? "sans",
      size: options.size ?? 9,
      color: options.color ?? COLORS.text,
    };
    const height = this.runHeight(run, this.contentWidth);
    this.placePendingHeading(height);
    const y = this.doc.y;
    this.drawRun(run, PAGE_MARGIN, y, this.contentWidth);
    this.doc.y = y + height + (options.gapAfter ?? 6);
  }

  /**
   * A section heading with a rule. It is drawn together with the first block after it (paragraph
   * or table), so a heading never ends a page alone.
   */
  heading(text: string): void {
    this.placePendingHeading(0);
    this.pendingHeading = text;
  }

  private pendingHeading: string | null = null;

  /** Makes room for the pending heading plus `followingHeight`, draws the heading, or just makes room. */
  private placePendingHeading(followingHeight: number): void {
    const text = this.pendingHeading;
    if (text === null) {
      this.ensureSpace(followingHeight);
      return;
    }
    this.pendingHeading = null;
    const doc = this.doc;
    this.ensureSpace(HEADING_HEIGHT + followingHeight);
    const y = doc.y + 6;
    doc.font("bold").fontSize(12).fillColor(COLORS.text);
    doc.text(text, PAGE_MARGIN, y, { width: this.contentWidth, lineBreak: false });
    const ruleY = y + 16;
    doc
      .moveTo(PAGE_MARGIN, ruleY)
      .lineTo(PAGE_MARGIN + this.contentWidth, ruleY)
      .lineWidth(0.8);
    doc.strokeColor(COLORS.text).stroke();
    doc.y = ruleY + 6;
  }

  /** Two columns, label and value, no header row. */
  keyValues(rows: Array<[string, Cell]>, labelWidth = 130): void {
    const columns: Column[] = [
      { header: "", width: labelWidth, label: true },
      { header: "", width: this.contentWidth - labelWidth },
    ];
    this.table(
      columns,
      rows.map(([label, value]) => [[{ text: label, font: "bold" }], value]),
      { header: false },
    );
  }

  table(columns: Column[], rows: Cell[][], options: { header?: boolean } = {}): void {
    const doc = this.doc;
    const withHeader = options.header !== false;
    const headerCells: Cell[] = columns.map((column) => [{ text: column.header, font: "bold", size: 8 }]);
    const headerHeight = withHeader ? this.rowHeight(columns, headerCells) : 0;
    const usable = this.bottom - PAGE_MARGIN - headerHeight - HEADING_HEIGHT;

    const drawHeader = () => {
      if (!withHeader) return;
      const y = doc.y;
      this.drawRow(columns, headerCells, y, headerHeight, COLORS.headerFill);
      doc.y = y + headerHeight;
    };
    const firstRowHeight = rows[0] ? Math.min(this.rowHeight(columns, rows[0]), usable) : 0;
    this.placePendingHeading(headerHeight + firstRowHeight);
    drawHeader();
    for (const row of rows) {
      // A row taller than a whole page is clamped (its runs end in an ellipsis) rather than split.
      const height = Math.min(this.rowHeight(columns, row), usable);
      if (doc.y + height > this.bottom) {
        this.newPage();
        drawHeader();
      }
      const y = doc.y;
      this.drawRow(columns, row, y, height);
      doc.y = y + height;
    }
    doc.y += 10;
  }

  private rowHeight(columns: Column[], cells: Cell[]): number {
    return Math.max(...columns.map((column, i) => this.cellHeight(cells[i] ?? [], column.width)));
  }

  private cellHeight(cell: Cell, width: number): number {
    const inner = width - 2 * CELL_PADDING;
    const runs = cell.map((run) => this.runHeight(run, inner));
    return runs.reduce((sum, h) => sum + h, 0) + RUN_GAP * Math.max(0, runs.length - 1) + 2 * CELL_PADDING;
  }

  private runHeight(run: Run, width: number): number {
    this.applyFont(run);
    const textWidth = run.sideLabel ? width - SIDE_LABEL_WIDTH : width;
    return this.doc.heightOfString(displayText(run.text), { width: textWidth, lineGap: LINE_GAP });
  }

  private drawRow(columns: Column[], cells: Cell[], y: number, height: number, fill?: string): void {
    const doc = this.doc;
    let x = PAGE_MARGIN;
    columns.forEach((column, i) => {
      const background = fill ?? (column.label ? COLORS.labelFill : undefined);
      if (background) doc.rect(x, y, column.width, height).fill(background);
      doc.rect(x, y, column.width, height).lineWidth(0.5).strokeColor(COLORS.rule).stroke();
      let runY = y + CELL_PADDING;
      const limit = y + height - CELL_PADDING;
      for (const run of cells[i] ?? []) {
        const inner = column.width - 2 * CELL_PADDING;
        const runHeight = this.runHeight(run, inner);
        const room = limit - runY;
        if (room <= 0) break;
        this.drawRun(run, x + CELL_PADDING, runY, inner, runHeight > room ? room : undefined);
        runY += runHeight + RUN_GAP;
      }
      x += column.width;
    });
  }

  private drawRun(run: Run, x: number, y: number, width: number, clampHeight?: number): void {
    const doc = this.doc;
    let textX = x;
    let textWidth = width;
    if (run.sideLabel) {
      doc.font("sans").fontSize(6.5).fillColor(COLORS.muted);
      doc.text(run.sideLabel, x, y + 0.8, { width: SIDE_LABEL_WIDTH - 2, lineBreak: false });
      textX += SIDE_LABEL_WIDTH;
      textWidth -= SIDE_LABEL_WIDTH;
    }
    this.applyFont(run);
    doc.fillColor(run.color ?? COLORS.text);
    doc.text(displayText(run.text), textX, y, {
      width: textWidth,
      lineGap: LINE_GAP,
      align: run.align ?? "left",
      ...(clampHeight === undefined ? {} : { height: clampHeight, ellipsis: true }),
    });
  }

  private applyFont(run: Run): void {
    const font = run.font ?? "sans";
    this.doc.font(font).fontSize(run.size ?? DEFAULT_SIZE[font]);
  }

  /** Writes `left` and `right` into the footer band of every buffered page. */
  footer(left: (page: number, count: number) => string, right: (page: number, count: number) => string): void {
    const doc = this.doc;
    this.placePendingHeading(0);
    const { start, count } = doc.bufferedPageRange();
    for (let i = start; i < start + count; i++) {
      doc.switchToPage(i);
      const bottomMargin = doc.page.margins.bottom;
      doc.page.margins.bottom = 0; // writing below the margin would otherwise open a new page
      const y = doc.page.height - PAGE_MARGIN - FOOTER_BAND + 10;
      doc
        .moveTo(PAGE_MARGIN, y)
        .lineTo(PAGE_MARGIN + this.contentWidth, y)
        .lineWidth(0.5);
      doc.strokeColor(COLORS.rule).stroke();
      doc.font("sans").fontSize(7.5).fillColor(COLORS.muted);
      doc.text(left(i + 1, count), PAGE_MARGIN, y + 5, { width: this.contentWidth - 80, lineBreak: false });
      doc.text(right(i + 1, count), PAGE_MARGIN + this.contentWidth - 80, y + 5, {
        width: 80,
        align: "right",
        lineBreak: false,
      });
      doc.page.margins.bottom = bottomMargin;
    }
  }
}

/** pdfkit measures an empty string as zero lines; show an explicit dash instead. */
function displayText(text: string): string {
  return text === "" ? "—" : text;
}
