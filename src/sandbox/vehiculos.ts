// www.sii.cl/servicios_online/tasacion_fiscal_vehiculos/{liv,pes}YYYY.xlsx: the SII's yearly
// appraisal workbooks (docs/sii-services.md §11.1), made up here: a title block, the header in row 12,
// one vehicle per row (light: 20 columns; heavy: no doors, power, fuel or permit), a second sheet
// of equipment abbreviations. Deterministic per year and size; the size is a sandbox option.

import { seededRandom } from "../lib/seeded-random.ts";
import { type WriteCell, writeXlsx } from "../lib/xlsx.ts";
import { latin1Html } from "./pages.ts";

export type WorkbookKind = "liv" | "pes";

/** The first year the SII publishes as XLSX (earlier years are ZIP files). */
export const FIRST_APPRAISAL_YEAR = 2020;
/** Rows of the light-vehicle workbook unless the sandbox is told otherwise (the SII's has about 80 000). */
export const DEFAULT_VEHICLE_ROWS = 20_000;

export interface SandboxVehicle {
  codigo: string;
  anio: number;
  tipo: string;
  marca: string;
  modelo: string;
  version: string;
  puertas: number | null;
  cilindrada: number | null;
  potencia: number | null;
  combustible: string | null;
  transmision: string | null;
  marchas: number | null;
  traccion: string | null;
  pais: string;
  equipamiento: string | null;
  carga: number | null;
  pasajeros: number | null;
  tasacion: number;
  permiso: number | null;
  observacion: string | null;
}

type Field = keyof SandboxVehicle;

/** Header texts as the SII writes them, and the field each column holds. */
export function workbookColumns(kind: WorkbookKind, year: number): [string, Field][] {
  const all: [string, Field][] = [
    ["Código SII", "codigo"],
    ["Año", "anio"],
    ["Tipo", "tipo"],
    ["Marca", "marca"],
    ["Modelo", "modelo"],
    ["Versión", "version"],
    ["Puertas", "puertas"],
    ["Cilindrada (cc)", "cilindrada"],
    ["Potencia (hp)", "potencia"],
    ["Combustible", "combustible"],
    ["Transmisión", "transmision"],
    ["Marchas", "marchas"],
    ["Tracción", "traccion"],
    ["País", "pais"],
    ["Equipamiento", "equipamiento"],
    ["Carga (kg)", "carga"],
    ["Pasajeros (cantidad)", "pasajeros"],
    [`Tasación ${year}`, "tasacion"],
    [`Permiso ${year}`, "permiso"],
    ["Observación", "observacion"],
  ];
  const heavyLacks: Field[] = ["puertas", "potencia", "combustible", "permiso"];
  return kind === "liv" ? all : all.filter(([, field]) => !heavyLacks.includes(field));
}

interface Model {
  name: string;
  tipo: string;
  /** Price new, millions of CLP. */
  price: number;
  engines: number[];
}

interface Make {
  name: string;
  prefix: string;
  pais: string;
  weight: number;
  models: Model[];
}

const m = (name: string, tipo: string, price: number, engines: number[]): Model => ({ name, tipo, price, engines });

const LIGHT_MAKES: Make[] = [
  {
    name: "CHEVROLET",
    prefix: "CH",
    pais: "COREA DEL SUR",
    weight: 9,
    models: [
      m("SAIL", "AUTOMOVIL", 10, [1400, 1500]),
      m("TRACKER", "STATION WAGON", 17, [1200, 1800]),
      m("COLORADO", "CAMIONETA", 26, [2800]),
    ],
  },
  {
    name: "TOYOTA",
    prefix: "TO",
    pais: "JAPON",
    weight: 9,
    models: [
      m("YARIS", "AUTOMOVIL", 13, [1300, 1500]),
      m("RAV4", "STATION WAGON", 28, [2000, 2500]),
      m("HILUX", "CAMIONETA", 30, [2400, 2800]),
    ],
  },
  {
    name: "HYUNDAI",
    prefix: "HY",
    pais: "COREA DEL SUR",
    weight: 8,
    models: [m("ACCENT", "AUTOMOVIL", 12, [1400, 1600]), m("TUCSON", "STATION WAGON", 24, [2000]), m("H-1", "FURGON", 22, [2500])],
  },
  {
    name: "KIA",
    prefix: "KI",
    pais: "COREA DEL SUR",
    weight: 8,
    models: [
      m("MORNING", "AUTOMOVIL", 9, [1000, 1200]),
      m("SPORTAGE", "STATION WAGON", 25, [2000]),
      m("FRONTIER", "CAMIONETA", 21, [2500]),
    ],
  },
  {
    name: "SUZUKI",
    prefix: "SU",
    pais: "JAPON",
    weight: 7,
    models: [
      m("SWIFT", "AUTOMOVIL", 11, [1200]),
      m("VITARA", "JEEP", 19, [1600]),
      m("JIMNY", "JEEP", 18, [1500]),
      m("GIXXER", "MOTO", 2.5, [150, 250]),
    ],
  },
  {
    name: "NISSAN",
    prefix: "NI",
    pais: "JAPON",
    weight: 7,
    models: [m("VERSA", "AUTOMOVIL", 12, [1600]), m("QASHQAI", "STATION WAGON", 23, [2000]), m("NP300", "CAMIONETA", 25, [2300])],
  },
  {
    name: "PEUGEOT",
    prefix: "PE",
    pais: "FRANCIA",
    weight: 5,
    models: [m("208", "AUTOMOVIL", 14, [1200, 1600]), m("3008", "STATION WAGON", 27, [1600]), m("PARTNER", "FURGON", 16, [1600])],
  },
  {
    name: "MAZDA",
    prefix: "MA",
    pais: "JAPON",
    weight: 4,
    models: [m("3", "AUTOMOVIL", 18, [2000, 2500]), m("CX-5", "STATION WAGON", 27, [2000, 2500]), m("MX-5", "CONVERTIBLE", 30, [2000])],
  },
  {
    name: "FORD",
    prefix: "FO",
    pais: "ESTADOS UNIDOS",
    weight: 4,
    models: [
      m("RANGER", "CAMIONETA", 29, [2200, 3200]),
      m("TERRITORY", "STATION WAGON", 24, [1500]),
      m("MUSTANG", "COUPE", 55, [2300, 5000]),
    ],
  },
  {
    name: "VOLKSWAGEN",
    prefix: "VO",
    pais: "ALEMANIA",
    weight: 4,
    models: [
      m("GOL", "AUTOMOVIL", 10, [1600]),
      m("T-CROSS", "STATION WAGON", 20, [1000, 1400]),
      m("AMAROK", "CAMIONETA", 35, [2000, 3000]),
    ],
  },
  {
    name: "MG",
    prefix: "MG",
    pais: "CHINA",
    weight: 3,
    models: [m("ZS", "STATION WAGON", 15, [1500]), m("ZS EV", "STATION WAGON", 25, [0])],
  },
  {
    name: "BYD",
    prefix: "BY",
    pais: "CHINA",
    weight: 2,
    models: [m("DOLPHIN", "AUTOMOVIL", 22, [0]), m("SONG PLUS", "STATION WAGON", 30, [1500])],
  },
  {
    name: "HONDA",
    prefix: "HO",
    pais: "JAPON",
    weight: 4,
    models: [
      m("CIVIC", "AUTOMOVIL", 20, [1500, 2000]),
      m("CR-V", "STATION WAGON", 29, [1500]),
      m("XR 150L", "MOTO", 2, [150]),
      m("CB 500F", "MOTO", 6, [500]),
    ],
  },
  {
    name: "YAMAHA",
    prefix: "YA",
    pais: "JAPON",
    weight: 3,
    models: [m("FZ 2.0", "MOTO", 2, [150]), m("MT-03", "MOTO", 5.5, [300]), m("YFM 350", "CUATRIMOTO", 7, [350])],
  },
  {
    name: "BAJAJ",
    prefix: "BA",
    pais: "INDIA",
    weight: 2,
    models: [m("PULSAR NS 200", "MOTO", 2.3, [200]), m("DOMINAR 400", "MOTO", 4, [400])],
  },
  {
    name: "PEUGEOT MOTOCYCLES",
    prefix: "PM",
    pais: "FRANCIA",
    weight: 1,
    models: [m("DJANGO", "SCOOTER", 3, [125, 150])],
  },
];

const HEAVY_MAKES: Make[] = [
  {
    name: "MERCEDES-BENZ",
    prefix: "MB",
    pais: "ALEMANIA",
    weight: 4,
    models: [m("ACTROS", "TRACTOCAMION", 140, [12800]), m("ATEGO", "CAMION", 70, [7700])],
  },
  { name: "VOLVO", prefix: "VV", pais: "SUECIA", weight: 4, models: [m("FH", "TRACTOCAMION", 150, [12800]), m("B8R", "BUS", 180, [7700])] },
  {
    name: "SCANIA",
    prefix: "SC",
    pais: "SUECIA",
    weight: 3,
    models: [m("R 450", "TRACTOCAMION", 145, [12700]), m("K 360", "BUS", 170, [9300])],
  },
  { name: "HINO", prefix: "HI", pais: "JAPON", weight: 3, models: [m("DUTRO", "CAMION", 35, [4000]), m("500", "CAMION", 60, [7700])] },
  { name: "FOTON", prefix: "FT", pais: "CHINA", weight: 2, models: [m("AUMARK", "CAMION", 25, [2800]), m("AUV", "BUS", 90, [6700])] },
  { name: "INTERNATIONAL", prefix: "IN", pais: "ESTADOS UNIDOS", weight: 2, models: [m("LT", "TRACTOCAMION", 135, [12400])] },
];

const TRIMS = ["GL", "GLS", "LIMITED", "SPORT", "LUXURY", "BASE", "PLUS"];
const EQUIPMENT = ["AC", "ABS", "DA", "AC ABS", "AC DA ABS", "AC ABS DA LL", "TC ABS"];
const SIGLAS: [string, string][] = [
  ["AC", "Aire acondicionado"],
  ["ABS", "Frenos antibloqueo"],
  ["DA", "Dirección asistida"],
  ["LL", "Llantas de aleación"],
  ["TC", "Techo corredizo"],
];

/** The sandbox UTM used for permits (CLP). */
const UTM = 68_000;

/** Circulation permit: progressive on the appraisal in UTM (1 % to 60, 2 % to 120, 3 % to 250, 4 % to 400, 4.5 % above). */
export function circulationPermit(tasacion: number): number {
  const brackets: [number, number][] = [
    [60, 0.01],
    [120, 0.02],
    [250, 0.03],
    [400, 0.04],
    [Number.POSITIVE_INFINITY, 0.045],
  ];
  let left = tasacion / UTM;
  let from = 0;
  let permit = 0;
  for (const [upTo, rate] of brackets) {
    const part = Math.min(left, upTo - from);
    if (part <= 0) break;
    permit += part * rate;
    left -= part;
    from = upTo;
  }
  return Math.round(permit * UTM);
}

/** The make a point in [0, total weight) falls on. */
function weighted(makes: readonly Make[], point: number): Make {
  let left = point;
  for (const make of makes) {
    left -= make.weight;
    if (left < 0) return make;
  }
  return makes.at(-1) as Make;
}

const isMotorcycle = (tipo: string) => ["MOTO", "CUATRIMOTO", "SCOOTER"].includes(tipo);

/** The vehicles of one workbook, in the order it lists them. */
export function sandboxVehicles(kind: WorkbookKind, year: number, lightRows: number): SandboxVehicle[] {
  const makes = kind === "liv" ? LIGHT_MAKES : HEAVY_MAKES;
  const count = kind === "liv" ? lightRows : Math.max(20, Math.round(lightRows / 8));
  const next = seededRandom(year * 31 + (kind === "liv" ? 1 : 2));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const totalWeight = makes.reduce((sum, make) => sum + make.weight, 0);
  const sequence = new Map<string, number>();
  const vehicles: SandboxVehicle[] = [];
  for (let i = 0; i < count; i++) {
    const make = weighted(makes, next() * totalWeight);
    const model = pick(make.models);
    const engine = pick(model.engines);
    const electric = engine === 0;
    const moto = isMotorcycle(model.tipo);
    const automatic = !moto && next() < 0.45;
    const fourWheel = ["CAMIONETA", "JEEP"].includes(model.tipo) && next() < 0.5;
    const trim = pick(TRIMS);
    const anio = year - Math.floor(next() * 16) + (next() < 0.05 ? 1 : 0);
    const version = moto
      ? `${model.name} ${trim}`
      : `${electric ? "EV" : (engine / 1000).toFixed(1)} ${trim} ${automatic ? "AT" : "MT"}${fourWheel ? " 4X4" : ""}`;
    const makeNumber = makes.indexOf(make) * 37 + 101;
    const seq = (sequence.get(make.name) ?? 0) + 1;
    sequence.set(make.name, seq);
    const age = Math.max(0, year - anio);
    const priceNew = model.price * 1_000_000 * (1 + TRIMS.indexOf(trim) * 0.06) * (1 + (year - 2020) * 0.04);
    const tasacion = Math.round((priceNew * 0.88 ** age) / 1000) * 1000;
    const cargo = model.tipo === "CAMIONETA" || model.tipo === "FURGON" || kind === "pes";
    vehicles.push({
      codigo: `${make.prefix}${makeNumber}${String(seq).padStart(4, "0")}`,
      anio,
      tipo: model.tipo,
      marca: make.name,
      modelo: model.name,
      version,
      puertas:
        kind === "pes"
          ? null
          : moto
            ? null
            : model.tipo === "COUPE" || model.tipo === "CONVERTIBLE"
              ? 2
              : model.tipo === "CAMIONETA"
                ? 4
                : 5,
      cilindrada: electric ? null : engine,
      potencia: kind === "pes" ? null : electric ? 150 + Math.round(next() * 100) : Math.round(engine / 14 + next() * 20),
      combustible: kind === "pes" ? null : electric ? "ELECTRICO" : engine >= 2200 && !moto && next() < 0.6 ? "DIESEL" : "BENCINA",
      transmision: automatic ? "AUTOMATICA" : "MECANICA",
      marchas: electric ? 1 : moto ? 5 + Math.floor(next() * 2) : automatic ? 6 + Math.floor(next() * 3) : 5 + Math.floor(next() * 2),
      traccion: moto ? null : fourWheel ? "4X4" : "4X2",
      pais: make.pais,
      equipamiento: moto || next() < 0.1 ? null : pick(EQUIPMENT),
      carga: cargo ? Math.round((kind === "pes" ? 8000 + next() * 20_000 : 700 + next() * 500) / 10) * 10 : null,
      pasajeros: model.tipo === "BUS" ? 40 + Math.floor(next() * 10) : moto ? 2 : kind === "pes" ? 2 : model.tipo === "FURGON" ? 2 : 5,
      tasacion,
      permiso: kind === "pes" ? null : circulationPermit(tasacion),
      observacion: next() < 0.02 ? "MODELO DISCONTINUADO" : null,
    });
  }
  return vehicles;
}

const KIND_TITLE: Record<WorkbookKind, string> = { liv: "LIVIANOS Y MEDIANOS", pes: "PESADOS" };

/** The workbook's bytes: title block, header in row 12, vehicles, then the "Siglas" sheet. */
export function appraisalWorkbook(kind: WorkbookKind, year: number, lightRows: number): Promise<Uint8Array<ArrayBuffer>> {
  const columns = workbookColumns(kind, year);
  const rows = function* (): Iterable<WriteCell[]> {
    yield [`TASACIÓN FISCAL DE VEHÍCULOS ${KIND_TITLE[kind]} AÑO ${year}`];
    yield [];
    yield [{ inline: "Valores en pesos chilenos, vigentes para el año indicado." }];
    yield [`Resolución Exenta SII N° ${100 + (year % 100)} de ${year}`];
    for (let i = 0; i < 7; i++) yield [];
    yield columns.map(([header]) => header);
    for (const vehicle of sandboxVehicles(kind, year, lightRows)) {
      // The observation is written as an inline string, as some of the SII's exports do.
      yield columns.map(([, field]) => (field === "observacion" && vehicle.observacion ? { inline: vehicle.observacion } : vehicle[field]));
    }
  };
  return writeXlsx([
    { name: `Tasación ${year}`, rows },
    { name: "Siglas", rows: () => [["Sigla", "Significado"], ...SIGLAS] },
  ]);
}

/** Workbooks already packed, by kind, year and size: the SII serves the same file to everyone. */
const packed = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/** The SII's answer for a workbook: the file, or its "not found" page for a year it has not published. */
export async function appraisalFile(kind: WorkbookKind, year: number, lightRows: number, now: Date): Promise<Response> {
  if (year < FIRST_APPRAISAL_YEAR || year > now.getUTCFullYear()) {
    return latin1Html("<h1>Not Found</h1><p>The requested URL was not found on this server.</p>", 404);
  }
  const key = `${kind}${year}:${lightRows}`;
  let bytes = packed.get(key);
  if (!bytes) {
    if (packed.size >= 8) packed.clear();
    bytes = appraisalWorkbook(kind, year, lightRows);
    packed.set(key, bytes);
  }
  return new Response(await bytes, { headers: { "content-type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" } });
}
