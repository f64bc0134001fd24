// Intl for every JavaScript guest: ECMA-402's NumberFormat, PluralRules,
// ListFormat and Collator, with Number, BigInt and String's locale methods,
// on natives backed by ICU4X's compiled CLDR data (intl/ in the worker).
// This script resolves locales and options as ECMA-402 says; the natives
// do the locale-dependent work. A module (build.rs compiles it to bytecode)
// whose default export the worker calls once with the natives; it returns
// Intl and the locale methods.
export default function installIntl(native) {
  const define = (target, name, value) => Object.defineProperty(target, name, {
    value, writable: true, configurable: true, enumerable: false,
  });
  // The locale methods, by `Constructor.name`: installed on the prototypes
  // where the guest left them writable, and handed to js/intl_boot.js,
  // whose stand-ins call them where it did not.
  const methods = { __proto__: null };
  const method = (proto, key, fn) => {
    methods[key] = fn;
    try {
      define(proto, fn.name, fn);
    } catch (_) {
      // A prototype the guest froze keeps the boot script's stand-in.
    }
  };

  // The list of locales a guest asked for, each canonical; a malformed one
  // is a RangeError.
  const localeList = (locales) => {
    if (locales === undefined) return [];
    const list = typeof locales === 'string' || locales instanceof Object && !(Symbol.iterator in locales)
      ? [locales] : Array.from(locales);
    return [...new Set(list.map((tag) => {
      if (typeof tag !== 'string' && !(tag instanceof Object)) {
        throw new TypeError(`Language ID should be string or object.`);
      }
      return native.canonicalLocale(String(tag));
    }))];
  };
  const localeOf = (locales) => localeList(locales)[0] ?? native.defaultLocale;

  const options = (value) => (value === undefined ? Object.create(null) : Object(value));
  // Strings cross to the natives as UTF-8: a lone surrogate becomes U+FFFD.
  const toWellFormed = String.prototype.toWellFormed;
  const wellFormed = (text) => toWellFormed.call(text);
  const text = (opts, key, allowed, fallback, owner) => {
    const value = opts[key];
    if (value === undefined) return fallback;
    const string = String(value);
    if (allowed && !allowed.includes(string)) {
      throw new RangeError(`Value ${string} out of range for ${owner} options property ${key}`);
    }
    return string;
  };
  const count = (opts, key, min, max, fallback) => {
    const value = opts[key];
    if (value === undefined) return fallback;
    const number = Number(value);
    if (Number.isNaN(number) || number < min || number > max) {
      throw new RangeError(`${key} value is out of range.`);
    }
    return Math.floor(number);
  };

  // Currencies whose minor unit is not two digits (ISO 4217).
  const CURRENCY_DIGITS = {
    BHD: 3, BIF: 0, CLF: 4, CLP: 0, DJF: 0, GNF: 0, IQD: 3, ISK: 0, JOD: 3, JPY: 0, KMF: 0,
    KRW: 0, KWD: 3, LYD: 3, OMR: 3, PYG: 0, RWF: 0, TND: 3, UGX: 0, UYI: 0, UYW: 4, VND: 0,
    VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  };

  // ECMA-402's SetNumberFormatDigitOptions: which digits a number shows.
  const digitOptions = (opts, minFractionDefault, maxFractionDefault, notation) => {
    const digits = { minimumIntegerDigits: count(opts, 'minimumIntegerDigits', 1, 21, 1) };
    const minSig = opts.minimumSignificantDigits;
    const maxSig = opts.maximumSignificantDigits;
    const minFrac = opts.minimumFractionDigits;
    const maxFrac = opts.maximumFractionDigits;
    const hasSignificant = minSig !== undefined || maxSig !== undefined;
    const hasFraction = minFrac !== undefined || maxFrac !== undefined;
    if (hasSignificant) {
      digits.minimumSignificantDigits = count(opts, 'minimumSignificantDigits', 1, 21, 1);
      digits.maximumSignificantDigits = count(opts, 'maximumSignificantDigits',
        digits.minimumSignificantDigits, 21, 21);
      return digits;
    }
    if (hasFraction) {
      // Node 20 allows 20 fraction digits (later ECMA-402 allows 100).
      let min = count(opts, 'minimumFractionDigits', 0, 20, undefined);
      let max = count(opts, 'maximumFractionDigits', 0, 20, undefined);
      if (min === undefined) min = Math.min(minFractionDefault, max);
      else if (max === undefined) max = Math.max(maxFractionDefault, min);
      else if (min > max) throw new RangeError('maximumFractionDigits value is out of range.');
      return { ...digits, minimumFractionDigits: min, maximumFractionDigits: max };
    }
    if (notation === 'compact') {
      return { ...digits, minimumFractionDigits: 0, maximumFractionDigits: 0, compactRounding: true };
    }
    return { ...digits, minimumFractionDigits: minFractionDefault, maximumFractionDigits: maxFractionDefault };
  };

  const bound = (object, cache, method) => {
    if (!cache.has(object)) cache.set(object, method.bind(object));
    return cache.get(object);
  };

  // --- NumberFormat -----------------------------------------------------
  const numberFormats = new WeakMap();
  const formatFunctions = new WeakMap();
  const resolvedNumber = (format) => {
    const resolved = numberFormats.get(format);
    if (resolved === undefined) throw new TypeError('Method Intl.NumberFormat.prototype.format called on incompatible receiver');
    return resolved;
  };

  // A number as the natives take it: a Number, or a BigInt or a decimal
  // string as text.
  const mathematical = (value) => {
    if (typeof value === 'bigint') return String(value);
    if (typeof value === 'string') {
      const trimmed = value.trim();
      if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return trimmed.replace(/^\+/, '');
    }
    return Number(value);
  };

  const formatNumber = (resolved, value) => {
    const x = mathematical(value);
    if (typeof x === 'number' && !Number.isFinite(x)) {
      const sign = x < 0 ? '-' : resolved.signDisplay === 'always' || resolved.signDisplay === 'exceptZero' ? '+' : '';
      const body = Number.isNaN(x) ? 'NaN' : `${sign}∞`;
      return resolved.style === 'percent' ? `${body}%` : body;
    }
    return native.formatNumber(resolved.locale, x, resolved);
  };

  class NumberFormat {
    constructor(locales, opts) {
      const o = options(opts);
      const locale = localeOf(locales);
      const owner = 'Intl.NumberFormat';
      const style = text(o, 'style', ['decimal', 'percent', 'currency', 'unit'], 'decimal', owner);
      let currency = o.currency;
      if (currency !== undefined) {
        currency = String(currency);
        if (!/^[A-Za-z]{3}$/.test(currency)) throw new RangeError(`Invalid currency code : ${currency}`);
        currency = currency.toUpperCase();
      }
      const currencyDisplay = text(o, 'currencyDisplay', ['code', 'symbol', 'narrowSymbol', 'name'], 'symbol', owner);
      const currencySign = text(o, 'currencySign', ['standard', 'accounting'], 'standard', owner);
      if (style === 'currency' && currency === undefined) {
        throw new TypeError('Currency code is required with currency style.');
      }
      if (style === 'unit') {
        throw new RangeError('Intl.NumberFormat: style "unit" is not supported in this sandbox (its locale data has no unit names); format the number and write the unit yourself');
      }
      const notation = text(o, 'notation', ['standard', 'scientific', 'engineering', 'compact'], 'standard', owner);
      const currencyDigits = style === 'currency' ? (CURRENCY_DIGITS[currency] ?? 2) : 0;
      const standardCurrency = style === 'currency' && notation === 'standard';
      const digits = digitOptions(o,
        standardCurrency ? currencyDigits : 0,
        standardCurrency ? currencyDigits : style === 'percent' ? 0 : 3,
        notation);
      const compactDisplay = text(o, 'compactDisplay', ['short', 'long'], 'short', owner);
      const grouping = o.useGrouping;
      let useGrouping;
      if (grouping === undefined) useGrouping = notation === 'compact' ? 'min2' : 'auto';
      else if (grouping === true) useGrouping = 'always';
      else if (grouping === false || grouping === null || grouping === '' || grouping === 0) useGrouping = false;
      else useGrouping = text(o, 'useGrouping', ['min2', 'auto', 'always', 'true', 'false'], 'auto', owner);
      if (useGrouping === 'true') useGrouping = 'always';
      if (useGrouping === 'false') useGrouping = false;
      const signDisplay = text(o, 'signDisplay', ['auto', 'never', 'always', 'exceptZero', 'negative'], 'auto', owner);
      numberFormats.set(this, {
        __proto__: null, locale, numberingSystem: 'latn', style,
        ...(style === 'currency' ? { currency, currencyDisplay, currencySign, currencyDigits } : {}),
        ...digits,
        useGrouping, notation,
        ...(notation === 'compact' ? { compactDisplay } : {}),
        signDisplay,
      });
    }
    get format() {
      const resolved = resolvedNumber(this);
      return bound(this, formatFunctions, (value) => formatNumber(resolved, value));
    }
    formatToParts(value) {
      return numberParts(this.format(value), resolvedNumber(this));
    }
    resolvedOptions() {
      const { compactRounding, currencyDigits, ...resolved } = resolvedNumber(this);
      return {
        ...resolved,
        ...(compactRounding ? { minimumSignificantDigits: 1, maximumSignificantDigits: 2 } : {}),
        roundingIncrement: 1, roundingMode: 'halfExpand',
        roundingPriority: compactRounding ? 'morePrecision' : 'auto', trailingZeroDisplay: 'auto',
      };
    }
    static supportedLocalesOf(locales) { return localeList(locales); }
  }
  define(NumberFormat.prototype, Symbol.toStringTag, 'Intl.NumberFormat');

  // The parts of a formatted number, read back from its text.
  const numberParts = (formatted, resolved) => {
    const sample = Array.from(native.formatNumber(resolved.locale, 1234.5, {
      __proto__: null, minimumIntegerDigits: 1, minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: 'always',
    }));
    const [group, decimal] = [sample[1], sample[5]];
    const parts = [];
    let seenDecimal = false;
    const push = (type, value) => {
      const last = parts[parts.length - 1];
      if (last && last.type === type && type !== 'group') last.value += value;
      else parts.push({ type, value });
    };
    for (const ch of formatted) {
      if (/\p{Nd}/u.test(ch)) push(seenDecimal ? 'fraction' : 'integer', ch);
      else if (ch === decimal && !seenDecimal) { seenDecimal = true; push('decimal', ch); }
      else if (ch === group) push('group', ch);
      else if (ch === '-' || ch === '\u2212') push('minusSign', ch);
      else if (ch === '+') push('plusSign', ch);
      else if (ch === '%' || ch === '\u066a') push('percentSign', ch);
      else if (ch === 'E' && resolved.notation !== 'standard' && resolved.notation !== 'compact') push('exponentSeparator', ch);
      else if (/\s/u.test(ch)) push('literal', ch);
      else push(resolved.style === 'currency' ? 'currency' : resolved.notation === 'compact' ? 'compact' : 'literal', ch);
    }
    return parts;
  };

  // --- PluralRules ------------------------------------------------------
  const pluralRules = new WeakMap();
  class PluralRules {
    constructor(locales, opts) {
      const o = options(opts);
      const locale = localeOf(locales);
      const type = text(o, 'type', ['cardinal', 'ordinal'], 'cardinal', 'Intl.PluralRules');
      pluralRules.set(this, { __proto__: null, locale, type, ...digitOptions(o, 0, 3, 'standard') });
    }
    select(value) {
      const resolved = pluralRules.get(this);
      if (resolved === undefined) throw new TypeError('Method Intl.PluralRules.prototype.select called on incompatible receiver');
      const n = Number(value);
      if (!Number.isFinite(n)) return 'other';
      // The number as it would be shown, in plain digits: "1.0" is not "1".
      const shown = native.formatNumber('en', Math.abs(n), {
        __proto__: null, ...resolved, useGrouping: false, style: 'decimal',
      });
      return native.pluralCategory(resolved.locale, resolved.type === 'ordinal', shown);
    }
    resolvedOptions() {
      const resolved = pluralRules.get(this);
      const categories = new Set();
      for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 20, 21, 22, 23, 100, 101, 1000000, 0.5, 1.5]) {
        categories.add(this.select(n));
      }
      // In the order Node 20 lists them: ICU's, the categories by name,
      // then "other".
      const named = [...categories].filter((c) => c !== 'other').sort();
      return { ...resolved, pluralCategories: [...named, 'other'] };
    }
    static supportedLocalesOf(locales) { return localeList(locales); }
  }
  define(PluralRules.prototype, Symbol.toStringTag, 'Intl.PluralRules');

  // --- ListFormat -------------------------------------------------------
  const listFormats = new WeakMap();
  const listItems = (list) => {
    const items = [];
    for (const item of list) {
      if (typeof item !== 'string') throw new TypeError(`Iterable yielded ${String(item)} which is not a string`);
      items.push(item);
    }
    return items;
  };
  class ListFormat {
    constructor(locales, opts) {
      const o = options(opts);
      const locale = localeOf(locales);
      const owner = 'Intl.ListFormat';
      listFormats.set(this, {
        locale,
        type: text(o, 'type', ['conjunction', 'disjunction', 'unit'], 'conjunction', owner),
        style: text(o, 'style', ['long', 'short', 'narrow'], 'long', owner),
      });
    }
    format(list) {
      const { locale, type, style } = listFormats.get(this);
      return native.formatList(locale, type, style, listItems(list ?? []).map(wellFormed));
    }
    formatToParts(list) {
      const { locale, type, style } = listFormats.get(this);
      const items = listItems(list ?? []).map(wellFormed);
      // Markers no item contains stand in for the items, then are split out.
      const marked = native.formatList(locale, type, style, items.map((_, i) => `\uE000${i}\uE001`));
      return marked.split(/(\uE000\d+\uE001)/).filter(Boolean).map((piece) => {
        const at = /^\uE000(\d+)\uE001$/.exec(piece);
        return at ? { type: 'element', value: items[Number(at[1])] } : { type: 'literal', value: piece };
      });
    }
    resolvedOptions() { return { ...listFormats.get(this) }; }
    static supportedLocalesOf(locales) { return localeList(locales); }
  }
  define(ListFormat.prototype, Symbol.toStringTag, 'Intl.ListFormat');

  // --- Collator ---------------------------------------------------------
  const collators = new WeakMap();
  const compareFunctions = new WeakMap();
  class Collator {
    constructor(locales, opts) {
      const o = options(opts);
      const locale = localeOf(locales);
      const owner = 'Intl.Collator';
      const usage = text(o, 'usage', ['sort', 'search'], 'sort', owner);
      // Options in the locale's Unicode extension (-u-kn, -u-kf) count too.
      const extension = /-u-(.*)$/.exec(locale)?.[1] ?? '';
      const numericFromTag = /(^|-)kn(-true)?(-|$)/.test(extension);
      const caseFirstFromTag = /(^|-)kf-(upper|lower|false)/.exec(extension)?.[2];
      const numeric = o.numeric === undefined ? numericFromTag : Boolean(o.numeric);
      const caseFirst = text(o, 'caseFirst', ['upper', 'lower', 'false'], caseFirstFromTag ?? 'false', owner);
      const sensitivity = text(o, 'sensitivity', ['base', 'accent', 'case', 'variant'], 'variant', owner);
      const ignorePunctuation = Boolean(o.ignorePunctuation);
      const collation = /(^|-)co-([a-z0-9]+)/.exec(extension)?.[2] ?? 'default';
      collators.set(this, { locale, usage, sensitivity, ignorePunctuation, collation, numeric, caseFirst });
    }
    get compare() {
      const resolved = collators.get(this);
      if (resolved === undefined) throw new TypeError('Method Intl.Collator.prototype.compare called on incompatible receiver');
      return bound(this, compareFunctions, (a, b) => native.compare(resolved.locale, resolved.sensitivity,
        resolved.numeric, resolved.caseFirst, wellFormed(String(a)), wellFormed(String(b))));
    }
    resolvedOptions() { return { ...collators.get(this) }; }
    static supportedLocalesOf(locales) { return localeList(locales); }
  }
  define(Collator.prototype, Symbol.toStringTag, 'Intl.Collator');

  // --- RelativeTimeFormat -----------------------------------------------
  const relativeFormats = new WeakMap();
  const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];
  const relativeUnit = (unit) => {
    const name = String(unit);
    const singular = name.endsWith('s') ? name.slice(0, -1) : name;
    if (!UNITS.includes(singular)) throw new RangeError(`Invalid unit argument for format() '${name}'`);
    return singular;
  };
  class RelativeTimeFormat {
    constructor(locales, opts) {
      const o = options(opts);
      const locale = localeOf(locales);
      const owner = 'Intl.RelativeTimeFormat';
      relativeFormats.set(this, {
        locale,
        style: text(o, 'style', ['long', 'short', 'narrow'], 'long', owner),
        numeric: text(o, 'numeric', ['always', 'auto'], 'always', owner),
        numberingSystem: 'latn',
      });
    }
    format(value, unit) {
      const resolved = relativeFormats.get(this);
      if (resolved === undefined) throw new TypeError('Method Intl.RelativeTimeFormat.prototype.format called on incompatible receiver');
      const n = Number(value);
      if (!Number.isFinite(n)) throw new RangeError('Invalid number value');
      const singular = relativeUnit(unit);
      // The number as NumberFormat would show it (at most three fraction
      // digits), in plain digits, its sign kept (-0 is in the past).
      const shown = native.formatNumber('en', n, {
        __proto__: null, minimumIntegerDigits: 1, minimumFractionDigits: 0, maximumFractionDigits: 3, useGrouping: false,
      });
      return native.formatRelative(resolved.locale, resolved.style, resolved.numeric, singular, shown);
    }
    formatToParts(value, unit) {
      const formatted = this.format(value, unit);
      const singular = relativeUnit(unit);
      const number = new NumberFormat(relativeFormats.get(this).locale).format(Math.abs(Number(value)));
      const at = formatted.indexOf(number);
      if (at < 0) return [{ type: 'literal', value: formatted }];
      const parts = [];
      if (at > 0) parts.push({ type: 'literal', value: formatted.slice(0, at) });
      for (const part of numberParts(number, { locale: relativeFormats.get(this).locale, style: 'decimal', notation: 'standard' })) {
        parts.push({ ...part, unit: singular });
      }
      if (at + number.length < formatted.length) parts.push({ type: 'literal', value: formatted.slice(at + number.length) });
      return parts;
    }
    resolvedOptions() { return { ...relativeFormats.get(this) }; }
    static supportedLocalesOf(locales) { return localeList(locales); }
  }
  define(RelativeTimeFormat.prototype, Symbol.toStringTag, 'Intl.RelativeTimeFormat');

  // --- DateTimeFormat ---------------------------------------------------
  const dateFormats = new WeakMap();
  const dateFormatFunctions = new WeakMap();
  const DATE_FIELDS = ['weekday', 'era', 'year', 'month', 'day'];
  const TIME_FIELDS = ['dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits'];
  const COMPONENTS = {
    weekday: ['narrow', 'short', 'long'],
    era: ['narrow', 'short', 'long'],
    year: ['2-digit', 'numeric'],
    month: ['2-digit', 'numeric', 'narrow', 'short', 'long'],
    day: ['2-digit', 'numeric'],
    dayPeriod: ['narrow', 'short', 'long'],
    hour: ['2-digit', 'numeric'],
    minute: ['2-digit', 'numeric'],
    second: ['2-digit', 'numeric'],
    timeZoneName: ['short', 'long', 'shortOffset', 'longOffset', 'shortGeneric', 'longGeneric'],
  };
  const STYLES = ['full', 'long', 'medium', 'short'];

  // ECMA-402's CreateDateTimeFormat, with ToDateTimeOptions' `required`
  // and `defaults` for the Date methods.
  const resolveDateFormat = (locales, opts, required, defaults) => {
    const o = options(opts);
    const locale = localeOf(locales);
    const owner = 'Intl.DateTimeFormat';
    const resolved = { __proto__: null, locale, calendar: 'gregory', numberingSystem: 'latn' };
    const hour12 = o.hour12 === undefined ? undefined : Boolean(o.hour12);
    let hourCycle = text(o, 'hourCycle', ['h11', 'h12', 'h23', 'h24'], undefined, owner);
    if (hour12 !== undefined) hourCycle = hour12 ? 'h12' : 'h23';
    resolved.timeZone = o.timeZone === undefined ? 'UTC' : native.timeZone(String(o.timeZone));
    const fields = {};
    for (const [key, allowed] of Object.entries(COMPONENTS)) {
      const value = text(o, key, allowed, undefined, owner);
      if (value !== undefined) fields[key] = value;
    }
    const fractional = count(o, 'fractionalSecondDigits', 1, 3, undefined);
    if (fractional !== undefined) fields.fractionalSecondDigits = fractional;
    const dateStyle = text(o, 'dateStyle', STYLES, undefined, owner);
    const timeStyle = text(o, 'timeStyle', STYLES, undefined, owner);
    if (dateStyle !== undefined || timeStyle !== undefined) {
      const clash = Object.keys(fields)[0];
      if (clash !== undefined) {
        throw new TypeError(`Can't set option ${clash} when ${dateStyle !== undefined ? 'dateStyle' : 'timeStyle'} is used`);
      }
      if (required === 'date' && dateStyle === undefined) throw new TypeError('Invalid option : timeStyle');
      if (required === 'time' && timeStyle === undefined) throw new TypeError('Invalid option : dateStyle');
      if (timeStyle !== undefined && hourCycle !== undefined) resolved.hourCycle = hourCycle;
      if (dateStyle !== undefined) resolved.dateStyle = dateStyle;
      if (timeStyle !== undefined) resolved.timeStyle = timeStyle;
      return resolved;
    }
    const has = (names) => names.some((name) => fields[name] !== undefined);
    const needDefaults = !((required !== 'time' && has(DATE_FIELDS)) || (required !== 'date' && has(TIME_FIELDS)));
    if (needDefaults && (defaults === 'date' || defaults === 'all')) {
      Object.assign(fields, { year: 'numeric', month: 'numeric', day: 'numeric' });
    }
    if (needDefaults && (defaults === 'time' || defaults === 'all')) {
      Object.assign(fields, { hour: 'numeric', minute: 'numeric', second: 'numeric' });
    }
    if (fields.hour !== undefined && hourCycle !== undefined) resolved.hourCycle = hourCycle;
    return { __proto__: null, ...resolved, ...fields };
  };

  const timeValue = (date) => {
    const time = date === undefined ? Date.now() : Number(date);
    if (!Number.isFinite(time) || Math.abs(time) > 8.64e15) throw new RangeError('Invalid time value');
    return time;
  };
  // The natives read every option as text.
  const forNative = (resolved) => (resolved.fractionalSecondDigits === undefined
    ? resolved : { __proto__: null, ...resolved, fractionalSecondDigits: String(resolved.fractionalSecondDigits) });
  const formatDate = (resolved, date) => native.formatDate(resolved.locale, timeValue(date), forNative(resolved));

  class DateTimeFormat {
    constructor(locales, opts) {
      dateFormats.set(this, resolveDateFormat(locales, opts, 'any', 'date'));
    }
    get format() {
      const resolved = dateFormats.get(this);
      if (resolved === undefined) throw new TypeError('Method Intl.DateTimeFormat.prototype.format called on incompatible receiver');
      return bound(this, dateFormatFunctions, (date) => formatDate(resolved, date));
    }
    formatToParts(date) {
      const resolved = dateFormats.get(this);
      return native.formatDateToParts(resolved.locale, timeValue(date), forNative(resolved))
        .map(([type, value]) => ({ type, value }));
    }
    formatRange(start, end) {
      if (start === undefined || end === undefined) throw new TypeError('startDate and endDate are required');
      const resolved = dateFormats.get(this);
      return native.formatDateRange(resolved.locale, timeValue(start), timeValue(end), forNative(resolved));
    }
    resolvedOptions() {
      const resolved = { ...dateFormats.get(this) };
      if (resolved.hourCycle !== undefined) resolved.hour12 = resolved.hourCycle === 'h11' || resolved.hourCycle === 'h12';
      return resolved;
    }
    static supportedLocalesOf(locales) { return localeList(locales); }
  }
  define(DateTimeFormat.prototype, Symbol.toStringTag, 'Intl.DateTimeFormat');

  const dateMethod = (name, required, defaults) => method(Date.prototype, `Date.${name}`, {
    [name](locales, opts) {
      const time = Date.prototype.getTime.call(this);
      if (Number.isNaN(time)) return 'Invalid Date';
      return formatDate(resolveDateFormat(locales, opts, required, defaults), time);
    },
  }[name]);
  dateMethod('toLocaleString', 'any', 'all');
  dateMethod('toLocaleDateString', 'date', 'date');
  dateMethod('toLocaleTimeString', 'time', 'time');

  // --- Locale -----------------------------------------------------------
  const locales = new WeakMap();
  class Locale {
    constructor(tag, opts) {
      if (typeof tag !== 'string' && !(tag instanceof Locale)) {
        throw new TypeError('First argument to Intl.Locale constructor can\'t be empty or missing');
      }
      const canonical = native.canonicalLocale(String(tag));
      const o = options(opts);
      const [base, extension = ''] = canonical.split(/-u-/);
      const subtags = base.split('-');
      const keyword = (key) => new RegExp(`(?:^|-)${key}-([a-z0-9-]+?)(?=-[a-z0-9]{2}(?:-|$)|$)`).exec(extension)?.[1];
      const subtag = (key, pattern) => {
        if (o[key] === undefined) return undefined;
        const value = String(o[key]);
        if (!pattern.test(value)) throw new RangeError(`Incorrect locale information provided`);
        return value;
      };
      const language = subtag('language', /^([a-z]{2,3}|[a-z]{5,8})$/i) ?? subtags[0];
      const script = subtag('script', /^[a-z]{4}$/i) ?? subtags.find((s, i) => i > 0 && /^[A-Z][a-z]{3}$/.test(s));
      const region = subtag('region', /^([a-z]{2}|\d{3})$/i) ?? subtags.find((s, i) => i > 0 && /^([A-Z]{2}|\d{3})$/.test(s));
      locales.set(this, {
        baseName: [language, script, region].filter(Boolean).join('-'),
        language, script, region,
        calendar: o.calendar ?? keyword('ca'),
        collation: o.collation ?? keyword('co'),
        hourCycle: o.hourCycle ?? keyword('hc'),
        numberingSystem: o.numberingSystem ?? keyword('nu'),
        numeric: o.numeric === undefined ? (keyword('kn') === undefined ? undefined : keyword('kn') !== 'false') : Boolean(o.numeric),
        caseFirst: o.caseFirst ?? keyword('kf'),
        tag: canonical,
      });
    }
    toString() { return locales.get(this).tag; }
    toJSON() { return this.toString(); }
    static get [Symbol.species]() { return Locale; }
  }
  for (const key of ['baseName', 'language', 'script', 'region', 'calendar', 'collation', 'hourCycle',
    'numberingSystem', 'numeric', 'caseFirst']) {
    Object.defineProperty(Locale.prototype, key, {
      get() { return locales.get(this)[key]; }, configurable: true,
    });
  }
  define(Locale.prototype, Symbol.toStringTag, 'Intl.Locale');

  const Intl = {};
  define(Intl, 'Locale', Locale);
  define(Intl, 'DateTimeFormat', DateTimeFormat);
  define(Intl, 'RelativeTimeFormat', RelativeTimeFormat);
  define(Intl, 'NumberFormat', NumberFormat);
  define(Intl, 'PluralRules', PluralRules);
  define(Intl, 'ListFormat', ListFormat);
  define(Intl, 'Collator', Collator);
  define(Intl, 'getCanonicalLocales', (locales) => localeList(locales));
  Object.defineProperty(Intl, Symbol.toStringTag, { value: 'Intl', configurable: true });
  try {
    define(globalThis, 'Intl', Intl);
  } catch (_) {
    // A frozen global object keeps the boot script's getter, which gives this Intl.
  }

  method(Number.prototype, 'Number.toLocaleString', function toLocaleString(locales, opts) {
    if (typeof this !== 'number' && !(this instanceof Number)) {
      throw new TypeError('Number.prototype.toLocaleString requires that \'this\' be a Number');
    }
    return new NumberFormat(locales, opts).format(Number(this));
  });
  method(BigInt.prototype, 'BigInt.toLocaleString', function toLocaleString(locales, opts) {
    return new NumberFormat(locales, opts).format(BigInt.prototype.valueOf.call(this));
  });
  method(String.prototype, 'String.localeCompare', function localeCompare(that, locales, opts) {
    if (this === undefined || this === null) {
      throw new TypeError('String.prototype.localeCompare called on null or undefined');
    }
    return new Collator(locales, opts).compare(String(this), String(that));
  });
  return { Intl, methods };
}
