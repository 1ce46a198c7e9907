/**
 * JSON Schema → the OpenAPI subset Gemini accepts in `parameters` and `responseSchema`.
 * Gemini rejects the whole request on a keyword it does not know (`additionalProperties`,
 * `$schema`, `$ref`…), so this keeps only the keywords it documents and rewrites the common
 * JSON Schema idioms it cannot express directly.
 */

import { unsupported } from './unsupported.js';

type Schema = Record<string, unknown>;

/**
 * Inlining `$ref`s can grow a schema exponentially (each definition referencing the next twice
 * doubles the output per level), so the conversion has a budget: output bytes (approximated by
 * the JSON size of every inlined definition) and nesting depth. Past it the request is refused
 * with a coded 400 instead of freezing the event loop.
 */
export const SCHEMA_LIMITS = Object.freeze({ maxOutputBytes: 128 * 1024, maxDepth: 64, maxNodes: 5_000, maxRefs: 1_000 });

interface Budget {
  bytes: number;
  nodes: number;
  refs: number;
  readonly refSizes: Map<string, number>;
}

function spend(budget: Budget, depth: number, bytes?: number): void {
  if (bytes === undefined) budget.nodes += 1;
  else {
    budget.bytes += bytes;
    budget.refs += 1;
  }
  if (depth > SCHEMA_LIMITS.maxDepth) throw unsupported(`the schema is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`, 'tools');
  if (budget.bytes > SCHEMA_LIMITS.maxOutputBytes || budget.nodes > SCHEMA_LIMITS.maxNodes || budget.refs > SCHEMA_LIMITS.maxRefs) {
    throw unsupported(`the schema expands past ${SCHEMA_LIMITS.maxNodes} nodes, ${SCHEMA_LIMITS.maxRefs} inlined $refs or ${SCHEMA_LIMITS.maxOutputBytes} bytes; simplify its $defs`, 'tools');
  }
}

function refSize(budget: Budget, ref: string, target: Schema): number {
  let size = budget.refSizes.get(ref);
  if (size === undefined) budget.refSizes.set(ref, (size = JSON.stringify(target).length));
  return size;
}

const KEPT_KEYWORDS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'default', 'example',
  'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum',
  'minProperties', 'maxProperties', 'propertyOrdering',
]);

/** Formats Gemini accepts; others (`email`, `uri`…) are rejected, so they are dropped. */
const KEPT_FORMATS = new Set(['date-time', 'enum', 'int32', 'int64', 'float', 'double']);

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Local `#/$defs/X` / `#/definitions/X` references; anything else is unresolvable. */
function resolveRef(ref: string, root: Schema): Schema | undefined {
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!m) return undefined;
  const defs = root[m[1]];
  const target = isSchema(defs) ? defs[decodeURIComponent(m[2])] : undefined;
  return isSchema(target) ? target : undefined;
}

function convert(schema: Schema, root: Schema, seenRefs: ReadonlySet<string>, budget: Budget, depth: number): Schema {
  spend(budget, depth);
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, root);
    // A recursive schema cannot be inlined; an untyped object is the closest Gemini allows.
    if (!target || seenRefs.has(schema.$ref)) return { type: 'object', ...(typeof schema.description === 'string' ? { description: schema.description } : {}) };
    spend(budget, depth, refSize(budget, schema.$ref, target));
    const { $ref: _ref, ...siblings } = schema;
    return convert({ ...target, ...siblings }, root, new Set([...seenRefs, schema.$ref]), budget, depth + 1);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && isSchema(schema.allOf[0])) {
    const { allOf, ...rest } = schema;
    return convert({ ...(allOf as Schema[])[0], ...rest }, root, seenRefs, budget, depth + 1);
  }

  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (KEPT_KEYWORDS.has(key)) out[key] = value;
  }
  if (typeof out.format === 'string' && !KEPT_FORMATS.has(out.format)) delete out.format;
  if ('const' in schema && out.enum === undefined) out.enum = [schema.const];

  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    if (types.length < schema.type.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      if (types.length > 1) out.anyOf = types.map((t) => convert({ ...schema, type: t }, root, seenRefs, budget, depth + 1));
    }
  } else if (schema.type === 'null') {
    delete out.type;
    out.nullable = true;
  }

  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (variants) {
    const nonNull = variants.filter((v) => isSchema(v) && v.type !== 'null') as Schema[];
    if (nonNull.length < variants.length) out.nullable = true;
    if (nonNull.length === 1) Object.assign(out, { ...convert(nonNull[0], root, seenRefs, budget, depth + 1), ...out });
    else out.anyOf = nonNull.map((v) => convert(v, root, seenRefs, budget, depth + 1));
  }

  if (isSchema(schema.properties)) {
    const properties: Schema = {};
    for (const [name, value] of Object.entries(schema.properties)) {
      if (isSchema(value)) properties[name] = convert(value, root, seenRefs, budget, depth + 1);
    }
    if (Object.keys(properties).length > 0) {
      out.properties = properties;
      if (Array.isArray(schema.required)) {
        const required = schema.required.filter((r): r is string => typeof r === 'string' && r in properties);
        if (required.length > 0) out.required = required;
      }
    }
  }
  const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
  if (isSchema(items)) out.items = convert(items, root, seenRefs, budget, depth + 1);
  return out;
}

/** The Gemini schema for a JSON Schema, or undefined when there is nothing to declare. */
export function toGeminiSchema(schema: unknown): Schema | undefined {
  if (!isSchema(schema)) return undefined;
  return convert(schema, schema, new Set(), { bytes: 0, nodes: 0, refs: 0, refSizes: new Map() }, 0);
}

/** Tool parameters: an object with no properties is left out (Gemini rejects an empty OBJECT). */
export function toGeminiParameters(schema: unknown): Schema | undefined {
  const converted = toGeminiSchema(schema);
  if (!converted) return undefined;
  if (converted.type === 'object' && converted.properties === undefined && converted.anyOf === undefined) return undefined;
  return converted;
}

/**
 * A Gemini schema (the OpenAPI subset, `type: "OBJECT"`, `nullable`) → JSON Schema, for vendors
 * of other APIs: types in lower case, `nullable` as a `"null"` type. What JSON Schema also
 * knows (`enum`, `format`, `description`, `required`…) is kept as it is.
 */
export function fromGeminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(fromGeminiSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  const source = schema as Record<string, unknown>;
  for (const key in source) {
    if (!Object.hasOwn(source, key) || key === 'nullable') continue;
    const value = source[key];
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'properties' && typeof value === 'object' && value !== null) out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, fromGeminiSchema(sub)]));
    else if (key === 'items' || key === 'anyOf' || key === 'additionalProperties') out[key] = fromGeminiSchema(value);
    else out[key] = value;
  }
  if (source.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}
