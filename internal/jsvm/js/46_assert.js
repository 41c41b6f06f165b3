// node:assert: ok, equal, strictEqual, deepStrictEqual, throws, rejects...
// with AssertionError (messages are simpler than Node's diffs).

class AssertionError extends Error {
  constructor(options) {
    super(options.message);
    this.name = 'AssertionError';
    this.code = 'ERR_ASSERTION';
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = options.operator;
    this.generatedMessage = !options.userMessage;
  }
}

function assertFail(actual, expected, message, operator, defaultMessage) {
  if (message instanceof Error) throw message;
  throw new AssertionError({ actual, expected, operator, message: message ?? defaultMessage, userMessage: message !== undefined });
}

function isLooseDeepEqual(a, b) {
  // eslint-disable-next-line eqeqeq
  if (a == b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => isLooseDeepEqual(a[k], b[k]));
}

function matchesError(err, expected) {
  if (expected === undefined) return true;
  if (typeof expected === 'function') {
    if (expected.prototype !== undefined && err instanceof expected) return true;
    if (Error.isPrototypeOf(expected) || expected === Error) return false;
    return expected(err) === true;
  }
  if (expected instanceof RegExp) return expected.test(String(err));
  if (typeof expected === 'object' && expected !== null) {
    return Object.keys(expected).every((k) => (expected[k] instanceof RegExp && typeof err[k] === 'string' ? expected[k].test(err[k]) : isDeepStrictEqual(err[k], expected[k])));
  }
  return false;
}

function makeAssert(strict) {
  function assert(value, message) { assert.ok(value, message); }
  Object.assign(assert, {
    AssertionError,
    ok(value, message) { if (!value) assertFail(value, true, message, '==', arguments.length === 0 ? 'No value argument passed to `assert.ok()`' : `The expression evaluated to a falsy value:\n\n  assert.ok(${inspect(value)})\n`); },
    fail(message = 'Failed') { assertFail(undefined, undefined, message, 'fail', 'Failed'); },
    strictEqual(a, b, message) { if (!Object.is(a, b)) assertFail(a, b, message, 'strictEqual', `Expected values to be strictly equal:\n\n${inspect(a)} !== ${inspect(b)}\n`); },
    notStrictEqual(a, b, message) { if (Object.is(a, b)) assertFail(a, b, message, 'notStrictEqual', `Expected "actual" to be strictly unequal to: ${inspect(b)}`); },
    deepStrictEqual(a, b, message) { if (!isDeepStrictEqual(a, b)) assertFail(a, b, message, 'deepStrictEqual', `Expected values to be strictly deep-equal:\n${inspect(a)}\n\nshould equal\n\n${inspect(b)}`); },
    notDeepStrictEqual(a, b, message) { if (isDeepStrictEqual(a, b)) assertFail(a, b, message, 'notDeepStrictEqual', `Expected "actual" not to be strictly deep-equal to: ${inspect(b)}`); },
    // eslint-disable-next-line eqeqeq
    equal(a, b, message) { if (!(a == b || (a !== a && b !== b))) assertFail(a, b, message, '==', `${inspect(a)} == ${inspect(b)}`); },
    // eslint-disable-next-line eqeqeq
    notEqual(a, b, message) { if (a == b) assertFail(a, b, message, '!=', `${inspect(a)} != ${inspect(b)}`); },
    deepEqual(a, b, message) { if (!isLooseDeepEqual(a, b)) assertFail(a, b, message, 'deepEqual', `Expected values to be loosely deep-equal:\n\n${inspect(a)}\n\nshould loosely deep-equal\n\n${inspect(b)}`); },
    notDeepEqual(a, b, message) { if (isLooseDeepEqual(a, b)) assertFail(a, b, message, 'notDeepEqual', `"actual" deepEqual "expected"`); },
    throws(fn, expected, message) {
      validateFunction(fn, 'fn');
      if (typeof expected === 'string') { message = expected; expected = undefined; }
      try { fn(); } catch (e) {
        if (!matchesError(e, expected)) throw e;
        return;
      }
      assertFail(undefined, expected, message, 'throws', 'Missing expected exception.');
    },
    doesNotThrow(fn, message) {
      validateFunction(fn, 'fn');
      try { fn(); } catch (e) { assertFail(e, undefined, typeof message === 'string' ? message : undefined, 'doesNotThrow', `Got unwanted exception.\nActual message: "${e?.message}"`); }
    },
    async rejects(p, expected, message) {
      if (typeof expected === 'string') { message = expected; expected = undefined; }
      try { await (typeof p === 'function' ? p() : p); } catch (e) {
        if (!matchesError(e, expected)) throw e;
        return;
      }
      assertFail(undefined, expected, message, 'rejects', 'Missing expected rejection.');
    },
    async doesNotReject(p, message) {
      try { await (typeof p === 'function' ? p() : p); } catch (e) { assertFail(e, undefined, message, 'doesNotReject', `Got unwanted rejection.\nActual message: "${e?.message}"`); }
    },
    match(s, re, message) { if (!re.test(s)) assertFail(s, re, message, 'match', `The input did not match the regular expression ${inspect(re)}. Input:\n\n${inspect(s)}\n`); },
    doesNotMatch(s, re, message) { if (re.test(s)) assertFail(s, re, message, 'doesNotMatch', `The input was expected to not match the regular expression ${inspect(re)}. Input:\n\n${inspect(s)}\n`); },
    ifError(v) { if (v !== null && v !== undefined) throw v; },
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
