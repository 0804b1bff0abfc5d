import { codePointCompare, isObject, typeOf, type ValueType } from './values';

/**
 * JSON Schema inference over sampled values (JSON Schema 2020-12 Validation §6.1.1 type names).
 * - `integer` for numbers with a zero fractional part; a mix of integers and other numbers is `number`.
 * - `null` is one of the types of a nullable member (`["null", "string"]`), `null` alone when only null was seen.
 * - `required` lists the members present in every sampled object at that place; optional members
 *   carry `x-occurrences` (objects holding them) and `x-frequency` (that share, 3 decimals).
 * - Arrays: `items` merges every element seen; an empty array adds no item type.
 * - Nested objects and arrays are described recursively down to `maxDepth` levels; deeper ones by type only.
 */
export interface Schema {
  type: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  'x-occurrences'?: number;
  'x-frequency'?: number;
}

const TYPE_ORDER: ValueType[] = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];

/** Shared by the places of one schema: at most `maxProps` members per place; past that `overflow`. */
interface Bounds {
  maxProps: number;
  overflow: boolean;
}

class Acc {
  constructor(private readonly bounds: Bounds) {}
  types = new Set<ValueType>();
  /** Values seen at this place. */
  seen = 0;
  objects = 0;
  props = new Map<string, Acc>();
  items: Acc | null = null;

  add(v: unknown, depth: number, maxDepth: number): void {
    this.seen++;
    const t = typeOf(v);
    this.types.add(t);
    if (depth >= maxDepth) return;
    if (t === 'object' && isObject(v)) {
      this.objects++;
      for (const key of Object.keys(v)) {
        let p = this.props.get(key);
        if (!p) {
          // A place with more members than an answer can hold is not described member by member.
          if (this.props.size >= this.bounds.maxProps) { this.bounds.overflow = true; continue; }
          this.props.set(key, (p = new Acc(this.bounds)));
        }
        p.add(v[key], depth + 1, maxDepth);
      }
    } else if (t === 'array') {
      for (const el of v as unknown[]) (this.items ??= new Acc(this.bounds)).add(el, depth + 1, maxDepth);
    }
  }

  schema(parentObjects: number | null): Schema {
    const types = TYPE_ORDER.filter((t) => this.types.has(t) && !(t === 'integer' && this.types.has('number')));
    const out: Schema = { type: types.length === 1 ? types[0]! : types };
    if (this.objects > 0) {
      const keys = [...this.props.keys()];
      out.properties = {};
      // defined, not assigned: a member named `__proto__` is a property like any other
      for (const k of keys) Object.defineProperty(out.properties, k, { value: this.props.get(k)!.schema(this.objects), writable: true, enumerable: true, configurable: true });
      out.required = keys.filter((k) => this.props.get(k)!.seen === this.objects).sort(codePointCompare);
    }
    if (this.items) out.items = this.items.schema(null);
    if (parentObjects !== null && this.seen < parentObjects) {
      out['x-occurrences'] = this.seen;
      out['x-frequency'] = Math.round((this.seen / parentObjects) * 1000) / 1000;
    }
    return out;
  }
}

/** Infers one schema describing every value of `values`. */
export function inferSchema(values: Iterable<unknown>, maxDepth = 16): Schema {
  const acc = new Acc({ maxProps: Number.POSITIVE_INFINITY, overflow: false });
  for (const v of values) acc.add(v, 0, maxDepth);
  if (acc.seen === 0) return { type: [] };
  return acc.schema(null);
}

/**
 * An incremental form of `inferSchema`, for sampling loops. `maxProps`: members described per place at most (an
 * answer cannot hold more); a place with more sets `overflow` and its further members are left out.
 */
export function schemaBuilder(maxDepth = 16, maxProps = Number.POSITIVE_INFINITY) {
  const bounds: Bounds = { maxProps, overflow: false };
  const acc = new Acc(bounds);
  return {
    add: (v: unknown) => acc.add(v, 0, maxDepth),
    get seen() { return acc.seen; },
    /** Some place had more than `maxProps` members. */
    get overflow() { return bounds.overflow; },
    schema: (): Schema => (acc.seen === 0 ? { type: [] } : acc.schema(null)),
  };
}
