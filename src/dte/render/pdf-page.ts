// One copy of a DTE on a PDF page (docs/dte-engine.md §6.1–6.2): the issuer and the SII's box,
// the emission, receiver and transfer fields, the detail with each line's discount and exempt
// mark, the global discounts, references, commissions, the totals as they add up, the other
// currency, the stamp with its legends, and the cedible copy's receipt box.
import { commissionLine, type PrintedDocument } from "./model.ts";
import { money, pesos } from "./money.ts";
import { type Canvas, type PdfOptions, textWidth, type Weight, wrap } from "./pdf-canvas.ts";
import type { Pdf417Symbol } from "./pdf417.ts";
import {
  type AmountRow,
  adjustmentLine,
  issuerExtras,
  lineAdjustment,
  otherCurrencyBlock,
  receiverFields,
  referenceText,
  totalsBlock,
  transferFields,
} from "./sections.ts";
import { mm, STAMP } from "./stamp-geometry.ts";

const RED: [number, number, number] = [0.8, 0, 0];

/** The TED's symbol, its module in points (stamp-geometry.ts) and its image's name. */
export interface Stamp {
  symbol: Pdf417Symbol;
  module: number;
  name: string;
}

/** The quiet zone in points, and the stamp's left edge on letter: 2 cm from the page's, rounded up. */
const QUIET = mm(STAMP.quietZone);
const LETTER_STAMP_X = Math.ceil(mm(20));
export const NO_CEDIBLE = new Set([39, 41, 56, 61, 110, 111, 112]);

export const LETTER_HEIGHT = 792;

/** The page's measures: letter or roll. */
interface Frame {
  canvas: Canvas;
  roll: boolean;
  width: number;
  margin: number;
  inner: number;
  small: number;
  body: number;
  /**
   * Where `needed` points drawn from `y` start: `y` when they fit above letter's bottom margin,
   * else the top of a new page headed with the document's name and folio (a roll has no bottom).
   */
  fit: (y: number, needed: number) => number;
}

/** One copy of the document on a canvas of the given width; returns the height used. */
export function drawDocument(
  canvas: Canvas,
  doc: PrintedDocument,
  stamp: Stamp | null,
  options: PdfOptions,
  width: number,
  cedible: boolean,
): number {
  const roll = options.papel === "80mm";
  const margin = roll ? 8 : 36;
  const small = roll ? 7 : 8;
  const fit = (y: number, needed: number) => {
    if (roll || y + needed <= LETTER_HEIGHT - margin) return y;
    canvas.newPage();
    canvas.text(margin, margin, `${doc.nombre_tipo} N° ${doc.folio} (continuación)`, small, "bold");
    return margin + small + 10;
  };
  const f: Frame = { canvas, roll, width, margin, inner: width - 2 * margin, small, body: roll ? 7.5 : 9, fit };
  let y = header(f, doc, options);
  y = fields(f, doc, y);
  y = detail(f, doc, y);
  y = blocks(f, doc, y);
  y = totalsAndStamp(f, doc, stamp, options, y);
  if (cedible) y = receiptBox(f, doc, y);
  return y + margin / 2;
}

/** Issuer (left) and the SII box (right); on a roll, one under the other. Returns the next y. */
function header(f: Frame, doc: PrintedDocument, options: PdfOptions): number {
  const { canvas, roll, width, margin, inner, small, body } = f;
  const y = margin;
  const boxWidth = roll ? inner : 190;
  const boxX = roll ? margin : width - margin - boxWidth;
  let issuerX = margin;
  if (options.logo && !roll) {
    const logoHeight = 60;
    const logoWidth = (options.logo.width / options.logo.height) * logoHeight;
    canvas.image("Logo", margin, y, Math.min(logoWidth, 120), logoHeight);
    issuerX += Math.min(logoWidth, 120) + 10;
  }
  const issuerWidth = roll ? inner : boxX - issuerX - 12;
  const lines = (text: string, size: number, weight: Weight = "regular") =>
    wrap(text, size, issuerWidth, weight).map((l): [string, Weight, number] => [l, weight, size]);
  const issuerLines = [
    ...lines(doc.emisor.nombre, body + 3, "bold"),
    ...lines(doc.emisor.giro, small),
    ...lines([doc.emisor.direccion, doc.emisor.comuna].filter(Boolean).join(", "), small),
    ...issuerExtras(doc.emisor).flatMap((extra) => lines(extra, small)),
  ];
  let issuerY = y;
  for (const [line, weight, size] of issuerLines) {
    canvas.text(roll ? width / 2 : issuerX, issuerY, line, size, weight, roll ? "center" : "left");
    issuerY += size + 3;
  }
  const boxTop = roll ? issuerY + 6 : y;
  const boxLines = [`R.U.T.: ${doc.emisor.rut}`, ...wrap(doc.nombre_tipo, body + 2, boxWidth - 16, "bold"), `N° ${doc.folio}`];
  const boxHeight = boxLines.length * (body + 6) + 12;
  canvas.rect(boxX, boxTop, boxWidth, boxHeight, RED, 1.5);
  boxLines.forEach((line, i) => {
    canvas.text(boxX + boxWidth / 2, boxTop + 8 + i * (body + 6), line, body + 2, "bold", "center");
  });
  const sii = boxTop + boxHeight + 4;
  canvas.text(boxX + boxWidth / 2, sii, `S.I.I. - ${options.oficina_sii}`, small, "bold", "center");
  return Math.max(issuerY, sii + small + 4) + 10;
}

/** Emission, receiver and transfer: label and value, the value wrapped beside its label. */
function fields(f: Frame, doc: PrintedDocument, top: number): number {
  const { canvas, roll, margin, inner, small } = f;
  let y = top;
  const labelWidth = roll ? 62 : 90;
  const field = ([label, value]: [string, string]) => {
    canvas.text(margin, y, `${label}:`, small, "bold");
    for (const line of wrap(value, small, inner - labelWidth)) {
      canvas.text(margin + labelWidth, y, line, small);
      y += small + 3;
    }
  };
  const emission: [string, string][] = [
    ["Fecha emisión", doc.fecha],
    ["Vendedor", doc.emisor.vendedor],
  ];
  for (const entry of emission.filter(([, value]) => value)) field(entry);
  if (doc.receptor) for (const entry of receiverFields(doc.receptor)) field(entry);
  const transfer = transferFields(doc);
  if (transfer.length) {
    y += 3;
    for (const entry of transfer) field(entry);
  }
  return y + 6;
}

/**
 * The detail: on letter, columns for quantity, price, discount or surcharge, the exempt mark and
 * the line's amount; on a roll, the name and amount, then quantity × price and the adjustment.
 */
function detail(f: Frame, doc: PrintedDocument, top: number): number {
  const { canvas, roll, width, margin, inner, small, body } = f;
  let y = top;
  const amountX = width - margin;
  const qtyX = margin + inner * 0.5;
  const priceX = margin + inner * 0.63;
  const adjustX = margin + inner * 0.82;
  const exeX = margin + inner * 0.865;
  canvas.line(margin, y, amountX);
  y += 3;
  canvas.text(margin, y, "Detalle", small, "bold");
  if (!roll) {
    canvas.text(qtyX, y, "Cant.", small, "bold", "right");
    canvas.text(priceX, y, "Precio", small, "bold", "right");
    canvas.text(adjustX, y, "Desc./Rec.", small, "bold", "right");
    canvas.text(exeX, y, "E", small, "bold", "center");
  }
  canvas.text(amountX, y, "Total", small, "bold", "right");
  y += small + 4;
  canvas.line(margin, y, amountX);
  y += 3;
  const nameWidth = roll ? inner - 50 : qtyX - margin - 40;
  for (const item of doc.lineas) {
    const quantity = item.cantidad === null ? "" : `${pesos(item.cantidad)} ${item.unidad}`.trim();
    const price = item.precio === null ? "" : pesos(item.precio);
    const adjustment = lineAdjustment(item);
    const names = wrap(item.nombre, body, nameWidth);
    const sub = roll
      ? [quantity && price ? `${quantity} × ${price}` : quantity, adjustment, item.exento ? "Exento" : ""].filter(Boolean).join("  ")
      : "";
    const subLines = [sub, item.descripcion].filter(Boolean).flatMap((text) => wrap(text, small, roll ? inner - 6 : nameWidth));
    y = f.fit(y, names.length * (body + 3) + subLines.length * (small + 2));
    canvas.text(amountX, y, pesos(item.monto), body, "regular", "right");
    if (!roll) {
      if (quantity) canvas.text(qtyX, y, quantity, body, "regular", "right");
      if (price) canvas.text(priceX, y, price, body, "regular", "right");
      if (adjustment) canvas.text(adjustX, y, adjustment, small, "regular", "right");
      if (item.exento) canvas.text(exeX, y, "E", body, "bold", "center");
    }
    for (const line of names) {
      canvas.text(margin, y, line, body);
      y += body + 3;
    }
    for (const line of subLines) {
      canvas.text(margin + 6, y, line, small);
      y += small + 2;
    }
  }
  canvas.line(margin, y, amountX);
  return y + 6;
}

/** Global discounts and surcharges, references and a 43's commissions, each a titled list. */
function blocks(f: Frame, doc: PrintedDocument, top: number): number {
  const { canvas, width, margin, inner, small } = f;
  let y = top;
  const amountX = width - margin;
  const block = (title: string, entries: { text: string; value: string }[]) => {
    if (!entries.length) return;
    y = f.fit(y, 2 * (small + 3));
    canvas.text(margin, y, title, small, "bold");
    y += small + 3;
    for (const { text, value } of entries) {
      const room = value ? inner - textWidth(value, small) - 12 : inner;
      const lines = wrap(text, small, room);
      y = f.fit(y, lines.length * (small + 3));
      if (value) canvas.text(amountX, y, value, small, "regular", "right");
      for (const line of lines) {
        canvas.text(margin, y, line, small);
        y += small + 3;
      }
    }
    y += 4;
  };
  const moneda = doc.totales.moneda;
  block(
    "Descuentos y recargos globales",
    doc.descuentos_globales.map((g) => adjustmentLine(g, moneda)),
  );
  block(
    "Referencias",
    doc.referencias.map((r) => ({ text: referenceText(r), value: "" })),
  );
  block(
    "Comisiones y otros cargos",
    doc.comisiones.map((c) => {
      const { text, amount } = commissionLine(c);
      return { text, value: money(-amount, moneda) };
    }),
  );
  return y;
}

/** The totals (right; on a roll, full width) and the stamp (left; on a roll, below them). */
function totalsAndStamp(f: Frame, doc: PrintedDocument, stamp: Stamp | null, options: PdfOptions, start: number): number {
  const { canvas, roll, width, margin, inner, small, body } = f;
  const amountX = width - margin;
  const { components, total, after } = totalsBlock(doc);
  const other = otherCurrencyBlock(doc);
  const all = [...components, total, ...after, ...(other?.rows ?? [])];
  const amountWidth = Math.max(...all.map((r) => textWidth(r.text, body, "bold")));
  const labelX = roll ? margin : amountX - amountWidth - 12;
  const align = roll ? "left" : "right";
  // A label wraps in the room its amount leaves (on letter, the room right of the stamp and its quiet zone).
  const stampRight = stamp ? LETTER_STAMP_X + stamp.symbol.width * stamp.module + QUIET : margin + 220;
  const room = roll ? labelX + inner - amountWidth - 12 - margin : labelX - stampRight;
  const legends = [
    "Timbre Electrónico S.I.I.",
    ...(options.resolucion ? [`Resolución N° ${options.resolucion.numero} de ${options.resolucion.fecha.slice(0, 4)}`] : []),
    "Verifique documento: www.sii.cl",
  ];
  // On letter the totals and the stamp stay together on one page: a new one when they do not fit.
  const lines = (list: AmountRow[], weight: Weight = "regular") =>
    list.reduce((sum, r) => sum + wrap(r.label, body, room, weight).length * (body + 4), 0);
  const otherTitle = other ? wrap(other.title, small, roll ? inner : inner / 2) : [];
  const totalsHeight =
    small +
    4 +
    lines(components) +
    lines([total], "bold") +
    lines(after) +
    (other ? 2 + otherTitle.length * (small + 3) + lines(other.rows) : 0);
  const stampHeight = stamp ? 2 * QUIET + stamp.symbol.rows * 3 * stamp.module + legends.length * (small + 3) : 0;
  const top = f.fit(start, Math.max(totalsHeight, stampHeight) + 8);
  let y = top;
  const rows = (list: AmountRow[], weight: Weight = "regular") => {
    for (const r of list) {
      canvas.text(amountX, y, r.text, body, weight, "right");
      for (const line of wrap(r.label, body, room, weight)) {
        canvas.text(labelX, y, line, body, weight, align);
        y += body + 4;
      }
    }
  };
  canvas.text(labelX, y, "Totales", small, "bold", align);
  y += small + 4;
  rows(components);
  rows([total], "bold");
  rows(after);
  if (other) {
    y += 2;
    for (const line of otherTitle) {
      canvas.text(labelX, y, line, small, "bold", align);
      y += small + 3;
    }
    rows(other.rows);
  }
  let bottom = y;
  if (stamp) {
    // White all round (the quiet zone): nothing is drawn within it above, beside or below the symbol.
    const stampTop = (roll ? y : top) + QUIET;
    const left = roll ? (width - stamp.symbol.width * stamp.module) / 2 : LETTER_STAMP_X;
    const size = canvas.barcode(stamp.symbol, stamp.name, left, stampTop, stamp.module);
    const center = left + size.width / 2;
    let legend = stampTop + size.height + QUIET;
    for (const text of legends) {
      canvas.text(center, legend, text, small, "bold", "center");
      legend += small + 3;
    }
    bottom = Math.max(bottom, legend);
  }
  return bottom + 8;
}

/** The cedible copy's receipt box (Ley 19.983) and its legend. */
function receiptBox(f: Frame, doc: PrintedDocument, top: number): number {
  const { canvas, roll, width, margin, inner, small, body } = f;
  const boxHeight = roll ? 128 : 90;
  let y = f.fit(top, boxHeight + 4 + body + 8);
  canvas.rect(margin, y, inner, boxHeight);
  canvas.text(margin + 6, y + 6, "ACUSE DE RECIBO", small, "bold");
  const labels = ["Nombre:", "R.U.T.:", "Fecha:", "Recinto:", "Firma:"];
  labels.forEach((label, i) => {
    const column = roll ? 0 : i % 2;
    const rowIndex = roll ? i : Math.floor(i / 2);
    canvas.text(margin + 6 + column * (inner / 2), y + 20 + rowIndex * (small + 6), label, small);
  });
  const law =
    "El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4°, y la letra c) del Art. 5° de la Ley 19.983, acredita que la entrega de mercaderías o servicio(s) prestado(s) ha(n) sido recibido(s).";
  let lawY = y + boxHeight - (roll ? 34 : 22);
  for (const line of wrap(law, 5.5, inner - 12)) {
    canvas.text(margin + 6, lawY, line, 5.5);
    lawY += 7;
  }
  y += boxHeight + 4;
  canvas.text(width - margin, y, doc.tipo === 52 ? "CEDIBLE CON SU FACTURA" : "CEDIBLE", body + 2, "bold", "right");
  return y + body + 8;
}
