// Intl (the engine has none): NumberFormat, DateTimeFormat, PluralRules,
// Collator, ListFormat, and toLocaleString/localeCompare through them.
// Numbers are formatted here from the shortest decimal form of the value,
// rounded half away from zero as ICU does, with the separators of the
// documented locales (intlNumberLocales: CLDR's symbols); dates in en-US
// and en-GB patterns, in any IANA time zone (host.intlZone); plural rules
// and collation are golang.org/x/text's (host.intlPlural, intlCollate).
// docs/node-parity.md lists the locales and what differs from V8's ICU.

const intlNumberLocales = {
  en: { dec: '.', grp: ',' },
  'en-IN': { dec: '.', grp: ',', indian: true },
  de: { dec: ',', grp: '.', pct: '\u00a0%', cur: 'after' },
  'de-CH': { dec: '.', grp: "'", pct: '%' },
  'de-AT': { dec: ',', grp: '\u00a0', pct: '\u00a0%', cur: 'after' },
  fr: { dec: ',', grp: '\u202f', pct: '\u00a0%', cur: 'after' },
  es: { dec: ',', grp: '.', minGrp: 2, pct: '\u00a0%', cur: 'after' },
  it: { dec: ',', grp: '.', minGrp: 2, cur: 'after' },
  pt: { dec: ',', grp: '.' },
  nl: { dec: ',', grp: '.' },
  ru: { dec: ',', grp: '\u00a0', pct: '\u00a0%', cur: 'after' },
  sv: { dec: ',', grp: '\u00a0', minus: '\u2212', pct: '\u00a0%', cur: 'after' },
  pl: { dec: ',', grp: '\u00a0', minGrp: 2, cur: 'after' },
  ja: { dec: '.', grp: ',' },
  zh: { dec: '.', grp: ',' },
  ko: { dec: '.', grp: ',' },
};
const intlDefaultLocale = 'en-US';

function intlCanonical(tag) {
  if (typeof tag !== 'string' || !/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) {
    throw new RangeError(`Incorrect locale information provided`);
  }
  const parts = tag.split('-');
  parts[0] = parts[0].toLowerCase();
  for (let i = 1; i < parts.length; i++) {
    if (parts[i].length === 2) parts[i] = parts[i].toUpperCase();
    else if (parts[i].length === 4) parts[i] = parts[i][0].toUpperCase() + parts[i].slice(1).toLowerCase();
    else parts[i] = parts[i].toLowerCase();
  }
  return parts.join('-');
}

function intlLocaleList(locales) {
  if (locales === undefined) return [];
  const list = typeof locales === 'string' ? [locales] : Array.from(locales);
  return list.map((l) => intlCanonical(typeof l === 'object' && l !== null && 'baseName' in l ? l.baseName : l));
}

// intlResolve picks the first requested locale whose language (or whole
// tag) is in supported, else the default.
function intlResolve(locales, supported) {
  for (const l of intlLocaleList(locales)) {
    const base = l.split('-u-')[0];
    const lang = base.split('-')[0];
    if (supported(base) || supported(lang)) return base;
  }
  return intlDefaultLocale;
}

function intlNumberSymbols(locale) {
  const lang = locale.split('-')[0];
  return { dec: '.', grp: ',', minGrp: 1, minus: '-', pct: '%', cur: 'before', ...(intlNumberLocales[lang] ?? {}), ...(intlNumberLocales[locale] ?? {}) };
}

function intlGetOption(options, name, allowed, fallback) {
  let v = options[name];
  if (v === undefined) return fallback;
  v = typeof fallback === 'boolean' ? Boolean(v) : String(v);
  if (allowed !== undefined && !allowed.includes(v)) throw new RangeError(`Value ${v} out of range for Intl.NumberFormat options property ${name}`);
  return v;
}

function intlDigitsOption(options, name, min, max, fallback) {
  const v = options[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) throw new RangeError(`${name} value is out of range.`);
  return Math.floor(n);
}

// Decimal arithmetic on digit strings: a value is { digits, point }, the
// digits with no leading zeros and the decimal point after `point` of them.
function intlDecimal(abs) {
  if (abs === 0) return { digits: '', point: 0 };
  let s = typeof abs === 'bigint' ? abs.toString() : String(abs);
  let exp = 0;
  const e = s.indexOf('e');
  if (e >= 0) { exp = Number(s.slice(e + 1)); s = s.slice(0, e); }
  let dot = s.indexOf('.');
  if (dot < 0) dot = s.length;
  let digits = s.slice(0, dot) + s.slice(dot + 1);
  let point = dot + exp;
  const lead = digits.match(/^0*/)[0].length;
  digits = digits.slice(lead);
  point -= lead;
  digits = digits.replace(/0+$/, '');
  return { digits, point };
}

// intlRound keeps `keep` digits of d (half away from zero).
function intlRoundDigits(d, keep) {
  if (keep >= d.digits.length) return d;
  if (keep < 0) return { digits: '', point: d.point };
  let digits = d.digits.slice(0, keep);
  let point = d.point;
  if (d.digits[keep] >= '5') {
    let i = digits.length - 1;
    const arr = digits.split('');
    while (i >= 0 && arr[i] === '9') { arr[i] = '0'; i--; }
    if (i < 0) { arr.unshift('1'); point++; } else arr[i] = String(Number(arr[i]) + 1);
    digits = arr.join('');
  }
  return { digits: digits.replace(/0+$/, ''), point };
}

function intlRound(d, o) {
  if (o.maxSig !== undefined) return intlRoundDigits(d, o.maxSig);
  return intlRoundDigits(d, d.point + o.maxFrac);
}

// intlDigitStrings returns the integer and fraction digits of d.
function intlDigitStrings(d, o) {
  let int, frac;
  if (d.point <= 0) {
    int = '0';
    frac = '0'.repeat(-d.point) + d.digits;
  } else if (d.point >= d.digits.length) {
    int = d.digits + '0'.repeat(d.point - d.digits.length);
    frac = '';
  } else {
    int = d.digits.slice(0, d.point);
    frac = d.digits.slice(d.point);
  }
  if (d.digits === '') { int = '0'; frac = ''; }
  if (o.maxSig !== undefined) {
    const sigHave = (int === '0' ? 0 : int.length) + (int === '0' ? frac.replace(/^0*/, '').length : frac.length);
    if (o.minSig !== undefined && sigHave < o.minSig) {
      frac += '0'.repeat(o.minSig - Math.max(sigHave, int === '0' ? 1 : 0) - (int === '0' && frac === '' ? 0 : 0));
    }
  } else if (frac.length < o.minFrac) {
    frac += '0'.repeat(o.minFrac - frac.length);
  }
  if (int.length < o.minInt) int = '0'.repeat(o.minInt - int.length) + int;
  return [int, frac];
}

function intlGroup(int, sym, useGrouping) {
  if (useGrouping === false) return int;
  const minGrp = useGrouping === 'min2' ? 2 : useGrouping === 'always' ? 1 : sym.minGrp;
  if (int.length < 3 + minGrp) return int;
  if (sym.indian) {
    const last = int.slice(-3);
    let rest = int.slice(0, -3);
    const groups = [];
    while (rest.length > 2) { groups.unshift(rest.slice(-2)); rest = rest.slice(0, -2); }
    if (rest) groups.unshift(rest);
    return [...groups, last].join(sym.grp);
  }
  const out = [];
  for (let i = int.length; i > 0; i -= 3) out.unshift(int.slice(Math.max(0, i - 3), i));
  return out.join(sym.grp);
}

const intlCurrencySymbols = {
  USD: '$', EUR: '€', GBP: '£', JPY: '¥', INR: '₹', CNY: 'CN¥', CAD: 'CA$', AUD: 'A$', KRW: '₩', BRL: 'R$',
  MXN: 'MX$', ILS: '₪', VND: '₫', TWD: 'NT$', NZD: 'NZ$', HKD: 'HK$', PHP: '₱',
};
const intlCurrencyNarrow = { USD: '$', CAD: '$', AUD: '$', MXN: '$', NZD: '$', HKD: '$', TWD: '$', BRL: 'R$', CNY: '¥', JPY: '¥' };
const intlCurrencyDigits = { JPY: 0, KRW: 0, VND: 0, CLP: 0, ISK: 0, HUF: 2, BHD: 3, KWD: 3, JOD: 3, OMR: 3, TND: 3 };
const intlCompactShort = ['', 'K', 'M', 'B', 'T'];
const intlCompactLong = ['', ' thousand', ' million', ' billion', ' trillion'];

class NumberFormat {
  #o;
  constructor(locales, options) {
    options = options === undefined ? {} : Object(options);
    const locale = intlResolve(locales, (l) => hasOwn(intlNumberLocales, l));
    const style = intlGetOption(options, 'style', ['decimal', 'percent', 'currency', 'unit'], 'decimal');
    let currency = options.currency;
    if (currency !== undefined) {
      currency = String(currency);
      if (!/^[A-Za-z]{3}$/.test(currency)) throw new RangeError(`Invalid currency code : ${currency}`);
      currency = currency.toUpperCase();
    }
    if (style === 'currency' && currency === undefined) throw new TypeError('Currency code is required with currency style.');
    const unit = options.unit;
    if (style === 'unit' && unit === undefined) throw new TypeError('Unit is required with unit style.');
    const currencyDisplay = intlGetOption(options, 'currencyDisplay', ['code', 'symbol', 'narrowSymbol', 'name'], 'symbol');
    const notation = intlGetOption(options, 'notation', ['standard', 'scientific', 'engineering', 'compact'], 'standard');
    const cDigits = style === 'currency' ? (intlCurrencyDigits[currency] ?? 2) : 0;
    const minFracDefault = style === 'currency' && notation !== 'compact' ? cDigits : 0;
    const maxFracDefault = style === 'currency' && notation !== 'compact' ? cDigits : style === 'percent' ? 0 : notation === 'compact' ? 0 : 3;
    const minInt = intlDigitsOption(options, 'minimumIntegerDigits', 1, 21, 1);
    let minFrac = intlDigitsOption(options, 'minimumFractionDigits', 0, 100, undefined);
    let maxFrac = intlDigitsOption(options, 'maximumFractionDigits', 0, 100, undefined);
    const minSig = intlDigitsOption(options, 'minimumSignificantDigits', 1, 21, undefined);
    let maxSig = intlDigitsOption(options, 'maximumSignificantDigits', 1, 21, undefined);
    const hasSig = minSig !== undefined || maxSig !== undefined;
    const hasFrac = minFrac !== undefined || maxFrac !== undefined;
    if (hasSig) {
      maxSig = maxSig ?? 21;
      if (minSig !== undefined && minSig > maxSig) throw new RangeError('maximumSignificantDigits value is out of range.');
    }
    if (minFrac === undefined) minFrac = Math.min(minFracDefault, maxFrac ?? minFracDefault);
    if (maxFrac === undefined) maxFrac = Math.max(maxFracDefault, minFrac);
    else if (minFrac > maxFrac) throw new RangeError('maximumFractionDigits value is out of range.');
    let useGrouping = options.useGrouping;
    if (useGrouping === undefined) useGrouping = notation === 'compact' ? 'min2' : 'auto';
    else if (useGrouping === true || useGrouping === 'true') useGrouping = 'always';
    else if (useGrouping === false || useGrouping === 'false') useGrouping = false;
    this.#o = {
      locale, style, currency, currencyDisplay, unit, unitDisplay: intlGetOption(options, 'unitDisplay', ['short', 'narrow', 'long'], 'short'),
      notation, compactDisplay: intlGetOption(options, 'compactDisplay', ['short', 'long'], 'short'),
      signDisplay: intlGetOption(options, 'signDisplay', ['auto', 'never', 'always', 'exceptZero', 'negative'], 'auto'),
      minInt, minFrac, maxFrac, minSig: hasSig ? (minSig ?? 1) : undefined, maxSig: hasSig ? maxSig : undefined,
      compactRounding: notation === 'compact' && !hasSig && !hasFrac,
      useGrouping, sym: intlNumberSymbols(locale),
    };
  }
  get format() {
    const f = (n) => this.#format(n).map((p) => p.value).join('');
    Object.defineProperty(this, 'format', { value: f, configurable: true });
    return f;
  }
  formatToParts(n) { return this.#format(n); }
  formatRange(a, b) { return `${this.format(a)}–${this.format(b)}`; }
  resolvedOptions() {
    const o = this.#o;
    const r = { locale: o.locale, numberingSystem: 'latn', style: o.style };
    if (o.style === 'currency') { r.currency = o.currency; r.currencyDisplay = o.currencyDisplay; r.currencySign = 'standard'; }
    if (o.style === 'unit') { r.unit = o.unit; r.unitDisplay = o.unitDisplay; }
    r.minimumIntegerDigits = o.minInt;
    if (o.maxSig !== undefined) { r.minimumSignificantDigits = o.minSig; r.maximumSignificantDigits = o.maxSig; }
    else { r.minimumFractionDigits = o.minFrac; r.maximumFractionDigits = o.maxFrac; }
    r.useGrouping = o.useGrouping;
    r.notation = o.notation;
    if (o.notation === 'compact') r.compactDisplay = o.compactDisplay;
    r.signDisplay = o.signDisplay;
    r.roundingMode = 'halfExpand';
    r.roundingIncrement = 1;
    r.trailingZeroDisplay = 'auto';
    r.roundingPriority = 'auto';
    return r;
  }
  static supportedLocalesOf(locales) {
    return intlLocaleList(locales).filter((l) => hasOwn(intlNumberLocales, l) || hasOwn(intlNumberLocales, l.split('-')[0]));
  }
  #format(n) {
    const o = this.#o;
    const sym = o.sym;
    if (typeof n !== 'bigint') n = Number(n);
    const parts = [];
    const neg = typeof n === 'bigint' ? n < 0n : (n < 0 || Object.is(n, -0));
    let abs = typeof n === 'bigint' ? (n < 0n ? -n : n) : Math.abs(n);
    let numberParts;
    let isZero = false;
    let suffix = null;
    if (typeof abs === 'number' && Number.isNaN(abs)) {
      numberParts = [{ type: 'nan', value: 'NaN' }];
    } else if (abs === Infinity) {
      numberParts = [{ type: 'infinity', value: '∞' }];
    } else {
      let d = intlDecimal(abs);
      if (o.style === 'percent') d = { digits: d.digits, point: d.point + 2 };
      let exponent = null;
      let ro = o;
      if (o.notation === 'scientific' || o.notation === 'engineering') {
        if (d.digits !== '') {
          let e = d.point - 1;
          if (o.notation === 'engineering') e = Math.floor(e / 3) * 3;
          d = { digits: d.digits, point: d.point - e };
          exponent = e;
          d = intlRound(d, ro);
          if (o.notation === 'scientific' && d.point > 1) { exponent += d.point - 1; d = { digits: d.digits, point: 1 }; }
        } else {
          exponent = 0;
        }
      } else if (o.notation === 'compact') {
        let k = d.digits === '' ? 0 : Math.min(4, Math.max(0, Math.floor((d.point - 1) / 3)));
        for (;;) {
          let s = { digits: d.digits, point: d.point - 3 * k };
          if (o.compactRounding) ro = s.point >= 2 ? { ...o, maxSig: undefined, maxFrac: 0, minFrac: 0 } : { ...o, maxSig: 2, minSig: 1 };
          s = intlRound(s, ro);
          if (s.point > 3 && k < 4 && s.digits !== '') { k++; continue; }
          d = s;
          break;
        }
        suffix = (o.compactDisplay === 'long' ? intlCompactLong : intlCompactShort)[k];
        if (o.compactDisplay === 'long' && k > 0 && o.locale.split('-')[0] !== 'en') suffix = intlCompactShort[k];
      }
      if (exponent === null) d = intlRound(d, ro);
      isZero = d.digits === '';
      const [int, frac] = intlDigitStrings(d, ro);
      numberParts = [];
      const grouped = intlGroup(int, sym, o.useGrouping);
      const groups = grouped.split(sym.grp);
      groups.forEach((g, i) => {
        if (i > 0) numberParts.push({ type: 'group', value: sym.grp });
        numberParts.push({ type: 'integer', value: g });
      });
      if (frac !== '') numberParts.push({ type: 'decimal', value: sym.dec }, { type: 'fraction', value: frac });
      if (exponent !== null) {
        numberParts.push({ type: 'exponentSeparator', value: 'E' });
        if (exponent < 0) numberParts.push({ type: 'exponentMinusSign', value: '-' });
        numberParts.push({ type: 'exponentInteger', value: String(Math.abs(exponent)) });
      }
      if (suffix) numberParts.push({ type: 'compact', value: suffix.trim() });
      if (suffix && suffix.startsWith(' ')) numberParts.splice(numberParts.length - 1, 0, { type: 'literal', value: ' ' });
    }
    let sign = '';
    switch (o.signDisplay) {
      case 'auto': sign = neg ? sym.minus : ''; break;
      case 'always': sign = neg ? sym.minus : '+'; break;
      case 'exceptZero': sign = isZero ? '' : neg ? sym.minus : '+'; break;
      case 'negative': sign = neg && !isZero ? sym.minus : ''; break;
      case 'never': sign = ''; break;
    }
    if (typeof abs === 'number' && Number.isNaN(abs)) sign = o.signDisplay === 'always' ? '+' : '';
    const signPart = sign === '' ? [] : [{ type: sign === '+' ? 'plusSign' : 'minusSign', value: sign }];
    if (o.style === 'currency') {
      const code = o.currency;
      let cur = o.currencyDisplay === 'code' ? code : o.currencyDisplay === 'narrowSymbol' ? (intlCurrencyNarrow[code] ?? intlCurrencySymbols[code] ?? code) : (intlCurrencySymbols[code] ?? code);
      if (o.currencyDisplay === 'name') cur = code;
      const curPart = { type: 'currency', value: cur };
      if (sym.cur === 'after') return [...signPart, ...numberParts, { type: 'literal', value: '\u00a0' }, curPart];
      const sep = /^[A-Za-z]+$/.test(cur) ? [{ type: 'literal', value: '\u00a0' }] : [];
      return [...signPart, curPart, ...sep, ...numberParts];
    }
    if (o.style === 'percent') {
      const p = sym.pct;
      const tail = p.length > 1 ? [{ type: 'literal', value: p[0] }, { type: 'percentSign', value: p.slice(1) }] : [{ type: 'percentSign', value: p }];
      return [...signPart, ...numberParts, ...tail];
    }
    if (o.style === 'unit') return [...signPart, ...numberParts, { type: 'literal', value: ' ' }, { type: 'unit', value: intlUnitName(o.unit, o.unitDisplay, isZero) }];
    return [...signPart, ...numberParts];
  }
}

const intlUnits = {
  kilobyte: ['kB', 'kilobytes'], megabyte: ['MB', 'megabytes'], gigabyte: ['GB', 'gigabytes'], byte: ['byte', 'bytes'],
  terabyte: ['TB', 'terabytes'], kilometer: ['km', 'kilometers'], meter: ['m', 'meters'], centimeter: ['cm', 'centimeters'],
  mile: ['mi', 'miles'], second: ['sec', 'seconds'], minute: ['min', 'minutes'], hour: ['hr', 'hours'], day: ['days', 'days'],
  millisecond: ['ms', 'milliseconds'], percent: ['%', 'percent'], kilogram: ['kg', 'kilograms'], gram: ['g', 'grams'],
  'kilometer-per-hour': ['km/h', 'kilometers per hour'], 'mile-per-hour': ['mph', 'miles per hour'], celsius: ['°C', 'degrees Celsius'],
  fahrenheit: ['°F', 'degrees Fahrenheit'], liter: ['L', 'liters'],
};
function intlUnitName(unit, display) {
  const u = intlUnits[unit];
  if (!u) throw new RangeError(`Invalid unit argument for Intl.NumberFormat() '${unit}'`);
  return display === 'long' ? u[1] : u[0];
}

// PluralRules: the operands of the number as NumberFormat would write it
// (its fraction digits count), matched by x/text's CLDR rules.
class PluralRules {
  #locale; #type; #nf;
  constructor(locales, options) {
    options = options === undefined ? {} : Object(options);
    this.#locale = intlResolve(locales, () => true);
    this.#type = intlGetOption(options, 'type', ['cardinal', 'ordinal'], 'cardinal');
    this.#nf = new NumberFormat('en', { ...options, style: 'decimal', useGrouping: false, notation: 'standard' });
  }
  select(n) {
    n = Number(n);
    if (!Number.isFinite(n)) return 'other';
    const s = this.#nf.format(Math.abs(n));
    const [int, frac = ''] = s.split('.');
    const i = Number(int);
    const f = frac === '' ? 0 : Number(frac);
    const t = frac.replace(/0+$/, '');
    return host.intlPlural(this.#locale, this.#type === 'ordinal', Math.min(i, 2 ** 31 - 1), frac.length, t.length, f, t === '' ? 0 : Number(t));
  }
  resolvedOptions() {
    const cats = new Set();
    for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 21, 22, 23, 100, 101, 1000000, 0.5, 1.5]) cats.add(this.select(n));
    const order = ['zero', 'one', 'two', 'few', 'many', 'other'];
    return { locale: this.#locale, type: this.#type, minimumIntegerDigits: 1, minimumFractionDigits: 0, maximumFractionDigits: 3, pluralCategories: order.filter((c) => cats.has(c)), roundingIncrement: 1, roundingMode: 'halfExpand', roundingPriority: 'auto', trailingZeroDisplay: 'auto' };
  }
  static supportedLocalesOf(locales) { return intlLocaleList(locales); }
}

class Collator {
  #o;
  constructor(locales, options) {
    options = options === undefined ? {} : Object(options);
    let locale = intlResolve(locales, () => true);
    const usage = intlGetOption(options, 'usage', ['sort', 'search'], 'sort');
    const sensitivity = intlGetOption(options, 'sensitivity', ['base', 'accent', 'case', 'variant'], 'variant');
    let numeric = options.numeric === undefined ? false : Boolean(options.numeric);
    const m = /-u-.*kn(?:-(true|false))?/.exec(intlLocaleList(locales)[0] ?? '');
    if (m && options.numeric === undefined) numeric = m[1] !== 'false';
    this.#o = { locale, usage, sensitivity, ignorePunctuation: Boolean(options.ignorePunctuation), collation: 'default', numeric, caseFirst: 'false' };
  }
  get compare() {
    const o = this.#o;
    const f = (a, b) => host.intlCollate(o.locale, o.sensitivity, o.numeric, String(a), String(b));
    Object.defineProperty(this, 'compare', { value: f, configurable: true });
    return f;
  }
  resolvedOptions() { return { ...this.#o }; }
  static supportedLocalesOf(locales) { return intlLocaleList(locales); }
}

class ListFormat {
  #type; #style; #locale;
  constructor(locales, options) {
    options = options === undefined ? {} : Object(options);
    this.#locale = intlResolve(locales, (l) => l === 'en' || l.startsWith('en-'));
    this.#type = intlGetOption(options, 'type', ['conjunction', 'disjunction', 'unit'], 'conjunction');
    this.#style = intlGetOption(options, 'style', ['long', 'short', 'narrow'], 'long');
  }
  format(list) {
    const items = Array.from(list, String);
    const word = this.#type === 'conjunction' ? (this.#style === 'long' ? 'and' : this.#style === 'short' ? '&' : '') : this.#type === 'disjunction' ? 'or' : '';
    if (items.length === 0) return '';
    if (items.length === 1) return items[0];
    if (this.#type === 'unit') return items.join(this.#style === 'narrow' ? ' ' : ', ');
    if (word === '') return items.join(', ');
    if (items.length === 2) return `${items[0]} ${word} ${items[1]}`;
    return `${items.slice(0, -1).join(', ')}, ${word} ${items.at(-1)}`;
  }
  resolvedOptions() { return { locale: this.#locale, type: this.#type, style: this.#style }; }
}

// DateTimeFormat: en-US and en-GB patterns.
const intlMonths = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const intlDays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const intlZoneNames = {
  EST: 'Eastern Standard Time', EDT: 'Eastern Daylight Time', CST: 'Central Standard Time', CDT: 'Central Daylight Time',
  MST: 'Mountain Standard Time', MDT: 'Mountain Daylight Time', PST: 'Pacific Standard Time', PDT: 'Pacific Daylight Time',
  AKST: 'Alaska Standard Time', AKDT: 'Alaska Daylight Time', HST: 'Hawaii-Aleutian Standard Time', UTC: 'Coordinated Universal Time',
};

function intlZoneLabel(zone, abbr, offset, style) {
  if (zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Etc/GMT' || zone === 'GMT') return style === 'long' ? 'Coordinated Universal Time' : 'UTC';
  if (hasOwn(intlZoneNames, abbr) && abbr !== 'UTC') return style === 'long' ? intlZoneNames[abbr] : abbr;
  if (offset === 0) return 'GMT';
  const s = offset < 0 ? '-' : '+';
  const h = Math.floor(Math.abs(offset) / 60), m = Math.abs(offset) % 60;
  if (style === 'long') return `GMT${s}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  return `GMT${s}${h}${m ? `:${String(m).padStart(2, '0')}` : ''}`;
}

class DateTimeFormat {
  #o;
  constructor(locales, options) {
    options = options === undefined ? {} : Object(options);
    const locale = intlResolve(locales, (l) => l === 'en' || l === 'en-US' || l === 'en-GB');
    const gb = locale === 'en-GB';
    const get = (k, allowed) => {
      const v = options[k];
      if (v === undefined) return undefined;
      const s = String(v);
      if (allowed && !allowed.includes(s)) throw new RangeError(`Value ${s} out of range for Intl.DateTimeFormat options property ${k}`);
      return s;
    };
    let timeZone = options.timeZone === undefined ? 'UTC' : String(options.timeZone);
    if (/^utc$/i.test(timeZone) || /^etc\/(utc|gmt)$/i.test(timeZone) || /^gmt$/i.test(timeZone)) timeZone = 'UTC';
    else timeZone = host.intlZone(timeZone, 0)[0];
    const o = {
      locale, calendar: 'gregory', numberingSystem: 'latn', timeZone, gb,
      weekday: get('weekday', ['narrow', 'short', 'long']), era: get('era', ['narrow', 'short', 'long']),
      year: get('year', ['numeric', '2-digit']), month: get('month', ['numeric', '2-digit', 'narrow', 'short', 'long']),
      day: get('day', ['numeric', '2-digit']), dayPeriod: get('dayPeriod', ['narrow', 'short', 'long']),
      hour: get('hour', ['numeric', '2-digit']), minute: get('minute', ['numeric', '2-digit']), second: get('second', ['numeric', '2-digit']),
      fractionalSecondDigits: options.fractionalSecondDigits === undefined ? undefined : Number(options.fractionalSecondDigits),
      timeZoneName: get('timeZoneName', ['short', 'long', 'shortOffset', 'longOffset', 'shortGeneric', 'longGeneric']),
      dateStyle: get('dateStyle', ['full', 'long', 'medium', 'short']), timeStyle: get('timeStyle', ['full', 'long', 'medium', 'short']),
    };
    const hc = get('hourCycle', ['h11', 'h12', 'h23', 'h24']);
    const h12opt = options.hour12 === undefined ? undefined : Boolean(options.hour12);
    o.h12 = h12opt !== undefined ? h12opt : hc !== undefined ? (hc === 'h11' || hc === 'h12') : !gb;
    o.hourCycle = h12opt !== undefined ? (h12opt ? 'h12' : 'h23') : hc ?? (gb ? 'h23' : 'h12');
    const anyComp = ['weekday', 'era', 'year', 'month', 'day', 'dayPeriod', 'hour', 'minute', 'second', 'timeZoneName'].some((k) => o[k] !== undefined) || o.fractionalSecondDigits !== undefined;
    const needDefaults = !['weekday', 'year', 'month', 'day', 'dayPeriod', 'hour', 'minute', 'second'].some((k) => o[k] !== undefined) && o.fractionalSecondDigits === undefined;
    if ((o.dateStyle || o.timeStyle) && anyComp) throw new TypeError(`Can't set option ${Object.keys(options).find((k) => o[k] !== undefined && k !== 'dateStyle' && k !== 'timeStyle')} when ${o.dateStyle ? 'dateStyle' : 'timeStyle'} is used`);
    if (needDefaults && !o.dateStyle && !o.timeStyle) {
      const def = options[kDateDefaults] ?? 'date';
      if (def === 'date' || def === 'all') { o.year = 'numeric'; o.month = 'numeric'; o.day = 'numeric'; }
      if (def === 'time' || def === 'all') { o.hour = 'numeric'; o.minute = 'numeric'; o.second = 'numeric'; }
    }
    this.#o = o;
  }
  get format() {
    // V8 writes a plain space where ICU's patterns have U+202F (Node 20),
    // in format's result only.
    const f = (d) => this.formatToParts(d).map((p) => p.value).join('').replaceAll('\u202f', ' ');
    Object.defineProperty(this, 'format', { value: f, configurable: true });
    return f;
  }
  formatRange(a, b) { return `${this.format(a)} – ${this.format(b)}`; }
  resolvedOptions() {
    const o = this.#o;
    const r = { locale: o.locale, calendar: o.calendar, numberingSystem: o.numberingSystem, timeZone: o.timeZone };
    if (o.hour !== undefined || o.timeStyle !== undefined) { r.hourCycle = o.hourCycle; r.hour12 = o.h12; }
    for (const k of ['weekday', 'era', 'year', 'month', 'day', 'dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits', 'timeZoneName', 'dateStyle', 'timeStyle']) {
      if (o[k] !== undefined) r[k] = (k === 'hour' || k === 'minute') && o.hour !== undefined && o.minute !== undefined && o[k] === 'numeric' && k === 'minute' ? '2-digit' : o[k];
    }
    return r;
  }
  static supportedLocalesOf(locales) { return intlLocaleList(locales).filter((l) => l === 'en' || l === 'en-US' || l === 'en-GB'); }
  formatToParts(date) {
    const o = this.#o;
    const t = date === undefined ? Date.now() : Number(date instanceof Date ? date.getTime() : date);
    if (!Number.isFinite(t)) throw new RangeError('Invalid time value');
    let offset = 0, abbr = 'UTC';
    if (o.timeZone !== 'UTC') [, offset, abbr] = host.intlZone(o.timeZone, t);
    const d = new Date(t + offset * 60000);
    const c = {
      year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate(), weekday: d.getUTCDay(),
      hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), ms: d.getUTCMilliseconds(),
    };
    const P = [];
    const lit = (v) => P.push({ type: 'literal', value: v });
    const part = (type, value) => P.push({ type, value: String(value) });
    const pad = (n, w = 2) => String(n).padStart(w, '0');
    const gb = o.gb;
    const datePart = (s) => {
      // s: { weekday, year, month, day, era } with their widths.
      const textMonth = s.month === 'long' || s.month === 'short' || s.month === 'narrow';
      const monthText = s.month === 'long' ? intlMonths[c.month] : s.month === 'short' ? intlMonths[c.month].slice(0, 3) : s.month === 'narrow' ? intlMonths[c.month][0] : s.month === '2-digit' ? pad(c.month + 1) : String(c.month + 1);
      const dayText = s.day === '2-digit' ? pad(c.day) : String(c.day);
      const yearText = s.year === '2-digit' ? pad(c.year % 100) : String(c.year);
      const wd = s.weekday === 'long' ? intlDays[c.weekday] : s.weekday === 'short' ? intlDays[c.weekday].slice(0, 3) : s.weekday === 'narrow' ? intlDays[c.weekday][0] : undefined;
      if (wd !== undefined) {
        part('weekday', wd);
        if (s.month || s.day || s.year) lit(', ');
      }
      if (textMonth) {
        if (gb) {
          if (s.day) { part('day', dayText); if (s.month) lit(' '); }
          if (s.month) part('month', monthText);
          if (s.year) { lit(' '); part('year', yearText); }
        } else {
          if (s.month) part('month', monthText);
          if (s.day) { lit(' '); part('day', dayText); }
          if (s.year) { lit(s.day ? ', ' : ' '); part('year', yearText); }
        }
      } else {
        const seq = [];
        const dd = gb && s.day === 'numeric' && s.month && s.year ? pad(c.day) : dayText;
        const mm = gb && s.month === 'numeric' && s.day && s.year ? pad(c.month + 1) : monthText;
        if (gb) { if (s.day) seq.push(['day', dd]); if (s.month) seq.push(['month', mm]); } else { if (s.month) seq.push(['month', mm]); if (s.day) seq.push(['day', dd]); }
        if (s.year) seq.push(['year', yearText]);
        seq.forEach(([k, v], i) => { if (i > 0) lit('/'); part(k, v); });
      }
      if (s.era) { lit(' '); part('era', c.year > 0 ? (s.era === 'long' ? 'Anno Domini' : s.era === 'narrow' ? 'A' : 'AD') : 'BC'); }
    };
    const timePart = (s) => {
      const h12 = s.h12;
      let h = c.hour;
      if (h12) h = h % 12 === 0 ? 12 : h % 12;
      if (s.hour) part('hour', s.hour === '2-digit' || (!h12 && s.minute) ? pad(h) : h);
      if (s.minute) { if (s.hour) lit(':'); part('minute', s.hour || s.minute === '2-digit' || s.second ? pad(c.minute) : c.minute); }
      if (s.second) { if (s.hour || s.minute) lit(':'); part('second', s.minute || s.second === '2-digit' ? pad(c.second) : c.second); }
      if (s.fsd) { lit('.'); part('fractionalSecond', pad(c.ms, 3).slice(0, s.fsd)); }
      if (s.hour && h12) { lit('\u202f'); part('dayPeriod', c.hour < 12 ? 'AM' : 'PM'); }
      if (s.tz) { lit(' '); part('timeZoneName', intlZoneLabel(o.timeZone, abbr, offset, s.tz)); }
    };
    if (o.dateStyle || o.timeStyle) {
      const ds = { full: { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' }, long: { month: 'long', day: 'numeric', year: 'numeric' }, medium: { month: 'short', day: 'numeric', year: 'numeric' }, short: { month: gb ? '2-digit' : 'numeric', day: gb ? '2-digit' : 'numeric', year: gb ? 'numeric' : '2-digit' } };
      if (o.dateStyle) datePart(ds[o.dateStyle]);
      if (o.dateStyle && o.timeStyle) lit(o.dateStyle === 'full' || o.dateStyle === 'long' ? ' at ' : ', ');
      if (o.timeStyle) timePart({ hour: 'numeric', minute: '2-digit', second: o.timeStyle !== 'short' ? '2-digit' : undefined, h12: o.h12, tz: o.timeStyle === 'full' ? 'long' : o.timeStyle === 'long' ? 'short' : undefined });
      return P;
    }
    const hasDate = o.weekday || o.year || o.month || o.day || o.era;
    const hasTime = o.hour || o.minute || o.second || o.fractionalSecondDigits;
    if (hasDate) datePart(o);
    if (hasDate && hasTime) lit(o.year || o.month || o.day || o.era ? ', ' : ' ');
    if (hasTime || (o.timeZoneName && !hasDate)) timePart({ hour: o.hour, minute: o.minute, second: o.second, fsd: o.fractionalSecondDigits, h12: o.h12, tz: o.timeZoneName });
    else if (o.timeZoneName) { lit(', '); part('timeZoneName', intlZoneLabel(o.timeZone, abbr, offset, o.timeZoneName)); }
    return P;
  }
}
const kDateDefaults = Symbol('date defaults');

// The engine's toLocaleString and friends, through Intl.
{
  const def = (obj, name, fn) => Object.defineProperty(obj, name, { value: { [name]: fn }[name], writable: true, configurable: true, enumerable: false });
  def(Number.prototype, 'toLocaleString', function (locales, options) { return new NumberFormat(locales, options).format(Number.prototype.valueOf.call(this)); });
  def(BigInt.prototype, 'toLocaleString', function (locales, options) { return new NumberFormat(locales, options).format(BigInt.prototype.valueOf.call(this)); });
  const dateLocale = (kind) => function (locales, options) {
    const t = Date.prototype.getTime.call(this);
    if (Number.isNaN(t)) return 'Invalid Date';
    const o = options === undefined ? {} : { ...Object(options) };
    const has = (ks) => ks.some((k) => o[k] !== undefined);
    const dateKeys = ['weekday', 'year', 'month', 'day', 'era'];
    const timeKeys = ['hour', 'minute', 'second', 'dayPeriod', 'fractionalSecondDigits'];
    if (!has(dateKeys) && !has(timeKeys) && o.dateStyle === undefined && o.timeStyle === undefined) {
      o[kDateDefaults] = kind;
      if (kind === 'date' && o.timeZoneName === undefined) { /* date only */ }
    } else if (kind === 'date' && o.timeStyle !== undefined) {
      throw new TypeError('Invalid option : timeStyle');
    } else if (kind === 'time' && o.dateStyle !== undefined) {
      throw new TypeError('Invalid option : dateStyle');
    }
    return new DateTimeFormat(locales, o).format(t);
  };
  def(Date.prototype, 'toLocaleString', dateLocale('all'));
  def(Date.prototype, 'toLocaleDateString', dateLocale('date'));
  def(Date.prototype, 'toLocaleTimeString', dateLocale('time'));
  def(String.prototype, 'localeCompare', function (that, locales, options) {
    if (this === null || this === undefined) throw new TypeError('String.prototype.localeCompare called on null or undefined');
    return new Collator(locales, options).compare(String(this), String(that));
  });
}

{
  const wrap = (C, name) => {
    const f = function (locales, options) {
      if (C === DateTimeFormat && options !== undefined && options !== null && typeof options === 'object' && options[kDateDefaults] !== undefined) {
        const { [kDateDefaults]: _, ...rest } = options;
        return new C(locales, rest);
      }
      return new C(locales, options);
    };
    Object.defineProperty(f, 'name', { value: name });
    f.prototype = C.prototype;
    f.supportedLocalesOf = C.supportedLocalesOf;
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: `Intl.${name}`, configurable: true });
    return f;
  };
  const Intl = {
    NumberFormat: wrap(NumberFormat, 'NumberFormat'),
    DateTimeFormat: wrap(DateTimeFormat, 'DateTimeFormat'),
    PluralRules: wrap(PluralRules, 'PluralRules'),
    Collator: wrap(Collator, 'Collator'),
    ListFormat: wrap(ListFormat, 'ListFormat'),
    getCanonicalLocales: (locales) => [...new Set(intlLocaleList(locales))],
    supportedValuesOf: (key) => {
      if (key === 'currency') return Object.keys(intlCurrencySymbols).sort();
      if (key === 'unit') return Object.keys(intlUnits).sort();
      if (key === 'calendar') return ['gregory'];
      if (key === 'numberingSystem') return ['latn'];
      throw new RangeError(`Invalid key : ${key}`);
    },
  };
  Object.defineProperty(Intl, Symbol.toStringTag, { value: 'Intl', configurable: true });
  defineGlobal('Intl', Intl);
}
