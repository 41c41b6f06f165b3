// Where the engine's built-ins differ from V8's in ways scripts print or
// test, and the fix is cheap and exact from outside the engine: JSON.parse's
// error messages, BigInt.asUintN on negative values, Promise.any's
// AggregateError message, the stack overflow error's class, Date's
// toString. (docs/node-parity.md lists what cannot be fixed here.)

// JSON.parse: the engine's result when it succeeds; when it fails, a
// SyntaxError with V8's message, found by scanning the text as V8's parser
// does.
{
  const nativeParse = JSON.parse;
  const isDigit = (c) => c >= '0' && c <= '9';
  const isHex = (c) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
  const jsonErrorMessage = (src) => {
    const n = src.length;
    let i = 0;
    const fail = (m) => { throw { jsonMessage: m }; };
    const at = (what) => fail(`${what} in JSON at position ${i}`);
    const ws = () => {
      while (i < n && (src[i] === ' ' || src[i] === '\t' || src[i] === '\n' || src[i] === '\r')) i++;
    };
    const unexpected = () => {
      if (i >= n) fail('Unexpected end of JSON input');
      if (src === 'undefined' || src === 'NaN' || src === 'Infinity' || src === '[object Object]') fail(`"${src}" is not valid JSON`);
      const c = src[i];
      if (n <= 21) fail(`Unexpected token '${c}', "${src}" is not valid JSON`);
      if (i < 10) fail(`Unexpected token '${c}', "${src.slice(0, i + 10)}"... is not valid JSON`);
      if (i < n - 10) fail(`Unexpected token '${c}', ..."${src.slice(i - 10, i + 10)}"... is not valid JSON`);
      fail(`Unexpected token '${c}', ..."${src.slice(i - 10)}" is not valid JSON`);
    };
    const string = () => {
      i++;
      for (;;) {
        if (i >= n) at('Unterminated string');
        const c = src[i];
        if (c === '"') { i++; return; }
        if (c < ' ') at('Bad control character in string literal');
        if (c === '\\') {
          i++;
          if (i >= n) at('Unterminated string');
          const e = src[i];
          if ('"\\/bfnrt'.includes(e)) {
            i++;
          } else if (e === 'u') {
            i++;
            for (let k = 0; k < 4; k++, i++) if (!isHex(src[i])) at('Bad Unicode escape');
          } else {
            at('Bad escaped character');
          }
        } else {
          i++;
        }
      }
    };
    const number = () => {
      if (src[i] === '-') {
        i++;
        if (!isDigit(src[i])) at('No number after minus sign');
      }
      if (src[i] === '0') {
        i++;
        if (isDigit(src[i])) fail(`Unexpected number in JSON at position ${i}`);
      } else {
        while (isDigit(src[i])) i++;
      }
      if (src[i] === '.') {
        i++;
        if (!isDigit(src[i])) at('Unterminated fractional number');
        while (isDigit(src[i])) i++;
      }
      if (src[i] === 'e' || src[i] === 'E') {
        i++;
        if (src[i] === '+' || src[i] === '-') i++;
        if (!isDigit(src[i])) at('Exponent part is missing a number');
        while (isDigit(src[i])) i++;
      }
    };
    const literal = (word) => {
      for (let k = 0; k < word.length; k++, i++) if (src[i] !== word[k]) unexpected();
    };
    const value = () => {
      ws();
      if (i >= n) unexpected();
      const c = src[i];
      if (c === '{') {
        i++;
        ws();
        if (src[i] === '}') { i++; return; }
        for (let first = true; ; first = false) {
          ws();
          if (src[i] !== '"') at(first ? "Expected property name or '}'" : 'Expected double-quoted property name');
          string();
          ws();
          if (src[i] !== ':') at("Expected ':' after property name");
          i++;
          value();
          ws();
          if (src[i] === ',') { i++; continue; }
          if (src[i] === '}') { i++; return; }
          at("Expected ',' or '}' after property value");
        }
      } else if (c === '[') {
        i++;
        ws();
        if (src[i] === ']') { i++; return; }
        for (;;) {
          value();
          ws();
          if (src[i] === ',') { i++; continue; }
          if (src[i] === ']') { i++; return; }
          at("Expected ',' or ']' after array element");
        }
      } else if (c === '"') {
        string();
      } else if (c === '-' || isDigit(c)) {
        number();
      } else if (c === 't') {
        literal('true');
      } else if (c === 'f') {
        literal('false');
      } else if (c === 'n') {
        literal('null');
      } else {
        unexpected();
      }
    };
    try {
      value();
      ws();
      if (i < n) fail(`Unexpected non-whitespace character after JSON at position ${i}`);
    } catch (e) {
      if (e && typeof e.jsonMessage === 'string') return e.jsonMessage;
      throw e;
    }
    return undefined;
  };
  Object.defineProperty(JSON, 'parse', {
    value: {
      parse(text, reviver) {
        try {
          return reviver === undefined ? nativeParse(text) : nativeParse(text, reviver);
        } catch (e) {
          if (!(e instanceof SyntaxError)) throw e;
          const m = jsonErrorMessage(String(text));
          if (m === undefined) throw e;
          throw new SyntaxError(m);
        }
      },
    }.parse,
    writable: true, configurable: true, enumerable: false,
  });
}

// BigInt.asUintN: the engine returns negative values unchanged.
{
  const asUintN = function asUintN(bits, bigint) {
    const b = Number(bits);
    if (!Number.isInteger(b) || b < 0 || b > 2 ** 53 - 1) throw new RangeError('Invalid value: not (convertible to) a safe integer');
    const n = BigInt(bigint);
    if (b === 0) return 0n;
    const m = 1n << BigInt(b);
    const r = n % m;
    return r < 0n ? r + m : r;
  };
  Object.defineProperty(BigInt, 'asUintN', { value: asUintN, writable: true, configurable: true, enumerable: false });
}

// Promise.any: the engine's AggregateError has no message; V8's says "All
// promises were rejected". The same algorithm as the specification's.
{
  const any = {
    any(iterable) {
      const C = this;
      return new C((resolve, reject) => {
        const errors = [];
        let remaining = 1;
        let index = 0;
        const done = () => reject(new AggregateError(errors, 'All promises were rejected'));
        for (const v of iterable) {
          const k = index++;
          remaining++;
          C.resolve(v).then(resolve, (e) => {
            errors[k] = e;
            if (--remaining === 0) done();
          });
        }
        if (--remaining === 0) done();
      });
    },
  }.any;
  Object.defineProperty(Promise, 'any', { value: any, writable: true, configurable: true, enumerable: false });
}

// The engine's stack overflow is an InternalError, a class V8 does not
// have: it becomes a RangeError (instanceof and name).
if (typeof InternalError === 'function') {
  Object.setPrototypeOf(InternalError.prototype, RangeError.prototype);
  Object.defineProperty(InternalError.prototype, 'name', { value: 'RangeError', writable: true, configurable: true, enumerable: false });
}

// Date's toString names the zone as V8 does (local time is UTC).
{
  const { toString: dateToString, toTimeString: dateToTimeString } = Date.prototype;
  const zone = ' (Coordinated Universal Time)';
  Date.prototype.toString = { toString() { const s = dateToString.call(this); return s === 'Invalid Date' ? s : s + zone; } }.toString;
  Date.prototype.toTimeString = { toTimeString() { const s = dateToTimeString.call(this); return s === 'Invalid Date' ? s : s + zone; } }.toTimeString;
}
