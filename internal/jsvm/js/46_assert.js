// node:assert, after Node 20's lib/assert.js and
// lib/internal/assert/assertion_error.js: the same checks, the same
// AssertionError (its messages, "+ actual - expected" diffs included), the
// same validation of throws/rejects' expected argument (a RegExp, an Error
// class, a validation object or function). assert.ok's message quotes the
// call's source, read from the module (sourceText).

const kReadableOperator = {
  deepStrictEqual: 'Expected values to be strictly deep-equal:',
  strictEqual: 'Expected values to be strictly equal:',
  strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
  deepEqual: 'Expected values to be loosely deep-equal:',
  notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
  notStrictEqual: 'Expected "actual" to be strictly unequal to:',
  notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
  notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
  notIdentical: 'Values have same structure but are not reference-equal:',
  notDeepEqualUnequal: 'Expected values not to be loosely deep-equal:',
};
const kMaxShortLength = 12;

function assertInspect(v) {
  return inspect(v, {
    compact: false, customInspect: false, depth: 1000, maxArrayLength: Infinity,
    showHidden: false, showProxy: false, sorted: true, getters: true,
  });
}

function createErrDiff(actual, expected, operator, customMessage) {
  let other = '';
  let res = '';
  let end = '';
  let skipped = false;
  const actualInspected = assertInspect(actual);
  const actualLines = actualInspected.split('\n');
  const expectedLines = assertInspect(expected).split('\n');
  let i = 0;
  let indicator = '';
  if (operator === 'strictEqual' &&
      ((typeof actual === 'object' && actual !== null && typeof expected === 'object' && expected !== null) ||
       (typeof actual === 'function' && typeof expected === 'function'))) {
    operator = 'strictEqualObject';
  }
  const header = customMessage ?? kReadableOperator[operator];
  if (actualLines.length === 1 && expectedLines.length === 1 && actualLines[0] !== expectedLines[0]) {
    const actualRaw = actualLines[0];
    const expectedRaw = expectedLines[0];
    const inputLength = actualRaw.length + expectedRaw.length;
    if (inputLength <= kMaxShortLength) {
      if ((typeof actual !== 'object' || actual === null) &&
          (typeof expected !== 'object' || expected === null) &&
          (actual !== 0 || expected !== 0)) {
        return `${header}\n\n${actualLines[0]} !== ${expectedLines[0]}\n`;
      }
    } else if (operator !== 'strictEqualObject') {
      if (inputLength < 80) {
        while (actualRaw[i] === expectedRaw[i]) i++;
        if (i > 2) {
          indicator = `\n  ${' '.repeat(i)}^`;
          i = 0;
        }
      }
    }
  }
  let a = actualLines[actualLines.length - 1];
  let b = expectedLines[expectedLines.length - 1];
  while (a === b) {
    if (i++ < 3) end = `\n  ${a}${end}`;
    else other = a;
    actualLines.pop();
    expectedLines.pop();
    if (actualLines.length === 0 || expectedLines.length === 0) break;
    a = actualLines[actualLines.length - 1];
    b = expectedLines[expectedLines.length - 1];
  }
  const maxLines = Math.max(actualLines.length, expectedLines.length);
  if (maxLines === 0) {
    const lines = actualInspected.split('\n');
    if (lines.length > 50) {
      lines[46] = '...';
      while (lines.length > 47) lines.pop();
    }
    return `${kReadableOperator.notIdentical}\n\n${lines.join('\n')}\n`;
  }
  if (i >= 5) {
    end = `\n...${end}`;
    skipped = true;
  }
  if (other !== '') {
    end = `\n  ${other}${end}`;
    other = '';
  }
  let printedLines = 0;
  let identical = 0;
  const msg = `${header}\n+ actual - expected`;
  const skippedMsg = ' ... Lines skipped';
  let lines = actualLines;
  let plusMinus = '+';
  let maxLength = expectedLines.length;
  if (actualLines.length < maxLines) {
    lines = expectedLines;
    plusMinus = '-';
    maxLength = actualLines.length;
  }
  const printIdentical = (src) => {
    if (identical > 2) {
      if (identical > 3) {
        if (identical > 4) {
          if (identical === 5) {
            res += `\n  ${src[i - 3]}`;
            printedLines++;
          } else {
            res += '\n...';
            skipped = true;
          }
        }
        res += `\n  ${src[i - 2]}`;
        printedLines++;
      }
      res += `\n  ${src[i - 1]}`;
      printedLines++;
    }
    identical = 0;
  };
  for (i = 0; i < maxLines; i++) {
    if (maxLength < i + 1) {
      printIdentical(lines);
      if (lines === actualLines) res += `\n${plusMinus} ${lines[i]}`;
      else other += `\n${plusMinus} ${lines[i]}`;
      printedLines++;
    } else {
      const expectedLine = expectedLines[i];
      let actualLine = actualLines[i];
      let divergingLines = actualLine !== expectedLine && (!actualLine.endsWith(',') || actualLine.slice(0, -1) !== expectedLine);
      if (divergingLines && expectedLine.endsWith(',') && expectedLine.slice(0, -1) === actualLine) {
        divergingLines = false;
        actualLine += ',';
      }
      if (divergingLines) {
        printIdentical(actualLines);
        res += `\n+ ${actualLine}`;
        other += `\n- ${expectedLine}`;
        printedLines += 2;
      } else {
        res += other;
        other = '';
        identical++;
        if (identical <= 2) {
          res += `\n  ${actualLine}`;
          printedLines++;
        }
      }
    }
    if (printedLines > 50 && i < maxLines - 2) {
      return `${msg}${skippedMsg}\n${res}\n...${other}\n...`;
    }
  }
  return `${msg}${skipped ? skippedMsg : ''}\n${res}${other}${end}${indicator}`;
}

class AssertionError extends Error {
  constructor(options) {
    validateObject(options, 'options');
    const { message, operator } = options;
    let { actual, expected } = options;
    let text;
    if (message != null && operator !== 'deepStrictEqual' && operator !== 'strictEqual') {
      text = String(message);
    } else if (message != null && (typeof message !== 'string')) {
      text = String(message);
    } else if (operator === 'deepStrictEqual' || operator === 'strictEqual') {
      text = createErrDiff(actual, expected, operator, message ?? undefined);
    } else if (operator === 'notDeepStrictEqual' || operator === 'notStrictEqual') {
      let base = kReadableOperator[operator];
      const res = assertInspect(actual).split('\n');
      if (operator === 'notStrictEqual' && ((typeof actual === 'object' && actual !== null) || typeof actual === 'function')) {
        base = kReadableOperator.notStrictEqualObject;
      }
      if (res.length > 50) {
        res[46] = '...';
        while (res.length > 47) res.pop();
      }
      text = res.length === 1 ? `${base}${res[0].length > 5 ? '\n\n' : ' '}${res[0]}` : `${base}\n\n${res.join('\n')}\n`;
    } else {
      let res = assertInspect(actual);
      let other = assertInspect(expected);
      const known = kReadableOperator[operator];
      if (operator === 'notDeepEqual' && res === other) {
        res = `${known}\n\n${res}`;
        if (res.length > 1024) res = `${res.slice(0, 1021)}...`;
        text = res;
      } else {
        if (res.length > 512) res = `${res.slice(0, 509)}...`;
        if (other.length > 512) other = `${other.slice(0, 509)}...`;
        if (operator === 'deepEqual') {
          res = `${known}\n\n${res}\n\nshould loosely deep-equal\n\n`;
        } else {
          const newOp = kReadableOperator[`${operator}Unequal`];
          if (newOp) res = `${newOp}\n\n${res}\n\nshould not loosely deep-equal\n\n`;
          else other = ` ${operator} ${other}`;
        }
        text = `${res}${other}`;
      }
    }
    super(text);
    this.generatedMessage = !message;
    Object.defineProperty(this, 'name', { value: 'AssertionError', enumerable: false, writable: true, configurable: true });
    this.code = 'ERR_ASSERTION';
    this.actual = actual;
    this.expected = expected;
    this.operator = operator;
  }

  toString() { return `${this.name} [${this.code}]: ${this.message}`; }
}

const kNoException = Symbol('no exception');

function innerFail(obj) {
  if (obj.message instanceof Error) throw obj.message;
  throw new AssertionError(obj);
}

// callSource returns the source text of the assert call that called it
// (two frames up), or undefined when it cannot be read.
function callSource() {
  const frames = (new Error().stack ?? '').split('\n').filter((l) => l.includes(' (') && !l.includes('(node:internal/desk:'));
  const m = /\((.*):(\d+):(\d+)\)$/.exec(frames[0] ?? '');
  if (m === null) return undefined;
  const src = host.sourceText(m[1]);
  if (typeof src !== 'string') return undefined;
  const lines = src.split('\n');
  const lineNo = Number(m[2]) - 1;
  let line = lines[lineNo];
  if (line === undefined) return undefined;
  // The engine's column is that of the call's "(": back up over the callee.
  let col = Number(m[3]) - 1;
  if (line[col] !== '(') {
    col = line.indexOf('(', col);
    if (col < 0) return undefined;
  }
  let start = col;
  while (start > 0 && /[\w$.\s]/.test(line[start - 1])) start--;
  while (/\s/.test(line[start])) start++;
  // Forward to the matching ")", over strings, templates and comments.
  const text = lines.slice(lineNo).join('\n');
  let depth = 0;
  let end = -1;
  for (let i = col; i < text.length && end < 0; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2);
      if (i < 0) return undefined;
      i++;
    } else if (c === '(' || c === '[' || c === '{') {
      depth++;
    } else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) end = i + 1;
    }
  }
  if (end < 0) return undefined;
  const code = text.slice(start, end);
  const [first, ...rest] = code.split('\n');
  let out = first;
  for (const l of rest) {
    let pos = 0;
    while (pos < start && (l[pos] === ' ' || l[pos] === '\t')) pos++;
    out += `\n  ${l.slice(pos)}`;
  }
  return out;
}

function innerOk(argLen, value, message) {
  if (value) return;
  let generatedMessage = false;
  if (argLen === 0) {
    generatedMessage = true;
    message = 'No value argument passed to `assert.ok()`';
  } else if (message == null) {
    generatedMessage = true;
    const code = callSource();
    message = code === undefined ? undefined : `The expression evaluated to a falsy value:\n\n  ${code}\n`;
  } else if (isError(message)) {
    throw message;
  }
  const err = new AssertionError({ actual: value, expected: true, message, operator: '==' });
  err.generatedMessage = generatedMessage;
  throw err;
}

function isLooseDeepEqual(a, b, seen = new Map()) {
  // eslint-disable-next-line eqeqeq
  if (a == b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !isLooseDeepEqual(v, b.get(k), seen)) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (!b.has(v)) return false;
    return true;
  }
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => hasOwn(b, k) && isLooseDeepEqual(a[k], b[k], seen));
}

class Comparison {
  constructor(obj, keys, actual) {
    for (const key of keys) {
      if (key in obj) {
        if (actual !== undefined && typeof actual[key] === 'string' && obj[key] instanceof RegExp && obj[key].exec(actual[key]) !== null) {
          this[key] = actual[key];
        } else {
          this[key] = obj[key];
        }
      }
    }
  }
}

function compareExceptionKey(actual, expected, key, message, keys, fn) {
  if (!(key in actual) || !isDeepStrictEqual(actual[key], expected[key])) {
    if (!message) {
      const a = new Comparison(actual, keys);
      const b = new Comparison(expected, keys, actual);
      const err = new AssertionError({ actual: a, expected: b, operator: 'deepStrictEqual' });
      err.actual = actual;
      err.expected = expected;
      err.operator = fn;
      throw err;
    }
    innerFail({ actual, expected, message, operator: fn });
  }
}

function expectedException(actual, expected, message, fn) {
  let generatedMessage = false;
  let throwError = false;
  if (typeof expected !== 'function') {
    if (expected instanceof RegExp) {
      const str = String(actual);
      if (expected.exec(str) !== null) return;
      if (!message) {
        generatedMessage = true;
        message = `The input did not match the regular expression ${inspect(expected)}. Input:\n\n${inspect(str)}\n`;
      }
      throwError = true;
    } else if (typeof actual !== 'object' || actual === null) {
      const err = new AssertionError({ actual, expected, message, operator: 'deepStrictEqual' });
      err.operator = fn;
      throw err;
    } else {
      const keys = Object.keys(expected);
      if (expected instanceof Error) keys.push('name', 'message');
      else if (keys.length === 0) throw invalidArgValue('error', expected, 'may not be an empty object');
      for (const key of keys) {
        if (typeof actual[key] === 'string' && expected[key] instanceof RegExp && expected[key].exec(actual[key]) !== null) continue;
        compareExceptionKey(actual, expected, key, message, keys, fn);
      }
      return;
    }
  } else if (expected.prototype !== undefined && actual instanceof expected) {
    return;
  } else if (Error.isPrototypeOf(expected)) {
    if (!message) {
      generatedMessage = true;
      message = `The error is expected to be an instance of "${expected.name}". Received `;
      if (isError(actual)) {
        const name = actual.constructor?.name || actual.name;
        if (expected.name === name) message += 'an error with identical name but a different prototype.';
        else message += `"${name}"`;
        if (actual.message) message += `\n\nError message:\n\n${actual.message}`;
      } else {
        message += `"${inspect(actual, { depth: -1 })}"`;
      }
    }
    throwError = true;
  } else {
    const res = Reflect.apply(expected, {}, [actual]);
    if (res !== true) {
      if (!message) {
        generatedMessage = true;
        const name = expected.name ? `"${expected.name}" ` : '';
        message = `The ${name}validation function is expected to return "true". Received ${inspect(res)}`;
        if (isError(actual)) message += `\n\nCaught error:\n\n${actual}`;
      }
      throwError = true;
    }
  }
  if (throwError) {
    const err = new AssertionError({ actual, expected, message, operator: fn });
    err.generatedMessage = generatedMessage;
    throw err;
  }
}

function invalidExpected(error) {
  return invalidArgType('error', 'of type function or an instance of Error, RegExp, or Object', error);
}

function expectsError(fn, actual, error, message, argc) {
  if (typeof error === 'string') {
    if (argc === 3) throw invalidExpected(error);
    if (typeof actual === 'object' && actual !== null) {
      if (actual.message === error) {
        throw nodeError(TypeError, 'ERR_AMBIGUOUS_ARGUMENT', `The "error/message" argument is ambiguous. The error message "${actual.message}" is identical to the message.`);
      }
    } else if (actual === error) {
      throw nodeError(TypeError, 'ERR_AMBIGUOUS_ARGUMENT', `The "error/message" argument is ambiguous. The error "${actual}" is identical to the message.`);
    }
    message = error;
    error = undefined;
  } else if (error != null && typeof error !== 'object' && typeof error !== 'function') {
    throw invalidExpected(error);
  }
  if (actual === kNoException) {
    let details = '';
    if (error?.name) details += ` (${error.name})`;
    details += message ? `: ${message}` : '.';
    const kind = fn === 'rejects' ? 'rejection' : 'exception';
    innerFail({ actual: undefined, expected: error, operator: fn, message: `Missing expected ${kind}${details}` });
  }
  if (!error) return;
  expectedException(actual, error, message, fn);
}

function hasMatchingError(actual, expected) {
  if (typeof expected !== 'function') {
    if (expected instanceof RegExp) return expected.exec(String(actual)) !== null;
    throw invalidArgType('expected', 'of type function or an instance of RegExp', expected);
  }
  if (expected.prototype !== undefined && actual instanceof expected) return true;
  if (Error.isPrototypeOf(expected)) return false;
  return Reflect.apply(expected, {}, [actual]) === true;
}

function expectsNoError(fn, actual, error, message) {
  if (actual === kNoException) return;
  if (typeof error === 'string') {
    message = error;
    error = undefined;
  }
  if (!error || hasMatchingError(actual, error)) {
    const details = message ? `: ${message}` : '.';
    const kind = fn === 'doesNotReject' ? 'rejection' : 'exception';
    innerFail({ actual, expected: error, operator: fn, message: `Got unwanted ${kind}${details}\nActual message: "${actual?.message}"` });
  }
  throw actual;
}

function getActual(fn) {
  validateFunction(fn, 'fn');
  try { fn(); } catch (e) { return e; }
  return kNoException;
}

async function waitForActual(p) {
  let promise;
  if (typeof p === 'function') {
    promise = p();
    if (!(promise && typeof promise.then === 'function')) {
      throw nodeError(TypeError, 'ERR_INVALID_RETURN_VALUE', `Expected instance of Promise to be returned from the "promiseFn" function but got ${received(promise).replace(/^ Received /, '')}.`);
    }
  } else if (p && typeof p.then === 'function') {
    promise = p;
  } else {
    throw invalidArgType('promiseFn', 'of type function or an instance of Promise', p);
  }
  try { await promise; } catch (e) { return e; }
  return kNoException;
}

function matchRegExp(actual, expected, message, fn) {
  if (!(expected instanceof RegExp)) throw invalidArgType('regexp', 'an instance of RegExp', expected);
  const match = fn === 'match';
  if (typeof actual !== 'string' || (expected.exec(actual) !== null) !== match) {
    if (message instanceof Error) throw message;
    const generatedMessage = !message;
    message = message || (typeof actual !== 'string' ?
      `The "string" argument must be of type string. Received type ${typeof actual} (${inspect(actual)})` :
      (match ? 'The input did not match the regular expression ' : 'The input was expected to not match the regular expression ') +
          `${inspect(expected)}. Input:\n\n${inspect(actual)}\n`);
    const err = new AssertionError({ actual, expected, message, operator: fn });
    err.generatedMessage = generatedMessage;
    throw err;
  }
}

function makeAssert(strict) {
  function assert(...args) { innerOk(args.length, ...args); }
  function checkArgs(n) {
    if (n < 2) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "actual" and "expected" arguments must be specified');
  }
  Object.assign(assert, {
    AssertionError,
    ok(...args) { innerOk(args.length, ...args); },
    fail(message) {
      if (message instanceof Error) throw message;
      const err = new AssertionError({ message: message ?? 'Failed', operator: 'fail' });
      err.generatedMessage = message === undefined;
      throw err;
    },
    strictEqual(actual, expected, message) {
      checkArgs(arguments.length);
      if (!Object.is(actual, expected)) innerFail({ actual, expected, message, operator: 'strictEqual' });
    },
    notStrictEqual(actual, expected, message) {
      checkArgs(arguments.length);
      if (Object.is(actual, expected)) innerFail({ actual, expected, message, operator: 'notStrictEqual' });
    },
    deepStrictEqual(actual, expected, message) {
      checkArgs(arguments.length);
      if (!isDeepStrictEqual(actual, expected)) innerFail({ actual, expected, message, operator: 'deepStrictEqual' });
    },
    notDeepStrictEqual(actual, expected, message) {
      checkArgs(arguments.length);
      if (isDeepStrictEqual(actual, expected)) innerFail({ actual, expected, message, operator: 'notDeepStrictEqual' });
    },
    equal(actual, expected, message) {
      checkArgs(arguments.length);
      // eslint-disable-next-line eqeqeq
      if (!(actual == expected || (actual !== actual && expected !== expected))) innerFail({ actual, expected, message, operator: '==' });
    },
    notEqual(actual, expected, message) {
      checkArgs(arguments.length);
      // eslint-disable-next-line eqeqeq
      if (actual == expected || (actual !== actual && expected !== expected)) innerFail({ actual, expected, message, operator: '!=' });
    },
    deepEqual(actual, expected, message) {
      checkArgs(arguments.length);
      if (!isLooseDeepEqual(actual, expected)) innerFail({ actual, expected, message, operator: 'deepEqual' });
    },
    notDeepEqual(actual, expected, message) {
      checkArgs(arguments.length);
      if (isLooseDeepEqual(actual, expected)) innerFail({ actual, expected, message, operator: 'notDeepEqual' });
    },
    throws(fn, ...args) { expectsError('throws', getActual(fn), args[0], args[1], args.length + 1); },
    async rejects(p, ...args) { expectsError('rejects', await waitForActual(p), args[0], args[1], args.length + 1); },
    doesNotThrow(fn, ...args) { expectsNoError('doesNotThrow', getActual(fn), args[0], args[1]); },
    async doesNotReject(p, ...args) { expectsNoError('doesNotReject', await waitForActual(p), args[0], args[1]); },
    ifError(err) {
      if (err !== null && err !== undefined) {
        let message = 'ifError got unwanted exception: ';
        if (typeof err === 'object' && typeof err.message === 'string') {
          if (err.message.length === 0 && err.constructor) message += err.constructor.name;
          else message += err.message;
        } else {
          message += inspect(err);
        }
        const e = new AssertionError({ actual: err, expected: null, operator: 'ifError', message });
        e.generatedMessage = false;
        throw e;
      }
    },
    match(actual, expected, message) { matchRegExp(actual, expected, message, 'match'); },
    doesNotMatch(actual, expected, message) { matchRegExp(actual, expected, message, 'doesNotMatch'); },
  });
  if (strict) {
    assert.equal = assert.strictEqual;
    assert.notEqual = assert.notStrictEqual;
    assert.deepEqual = assert.deepStrictEqual;
    assert.notDeepEqual = assert.notDeepStrictEqual;
  }
  return assert;
}

const makeAssertModule = once(() => {
  const a = makeAssert(false);
  a.strict = makeAssert(true);
  a.strict.strict = a.strict;
  return a;
});
