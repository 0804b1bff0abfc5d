/**
 * A generated document shaped like a collection of API models (services by name, each with `operations` and
 * `shapes`), for tests of single documents larger than the engine walks through lazy nodes (4 MiB): most services are
 * small enough to be evaluated whole, one (`svc-007`) is over 1 MiB so the walk goes inside it, and one name
 * (`svc-003`) occurs twice at the top level (the last value wins, at the first position, as JSON.parse keeps it).
 * Deterministic: the same text on every call.
 */

const TYPES = ['structure', 'string', 'long', 'integer', 'list', 'timestamp'] as const;
const METHODS = ['POST', 'GET', 'DELETE', 'PUT', 'PATCH'] as const;

/** One service's model, `v` varying its content (the repeated name's two values differ). */
function service(s: number, v: number): unknown {
  const big = s === 7;
  const nOps = 20 + ((s * 7 + v) % 30) + (big ? 400 : 0);
  const nShapes = 60 + ((s * 13 + v) % 80) + (big ? 3200 : 0);
  const shapeName = (j: number) => `S${s}x${j}`;
  const shapes: Record<string, unknown> = {};
  for (let j = 0; j < nShapes; j++) {
    const type = TYPES[(j * 5 + s + v) % TYPES.length]!;
    const shape: Record<string, unknown> = { type };
    if (type === 'structure') {
      shape.members = Object.fromEntries(Array.from({ length: 1 + (j % 4) }, (_, m) => [`m${m}`, { shape: shapeName((j + m + 1) % nShapes) }]));
      if (j % 9 === 0) shape.required = ['m0'];
    }
    if (type === 'list') shape.member = { shape: shapeName((j + 2) % nShapes) };
    if (type === 'string' && j % 3 === 0) shape.max = 64 + j;
    if (type === 'long' && j % 4 === 1) shape.min = 0;
    shape.documentation = `<p>Shape ${j} of service ${s}: ${'lorem ipsum '.repeat(18 + (j % 12))}</p>`;
    shapes[shapeName(j)] = shape;
  }
  const operations: Record<string, unknown> = {};
  for (let o = 0; o < nOps; o++) {
    const name = `Op${s}x${o}`;
    operations[name] = {
      name,
      http: { method: METHODS[(o * 3 + s + v) % METHODS.length], requestUri: `/s${s}/o${o}` },
      input: { shape: shapeName(o % nShapes) },
      ...(o % 5 !== 2 ? { output: { shape: shapeName((o + 1) % nShapes) } } : {}),
      errors: Array.from({ length: o % 3 }, (_, e) => ({ shape: shapeName((o + e + 3) % nShapes) })),
      documentation: `<p>Operation ${o}: ${'dolor sit amet '.repeat(10 + (o % 10))}</p>`,
    };
  }
  return { version: '2.0', metadata: { apiVersion: `2020-0${1 + (s % 9)}-01`, serviceId: `svc ${s}`, protocol: s % 2 ? 'json' : 'rest-json' }, operations, shapes };
}

/** The document's text: `count` services (default 60, about 4.6 MB (over 4 MiB)), with `svc-003` written twice. */
export function serviceModelsText(count = 60): string {
  const parts: string[] = [];
  for (let s = 0; s < count; s++) {
    parts.push(`${JSON.stringify(`svc-${String(s).padStart(3, '0')}`)}:${JSON.stringify(service(s, 0))}`);
    if (s === 40) parts.push(`"svc-003":${JSON.stringify(service(3, 1))}`);
  }
  return '{' + parts.join(',\n') + '}';
}
