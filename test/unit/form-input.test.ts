import { expect } from 'chai';
import fc from 'fast-check';
import { ApiError } from '../../src/domain/errors.js';
import { findNul, formNotation, nulError } from '../../src/domain/nul-guard.js';
import { parseForm } from '../../src/http/form-parser.js';
import { FormCoercion, type Schema } from '../../src/http/form-values.js';
import { loadSpec } from '../../src/operations/spec.js';

/** The ApiError a call throws, to compare code and param. */
function thrown(call: () => unknown): ApiError {
  try {
    call();
  } catch (error) {
    expect(error).to.be.instanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected an ApiError');
}

/** A parsed form as plain JSON, for deep comparisons (the parser's objects have no prototype). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('parseForm', () => {
  const PARSED: Array<[string, unknown]> = [
    ['amount=2000&currency=usd', { amount: '2000', currency: 'usd' }],
    ['metadata[order]=6735&metadata[note]=a+b%20c', { metadata: { order: '6735', note: 'a b c' } }],
    ['expand[]=customer&expand[]=charge', { expand: ['customer', 'charge'] }],
    ['expand[0]=customer&expand[1]=charge', { expand: { 0: 'customer', 1: 'charge' } }],
    ['expand=a&expand=b&expand[]=c', { expand: ['a', 'b', 'c'] }],
    ['expand=a&expand[]=b', { expand: ['a', 'b'] }],
    ['created[gte]=1&created[lte]=2', { created: { gte: '1', lte: '2' } }],
    ['name=&description', { name: '', description: '' }],
    ['a=1&&b=2&', { a: '1', b: '2' }],
    ['', {}],
  ];
  for (const [text, expected] of PARSED) {
    it(`parses ${JSON.stringify(text)}`, () => {
      expect(plain(parseForm(text))).to.deep.equal(expected);
    });
  }

  it('keeps prototype names as own fields of prototype-less objects', () => {
    const form = parseForm('__proto__[x]=1&constructor[prototype][y]=2');
    expect(Object.getPrototypeOf(form)).to.equal(null);
    expect(Object.keys(form)).to.deep.equal(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).x).to.equal(undefined);
    expect(({} as Record<string, unknown>).y).to.equal(undefined);
  });

  const REFUSED: Array<[string, string, string | undefined]> = [
    ['metadata[k]=v&metadata=1', 'parameter_invalid', 'metadata'],
    ['metadata=1&metadata[k]=v', 'parameter_invalid', 'metadata'],
    ['expand[]=a&expand[k]=b', 'parameter_invalid', 'expand'],
    ['a[b][c]=1&a[b]=2', 'parameter_invalid', 'a[b]'],
    ['a[b=1', 'parameter_invalid', 'a[b'],
    ['a]=1', 'parameter_invalid', 'a]'],
    ['a[1][2][3][4][5]=1', 'parameter_invalid', 'a'],
    ['=1', 'body_invalid', undefined],
  ];
  for (const [text, code, param] of REFUSED) {
    it(`refuses ${JSON.stringify(text)} with ${code}${param ? ` naming ${param}` : ''}`, () => {
      const error = thrown(() => parseForm(text));
      expect(error.code).to.equal(code);
      expect(error.details.param).to.equal(param);
    });
  }

  it('refuses more fields than the limit', () => {
    expect(thrown(() => parseForm('a=1&b=2&c=3', 2)).code).to.equal('request_too_large');
  });
});

describe('FormCoercion', () => {
  const coercion = new FormCoercion(loadSpec());
  const coerce = (value: string, schema: Schema) => coercion.coerce(value, schema, ['field']);
  const AMOUNT: Schema = { $ref: '#/components/schemas/Amount' };

  it('takes an integer in plain decimal digits, and nothing else', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(coerce(String(n), AMOUNT)).to.equal(n);
      }),
    );
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^-?[0-9]+$/.test(s)),
        (s) => {
          expect(thrown(() => coerce(s, AMOUNT)).details.param).to.equal('field');
        },
      ),
    );
  });

  it('refuses integers beyond 2^53 rather than rounding them', () => {
    expect(thrown(() => coerce('9007199254740993', AMOUNT)).message).to.include('too large');
  });

  it('takes numbers as plain decimals only', () => {
    expect(coerce('1.5', { type: 'number' })).to.equal(1.5);
    for (const s of ['1e3', '.5', '5.', '0x1', 'NaN'])
      expect(thrown(() => coerce(s, { type: 'number' })).code).to.equal('parameter_invalid');
  });

  it('takes true and false in any letter case, and nothing else', () => {
    for (const [s, b] of [
      ['true', true],
      ['True', true],
      ['TRUE', true],
      ['false', false],
      ['False', false],
      ['fAlSe', false],
    ] as const) {
      expect(coerce(s, { type: 'boolean' })).to.equal(b);
    }
    for (const s of ['1', '0', 'yes', 'on', '', ' true'])
      expect(thrown(() => coerce(s, { type: 'boolean' })).details.param).to.equal('field');
  });

  it('leaves strings as sent, also where null is allowed', () => {
    expect(coerce('0x10', { type: ['string', 'null'] })).to.equal('0x10');
  });

  it('refuses a value where an object is wanted, and an object or a list where a value is', () => {
    const metadata: Schema = { $ref: '#/components/schemas/Metadata' };
    expect(thrown(() => coercion.coerce('1', metadata, ['metadata'])).details.param).to.equal('metadata');
    expect(thrown(() => coercion.coerce(['1', '2'], AMOUNT, ['amount'])).details.param).to.equal('amount');
    expect(thrown(() => coercion.coerce(parseForm('x=1'), AMOUNT, ['amount'])).details.param).to.equal('amount');
  });

  it('turns numbered fields into a list in index order, and wraps a single value only when told', () => {
    const expand: Schema = { $ref: '#/components/schemas/ExpandPaths' };
    expect(coercion.coerce(parseForm('2=c&0=a&10=d&1=b'), expand, ['expand'])).to.deep.equal(['a', 'b', 'c', 'd']);
    expect(coercion.coerce('a', expand, ['expand'], { singleAsList: true })).to.deep.equal(['a']);
    expect(thrown(() => coercion.coerce('a', expand, ['expand'])).details.param).to.equal('expand');
  });

  it('names nested fields in bracket notation', () => {
    const replay: Schema = { $ref: '#/components/schemas/WebhookReplayParams' };
    expect(thrown(() => coercion.coerce(parseForm('created[gte]=1e3'), replay, [])).details.param).to.equal('created[gte]');
  });
});

describe('findNul', () => {
  const CASES: Array<[unknown, string[] | undefined]> = [
    ['plain', undefined],
    ['a\u0000b', []],
    [{ name: 'tab\tnew\nline\u0001' }, undefined],
    [{ metadata: { order: '\u0000' } }, ['metadata', 'order']],
    [{ metadata: { 'or\u0000der': 'x' } }, ['metadata', 'or\u0000der']],
    [{ expand: ['a', 'b\u0000'] }, ['expand', '1']],
    [{ amount: 100, ok: true, none: null }, undefined],
  ];
  for (const [value, path] of CASES) {
    it(`finds ${JSON.stringify(path)} in ${JSON.stringify(value)}`, () => {
      expect(findNul(value)).to.deep.equal(path);
    });
  }

  it('renders the path in form notation, and the whole input as body_invalid', () => {
    expect(formNotation(['metadata', 'order'])).to.equal('metadata[order]');
    expect(nulError(['metadata', 'order']).details.param).to.equal('metadata[order]');
    expect(nulError([]).code).to.equal('body_invalid');
  });
});
