/**
 * Hostile variants of valid requests (see spec-requests.ts), one kind at a time. Each mutation
 * takes a valid draft and breaks one thing, and says what the server must then do: reject it
 * (4xx, naming the parameter where one is at fault), or at least not fail (no 5xx) where more
 * than one answer is defensible.
 */
import fc from 'fast-check';
import {
  nonNull,
  render,
  resolve,
  toPairs,
  validDraft,
  type Draft,
  type Expectation,
  type Field,
  type Fixture,
  type Operation,
  type Pair,
  type Schema,
  type SpecRequest,
} from './spec-requests.js';

/** Every kind of mutation; the suite runs each one on every operation it applies to. */
export const MUTATION_KINDS = [
  'wrong-type',
  'out-of-range',
  'non-decimal',
  'control-characters',
  'overlong',
  'deep-brackets',
  'duplicate-keys',
  'prototype-keys',
  'wrong-content-type',
  'bad-cursor',
  'bad-path-id',
  'boolean-words',
  'missing-required',
] as const;

export type MutationKind = (typeof MUTATION_KINDS)[number];

/** A value put in place of a field: a JSON value for JSON bodies, text or raw pairs otherwise. */
interface Replacement {
  json?: unknown;
  /** The field's value as text (form, query, header, path); also the JSON value when `json` is absent. */
  text?: string;
  /** Pairs replacing the field's pairs in a form or query (`amount[x]=1`, `amount=1&amount=2`). */
  pairs?: Pair[];
  /** Raw JSON text for the field's value (`1e3`), for a JSON body. */
  rawJson?: string;
}

/** A broken request: what was done, and what the server must answer. */
interface Broken {
  draft: Draft;
  what: string;
  expect: Expectation;
  param?: string;
}

type Mutator = (draft: Draft, fixture: Fixture) => fc.Arbitrary<Broken> | undefined;

const RAW_MARK = '\u0000raw\u0000';

/** Puts `value` in place of a field, wherever the field lives. */
function replace(draft: Draft, field: Field, value: Replacement): Draft {
  const next: Draft = {
    ...draft,
    pathParams: { ...draft.pathParams },
    headers: { ...draft.headers },
    query: [...draft.query],
  };
  const pairsOf = (pairs: Pair[]) => [
    ...pairs.filter(([k]) => k !== field.name && !k.startsWith(`${field.name}[`)),
    ...(value.pairs ?? toPairs(field.name, value.text ?? value.json)),
  ];
  if (field.in === 'path') next.pathParams[field.name] = value.text ?? String(value.json);
  else if (field.in === 'header') next.headers[field.name] = value.text ?? String(value.json);
  else if (field.in === 'query') next.query = pairsOf(draft.query);
  else if (!draft.body || !('encoding' in draft.body) || draft.body.encoding === 'json') {
    const base =
      draft.body && 'encoding' in draft.body && draft.body.encoding === 'json'
        ? draft.body.value
        : {};
    if (value.rawJson !== undefined) {
      // JSON.stringify cannot write `1e3` or `1.0`: a marker string is swapped for the raw text.
      const raw = JSON.stringify({ ...base, [field.name]: RAW_MARK }).replace(
        JSON.stringify(RAW_MARK),
        value.rawJson,
      );
      next.body = { raw, contentType: 'application/json' };
    } else {
      next.body = {
        encoding: 'json',
        value: { ...base, [field.name]: 'json' in value ? value.json : value.text },
      };
    }
  } else {
    next.body = { encoding: 'form', pairs: pairsOf(draft.body.pairs) };
  }
  return next;
}

/** Whether the draft's body is JSON (or would be, once a field is put in it). */
function isJson(draft: Draft): boolean {
  return !draft.body || !('encoding' in draft.body) || draft.body.encoding === 'json';
}

/** The fields a mutation may aim at: body fields and query and header parameters, not path ids. */
function targets(draft: Draft, keep: (field: Field, schema: Schema) => boolean): Field[] {
  return draft.op.fields.filter((f) => f.in !== 'path' && keep(f, nonNull(f.schema)));
}

/** Picks one field of `fields` and one mutation of it, or nothing when no field fits. */
function aimAt(
  fields: Field[],
  mutate: (field: Field) => fc.Arbitrary<Broken>,
): fc.Arbitrary<Broken> | undefined {
  return fields.length === 0 ? undefined : fc.constantFrom(...fields).chain(mutate);
}

/** Drops the Idempotency-Key a valid draft may carry: a request refused after it started may store its key. */
function withoutKey(draft: Draft): Draft {
  const headers = { ...draft.headers };
  delete headers['Idempotency-Key'];
  return { ...draft, headers };
}

/** The draft without cursors, so that a broken one is the only one (two at once are an error of their own). */
function withoutCursors(draft: Draft): Draft {
  return {
    ...draft,
    query: draft.query.filter(([k]) => k !== 'starting_after' && k !== 'ending_before'),
  };
}

const rejected = (draft: Draft, what: string, param?: string): Broken => ({
  draft,
  what,
  expect: 'rejected',
  param,
});
const tolerated = (draft: Draft, what: string): Broken => ({ draft, what, expect: 'no-5xx' });

const isText = (s: Schema) => s.type === 'string' && !s.enum && s.const === undefined;
const isMap = (s: Schema) => s.type === 'object' && typeof s.additionalProperties === 'object';

/** Integers spelled in ways only a decimal integer parser should refuse. */
const NON_DECIMAL = [
  '0x10',
  '1e3',
  '+5',
  ' 5',
  '5 ',
  '1.0',
  '1.5',
  '0b1',
  '0o7',
  '1_000',
  'Infinity',
  'NaN',
  '٥',
  '5\t',
  '--5',
];
/**
 * Booleans as other APIs spell them; the spec's are `true` and `false` (in forms and queries in
 * any letter case, on purpose: some payment SDKs send `True`).
 */
const BOOLEAN_WORDS = ['yes', 'no', '1', '0', 'on', 'off', 't', 'f', 'y', 'null', 'true1', ' true'];
/** Control characters: NUL must be refused (Postgres cannot store it); the others must at least not fail. */
const CONTROLS = ['\u0001', '\u0007', '\u0008', '\u001b', '\u001f', '\u007f', '\u0085', '\r\n'];

const MUTATORS: Record<MutationKind, Mutator> = {
  'wrong-type': (draft) =>
    aimAt(
      targets(draft, (f) => f.in !== 'header'),
      (field) => {
        const s = nonNull(field.schema);
        const json = isJson(draft) && field.in === 'body';
        const wrong: Replacement[] = json
          ? [
              { json: 5 },
              { json: true },
              { json: { a: 'b' } },
              { json: ['x'] },
              { json: '5' },
              { json: 1.5 },
              { json: null },
            ].filter((r) => !fitsType(field.schema, r.json))
          : formWrongTypes(field.name, s.type as string);
        return fc
          .constantFrom(...wrong)
          .map((r) =>
            rejected(
              replace(withoutKey(draft), field, r),
              `${field.name} ← ${show(r)}`,
              field.name,
            ),
          );
      },
    ),

  'out-of-range': (draft) =>
    aimAt(
      targets(
        draft,
        (_f, s) =>
          s.minimum !== undefined ||
          s.maximum !== undefined ||
          !!s.enum ||
          !!s.pattern ||
          s.maxItems !== undefined ||
          s.minItems !== undefined ||
          s.maxProperties !== undefined,
      ),
      (field) => {
        const s = nonNull(field.schema);
        const bad: Replacement[] = [];
        if (s.minimum !== undefined) bad.push({ json: s.minimum - 1, text: String(s.minimum - 1) });
        if (s.maximum !== undefined)
          bad.push(
            { json: s.maximum + 1, text: String(s.maximum + 1) },
            { json: 2 ** 63, text: '9223372036854775808' },
          );
        if (s.enum) bad.push({ text: 'not_one_of_them' });
        // Text the pattern refuses: most refuse a space, a statement descriptor refuses `<`, `*`.
        if (s.pattern) {
          const pattern = new RegExp(s.pattern, 'u');
          const off = ['with space!', '<*>'].find((t) => !pattern.test(t));
          if (off === undefined)
            throw new Error(`no text outside the pattern ${s.pattern} of ${field.name}`);
          bad.push({ text: off });
        }
        if (s.maxItems !== undefined)
          bad.push({ json: Array.from({ length: s.maxItems + 1 }, (_v, i) => `x${i}`) });
        if (s.minItems) bad.push({ json: [] });
        if (s.maxProperties !== undefined)
          bad.push({
            json: Object.fromEntries(
              Array.from({ length: s.maxProperties + 1 }, (_v, i) => [`k${i}`, 'v']),
            ),
          });
        // An empty array cannot be written in a form; there it is simply absent, which may be valid.
        const usable = bad.filter(
          (r) =>
            isJson(draft) || field.in !== 'body' || !(Array.isArray(r.json) && r.json.length === 0),
        );
        return fc
          .constantFrom(...usable)
          .map((r) =>
            rejected(
              replace(withoutKey(draft), field, r),
              `${field.name} ← ${show(r)}`,
              field.name,
            ),
          );
      },
    ),

  'non-decimal': (draft) =>
    aimAt(
      targets(draft, (_f, s) => s.type === 'integer'),
      (field) => {
        if (field.in === 'body' && isJson(draft)) {
          // Written as JSON numbers: `1e3` and `1.0` are integers to JSON itself, the rest are not JSON.
          return fc.constantFrom('1e3', '1.0', '0x10', '+5', '1.5', '05', 'NaN').map((raw) => {
            const broken = replace(withoutKey(draft), field, { rawJson: raw });
            const verdict =
              raw === '1e3' || raw === '1.0'
                ? tolerated(broken, `${field.name}: ${raw}`)
                : rejected(broken, `${field.name}: ${raw}`);
            return { ...verdict, param: undefined };
          });
        }
        return fc
          .constantFrom(...NON_DECIMAL)
          .map((text) =>
            rejected(
              replace(withoutKey(draft), field, { text }),
              `${field.name}=${JSON.stringify(text)}`,
              field.name,
            ),
          );
      },
    ),

  'control-characters': (draft) =>
    aimAt(
      targets(draft, (f, s) => f.in !== 'header' && (isText(s) || isMap(s))),
      (field) =>
        fc
          .tuple(fc.constantFrom('\u0000', ...CONTROLS), fc.string({ maxLength: 5 }), fc.boolean())
          .map(([control, around, inKey]) => {
            const value = `${around}${control}${around}`;
            const s = nonNull(field.schema);
            const r: Replacement = isMap(s)
              ? { json: inKey ? { [value]: 'v' } : { k: value } }
              : { text: value };
            const broken = replace(withoutKey(draft), field, r);
            const what = `${field.name} ← ${show(r)}`;
            // A pattern or format refuses every control character; free text refuses NUL only.
            return control === '\u0000' || s.pattern || s.format
              ? rejected(broken, what, field.name)
              : tolerated(broken, what);
          }),
    ),

  overlong: (draft) =>
    aimAt(
      targets(draft, (_f, s) => (s.type === 'string' && s.maxLength !== undefined) || isMap(s)),
      (field) =>
        fc.integer({ min: 1, max: 2000 }).map((extra) => {
          const s = nonNull(field.schema);
          const long = (n: number) => 'a'.repeat(n + extra);
          const r: Replacement = isMap(s)
            ? extra % 2
              ? { json: { [long(40)]: 'v' } }
              : { json: { k: long(500) } }
            : { text: long(s.maxLength!) };
          return rejected(
            replace(withoutKey(draft), field, r),
            `${field.name} ← ${extra} characters too many`,
            field.name,
          );
        }),
    ),

  'deep-brackets': (draft) => {
    const roots = [
      ...draft.op.fields.filter((f) => f.in === 'body' || f.in === 'query').map((f) => f.name),
      'a',
      'expand',
    ];
    return fc
      .tuple(fc.constantFrom(...new Set(roots)), fc.integer({ min: 5, max: 40 }))
      .map(([root, depth]) => {
        const field: Field = draft.op.fields.find((f) => f.name === root && f.in !== 'path') ?? {
          in: draft.op.body ? 'body' : 'query',
          name: root,
          required: false,
          schema: {},
        };
        const keys = Array.from({ length: depth }, (_v, i) => String.fromCharCode(98 + (i % 24)));
        const nested = keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), '1');
        const r: Replacement = {
          json: nested,
          pairs: [[`${root}${keys.map((k) => `[${k}]`).join('')}`, '1']],
        };
        return rejected(
          replace(withoutKey(draft), field, r),
          `${root}[b][c]… ${depth} levels`,
          root,
        );
      });
  },

  'duplicate-keys': (draft) => {
    if (draft.body && isJson(draft) && draft.op.body) {
      // JSON.parse keeps the last of two equal keys, as every JSON parser that does not refuse them.
      const fields = targets(
        draft,
        (f) =>
          f.in === 'body' &&
          'encoding' in draft.body! &&
          draft.body.encoding === 'json' &&
          f.name in draft.body.value,
      );
      return aimAt(fields, (field) => {
        const value = (draft.body as { value: Record<string, unknown> }).value[field.name];
        const raw = JSON.stringify((draft.body as { value: object }).value).replace(
          /^\{/,
          `{${JSON.stringify(field.name)}:${JSON.stringify(value)},`,
        );
        return fc.constant(
          tolerated(
            { ...withoutKey(draft), body: { raw, contentType: 'application/json' } },
            `${field.name} twice in JSON`,
          ),
        );
      });
    }
    const present = (f: Field) =>
      (f.in === 'query'
        ? draft.query
        : draft.body && 'encoding' in draft.body && draft.body.encoding === 'form'
          ? draft.body.pairs
          : []
      ).find(([k]) => k === f.name);
    return aimAt(
      targets(
        draft,
        (f, s) => f.in !== 'header' && s.type !== 'object' && s.type !== 'array' && !!present(f),
      ),
      (field) =>
        fc.constantFrom('same', 'other').map((which) => {
          const [, first] = present(field)!;
          const second = which === 'same' ? first : `${first}0`;
          return rejected(
            replace(withoutKey(draft), field, {
              pairs: [
                [field.name, first],
                [field.name, second],
              ],
            }),
            `${field.name}=${first}&${field.name}=${second}`,
            field.name,
          );
        }),
    );
  },

  'prototype-keys': (draft) => {
    const where: Field['in'] = draft.op.body ? 'body' : 'query';
    const cases: [string, Replacement][] = [
      ['__proto__', { rawJson: '{"x":"polluted"}', pairs: [['__proto__[x]', 'polluted']] }],
      [
        'constructor',
        {
          json: { prototype: { x: 'polluted' } },
          pairs: [['constructor[prototype][x]', 'polluted']],
        },
      ],
      ['__proto__', { rawJson: '"polluted"', pairs: [['__proto__', 'polluted']] }],
      ['toString', { json: 'polluted', pairs: [['toString', 'polluted']] }],
      ['hasOwnProperty', { json: 'polluted', pairs: [['hasOwnProperty', 'polluted']] }],
    ];
    return fc.constantFrom(...cases).map(([name, r]) => {
      const field: Field = { in: where, name, required: false, schema: {} };
      return rejected(replace(withoutKey(draft), field, r), `${name}: ${show(r)}`, name);
    });
  },

  'wrong-content-type': (draft) => {
    if (!draft.op.body) return undefined;
    const json = JSON.stringify(
      draft.body && 'encoding' in draft.body && draft.body.encoding === 'json'
        ? draft.body.value
        : {},
    );
    const form =
      draft.body && 'encoding' in draft.body && draft.body.encoding === 'form'
        ? draft.body.pairs.map((p) => p.map(encodeURIComponent).join('=')).join('&') || 'a=1'
        : 'a=1';
    const cases: [string | undefined, string, Expectation][] = [
      ['text/plain', json, 'rejected'],
      ['application/xml', '<customer><email>a@b.test</email></customer>', 'rejected'],
      [
        'multipart/form-data; boundary=x',
        `--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n`,
        'rejected',
      ],
      ['application/json', form, 'rejected'],
      ['application/json; charset=utf-16', json, 'rejected'],
      ['application/x-www-form-urlencoded', `${json}x`, 'rejected'],
      // Bytes without a Content-Type say nothing about their format: a refusal or an empty body will do.
      [undefined, json, 'no-5xx'],
    ];
    return fc.constantFrom(...cases).map(([contentType, raw, expect]) => ({
      draft: { ...withoutKey(draft), body: { raw, contentType } },
      what: `Content-Type: ${contentType ?? '(none)'}`,
      expect,
    }));
  },

  'bad-cursor': (draft, fixture) => {
    const cursors = draft.op.fields.filter(
      (f) => f.name === 'starting_after' || f.name === 'ending_before',
    );
    if (cursors.length === 0) return undefined;
    const listed = draft.op.answers.replace(/List$/, '');
    const otherType = Object.entries(fixture.ids).find(([schema]) => schema !== listed)![1];
    const bad = [
      'obj_doesnotexist0000',
      fixture.foreignId,
      otherType,
      '',
      'a b',
      'ch_\u0000',
      'é',
      'x'.repeat(65),
      '__proto__',
      '%',
      "' OR 1=1 --",
    ];
    return aimAt(cursors, (field) =>
      fc.oneof(
        fc
          .constantFrom(...bad)
          .map((text) =>
            rejected(
              replace(withoutCursors(draft), field, { text }),
              `${field.name}=${JSON.stringify(text)}`,
              field.name,
            ),
          ),
        // Both at once: the page would be ambiguous.
        fc.constant(
          rejected(
            {
              ...draft,
              query: [
                ...withoutCursors(draft).query,
                ['starting_after', fixture.ids[listed]],
                ['ending_before', fixture.ids[listed]],
              ],
            },
            'both cursors',
            'ending_before',
          ),
        ),
      ),
    );
  },

  'bad-path-id': (draft, fixture) => {
    const ids = draft.op.fields.filter((f) => f.in === 'path');
    if (ids.length === 0) return undefined;
    // Not `..` or `.`: the client resolves those before sending, so no server ever sees them as ids.
    const bad = [
      'doesnotexist0000',
      fixture.foreignId,
      ' ',
      '\u0000',
      'é',
      'a'.repeat(65),
      '__proto__',
      'constructor',
      'toString',
      '%',
      'null',
      "' OR 1=1 --",
    ];
    return aimAt(ids, (field) =>
      fc
        // Ids of the other kinds of object: a charge's id is no customer's.
        .constantFrom(
          ...bad,
          // (The fixture's saved card is a payment method too, its own key an API key: same prefix.)
          ...Object.values(fixture.ids).filter(
            (id) => id.split('_')[0] !== fixture.ids[field.names!]?.split('_')[0],
          ),
        )
        .map((text) =>
          rejected(
            replace(withoutKey(draft), field, { text }),
            `${field.name}=${JSON.stringify(text)}`,
            field.name,
          ),
        ),
    );
  },

  'boolean-words': (draft) =>
    aimAt(
      targets(draft, (_f, s) => s.type === 'boolean'),
      (field) =>
        fc.constantFrom(...BOOLEAN_WORDS).map((text) => {
          // In JSON a boolean is `true` or `false`; the word (or number) in its place is a wrong type.
          const r: Replacement =
            isJson(draft) && field.in === 'body'
              ? { json: /^\d$/.test(text) ? Number(text) : text }
              : { text };
          return rejected(
            replace(withoutKey(draft), field, r),
            `${field.name} ← ${show(r)}`,
            field.name,
          );
        }),
    ),

  'missing-required': (draft) => {
    const required = draft.op.fields.filter((f) => f.required && f.in !== 'path');
    const noBody = draft.op.body?.required
      ? [fc.constant(rejected({ ...withoutKey(draft), body: undefined }, 'no body'))]
      : [];
    const missing = required.map((field) => {
      const broken = replace(withoutKey(draft), field, { pairs: [] });
      return fc.constant(rejected(broken, `without ${field.name}`, field.name));
    });
    return missing.length + noBody.length === 0 ? undefined : fc.oneof(...missing, ...noBody);
  },
};

/** A form or query value of another shape: an object or list for a scalar, a scalar for an object. */
function formWrongTypes(name: string, type: string): Replacement[] {
  const asObject: Replacement = { pairs: [[`${name}[x]`, '1']] };
  const asList: Replacement = { pairs: [[`${name}[]`, '1']] };
  if (type === 'object') return [{ text: 'x' }, asList];
  // A list given as one scalar (`expand=customer`) is a spelling some clients use, not a wrong type.
  if (type === 'array') return [asObject];
  if (type === 'string') return [asObject, asList];
  return [asObject, asList, { text: 'abc' }];
}

/** Whether a JSON value already has the type a schema wants (then it is no wrong type). */
function fitsType(s: Schema, value: unknown): boolean {
  const type = Array.isArray(value)
    ? 'array'
    : value === null
      ? 'null'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value;
  const types = [s, ...(resolve(s).oneOf ?? [])].flatMap((o) => [resolve(o).type ?? []].flat());
  return (
    types.includes(type) ||
    (type === 'integer' && types.includes('number')) ||
    (s.enum ?? []).includes(value)
  );
}

function show(r: Replacement): string {
  if (r.pairs && !('json' in r) && r.text === undefined)
    return r.pairs.map(([k, v]) => `${k}=${v}`).join('&');
  return JSON.stringify(r.rawJson ?? ('json' in r ? r.json : r.text))?.slice(0, 80) ?? 'undefined';
}

/** Whether a mutation kind has anything to aim at in an operation (in some of its valid requests). */
export function mutationApplies(op: Operation, kind: MutationKind, fixture: Fixture): boolean {
  return fc
    .sample(validDraft(op, fixture), { numRuns: 20, seed: 1 })
    .some((draft) => MUTATORS[kind](draft, fixture) !== undefined);
}

/** Requests of one operation broken in one way, each with the answer it must get. */
export function mutatedRequest(
  op: Operation,
  fixture: Fixture,
  kind: MutationKind,
): fc.Arbitrary<SpecRequest> {
  return validDraft(op, fixture)
    .chain((draft) => MUTATORS[kind](draft, fixture) ?? fc.constant(undefined))
    .filter((broken): broken is Broken => broken !== undefined)
    .map((broken) => render(broken.draft, `${kind}: ${broken.what}`, broken.expect, broken.param));
}
