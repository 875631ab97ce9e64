// The Aduana's country codes (Servicio Nacional de Aduanas, "Tabla de países", used by the DTE's
// Nacionalidad, CodPaisRecep and CodPaisDestin) as ISO 3166 alpha-2 codes, so a printout names the
// country instead of its number. Evidence: the customs code Odoo's Chilean localization keeps per
// country (l10n_cl, data/res.country.csv, field l10n_cl_customs_code). The names come from the
// runtime's own ICU data in Spanish (Intl.DisplayNames), so no list of names is kept here.
const ADUANA_TO_ISO =
  "101 SN 102 GM 104 GN 105 SL 106 LR 107 CI 108 GH 109 TG 111 NG 112 ZA 113 BW 114 LS 115 MW 116 ZW 117 ZM " +
  "119 MU 120 MG 121 MZ 123 SD 124 EG 125 LY 127 DZ 128 MA 129 CV 130 TD 131 NE 133 ML 134 MR 135 TZ 136 UG " +
  "137 KE 138 SO 140 AO 141 BI 142 RW 144 CG 145 GA 147 GQ 150 BJ 155 DJ 156 SC 159 NA 161 BF 163 ER 164 MH " +
  "201 VE 202 CO 203 TT 204 BB 205 JM 207 BS 208 HT 209 CU 210 PA 211 CR 212 NI 213 SV 214 HN 215 GT 216 MX " +
  "217 GY 218 EC 219 PE 220 BR 221 BO 222 PY 223 UY 224 AR 225 US 226 CA 231 DM 232 GD 234 VC 235 SR 240 AG " +
  "243 AW 244 BM 250 MQ 251 PR 253 GL 301 JO 303 KW 304 OM 305 CY 306 IL 307 IQ 308 AF 309 IR 310 SY 312 QA " +
  "314 LK 315 KH 316 LA 317 IN 320 NP 321 BD 324 PK 325 VN 328 ID 329 MY 330 TW 331 JP 332 SG 333 KR 334 KP " +
  "335 PH 336 CN 337 MN 345 MO 401 FJ 402 NR 406 AU 415 VU 416 KI 417 FM 419 TV 421 NU 422 PF 423 NC 424 MP " +
  "425 GU 427 CK 501 PT 504 IT 505 FR 506 IE 507 DK 508 CH 509 AT 510 GB 511 SE 512 FI 513 NO 514 BE 515 NL " +
  "516 IS 517 ES 518 AL 519 RO 520 GR 523 MT 525 AD 527 BG 528 PL 534 LI 535 MC 536 SM 540 AM 541 AZ 542 BY " +
  "546 RS 547 HR 548 SI 549 EE 550 GE 553 LV 554 LT 556 MD 558 TM 559 UA 560 UZ 561 ME 563 DE 565 GI 566 GG " +
  "568 JE 997 CL";

// Built on first use: most isolates never print a foreign receiver.
let countries: { iso: Map<string, string>; names: Intl.DisplayNames } | undefined;

/** The country's name in Spanish for an Aduana code ("225" → "Estados Unidos"), or null when the table has no such code. */
export function countryName(code: string): string | null {
  if (!countries) {
    const words = ADUANA_TO_ISO.split(" ");
    const iso = new Map<string, string>();
    for (let i = 0; i + 1 < words.length; i += 2) iso.set(words[i] as string, words[i + 1] as string);
    countries = { iso, names: new Intl.DisplayNames(["es"], { type: "region" }) };
  }
  // Leading zeros (an A(3) field may hold "048"); linear however long an uploaded XML makes it.
  const iso = countries.iso.get(code.replace(/^0+(?=\d)/, ""));
  return iso ? (countries.names.of(iso) ?? null) : null;
}

/** How a printout shows an Aduana country code: "Estados Unidos (225)", or the code and what it is when unknown. */
export function countryLabel(code: string): string {
  const name = countryName(code);
  return name ? `${name} (${code})` : `${code} (código de país, Aduana)`;
}
