// The parity test: what the built-in globals and modules print, under Node
// and under the js backend (parity_test.go compares the output). Each
// section runs on its own; an exception is printed and the next goes on.
import { Buffer } from 'node:buffer';
import path from 'node:path';
import util from 'node:util';
import { EventEmitter, once } from 'node:events';
import assert from 'node:assert';
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as url from 'node:url';

const sections = [];
const section = (name, f) => sections.push([name, f]);

section('console.log primitives', () => {
  console.log('str', 1, -0, 0, 1.5, -2e-7, 1e21, NaN, Infinity, 10n, true, null, undefined, Symbol('s'));
  console.log('%s|%d|%i|%f|%j|%o|%O|%%|%c', 'a', 42.5, 42.5, '3.25', { a: 1 }, [1], { b: 2 }, 'css');
  console.log('%s', { a: 1 }, '%s', [1, 2]);
  console.log('%d', '0x10', '%i', 'x');
  console.log('extra', 'args', { x: 1 });
  console.log('%s %s', 'only one');
  console.log();
  console.log('');
  console.log('%s', 5n, '%d', 5n, '%s', -0, Symbol('x').toString());
});

section('inspect objects', () => {
  console.log({});
  console.log({ a: 1, b: 'two', c: [1, 2, 3], d: { e: { f: { g: 1 } } } });
  console.log({ 'a-b': 1, 'c d': 2, _ok: 3, $x: 4, 1: 5 });
  console.log([]);
  console.log([1, 'a', null, undefined, [2, [3, [4, [5]]]]]);
  console.log(new Array(5));
  console.log([1, , 3, , , 6]);
  console.log(Array.from({ length: 120 }, (_, i) => i));
  console.log(Array.from({ length: 30 }, (_, i) => `item${i}`));
  console.log(Array.from({ length: 8 }, (_, i) => i * 1000));
  console.log({ long: 'x'.repeat(100), other: 1 });
  console.log({ a: { b: { c: { d: { e: 1 } } } } });
  console.log(Object.create(null));
  const np = Object.create(null); np.x = 1;
  console.log(np);
  class Foo { constructor() { this.x = 1; } }
  console.log(new Foo(), new (class {})(), new (class Bar extends Foo {})());
  const circ = { name: 'c' }; circ.self = circ; circ.list = [circ];
  console.log(circ);
  console.log({ f() {}, g: () => 1, h: async function named() {}, k: function* gen() {}, c: class K {} });
  console.log([function () {}, class {}, Math.max]);
  const withProps = Object.assign(function fp() {}, { a: 1 });
  console.log(withProps);
  console.log({ get g() { return 1; }, set s(v) {}, get gs() { return 1; }, set gs(v) {} });
  console.log({ [Symbol('k')]: 1, [Symbol.iterator]: 2 });
  console.log({ a: 'it\'s', b: "say \"hi\"", c: `both ' and "`, d: 'nl\nand\ttab', e: '\u0001\u007f\u009f' });
  console.log(['\ud800', 'ok\u{1F600}']);
  console.log({ nested: [{ a: [{ b: [] }] }] });
  console.log({ __proto__: { inherited: 1 }, own: 2 });
  console.log(Object.assign(Object.create({ constructor: { name: 'Weird' } }), { q: 1 }));
  console.log({ toString() { return 'x'; } });
  console.log([[]], [{}], { a: [] }, { a: {} });
});

section('inspect builtins', () => {
  console.log(new Map([[1, 'a'], ['b', { c: 2 }]]), new Set([1, 'two', [3]]), new Map(), new Set());
  console.log(new Date(0), new Date(NaN), /re+/gi, new RegExp('a/b'));
  console.log(new Uint8Array([1, 2, 3]), new Float64Array(2), new Int16Array(0), new BigInt64Array([1n]));
  console.log(new ArrayBuffer(3), new DataView(new ArrayBuffer(2)));
  console.log(Buffer.from('hello'), Buffer.alloc(0), Buffer.alloc(60, 1));
  console.log(Promise.resolve(42), Promise.reject(new Error('no')).catch(() => {}) && 'x', new Promise(() => {}));
  console.log(new WeakMap(), new WeakSet());
  console.log(new Number(3), new String('ab'), new Boolean(false), Object(1n), Object(Symbol('s')));
  console.log([new Map([[{ a: 1 }, [1, 2]]])]);
  console.log(globalThis === global, typeof globalThis.process, typeof require);
  console.log(Math, JSON, Reflect);
  console.log(new Set([new Set([new Set([new Set([1])])])]));
});

section('inspect errors', () => {
  const e = new Error('plain');
  console.log(String(e), e.message, e.name, e instanceof Error);
  const noStack = new TypeError('no stack'); noStack.stack = undefined;
  console.log([noStack]);
  const withCode = new RangeError('coded'); withCode.stack = 'RangeError: coded'; withCode.code = 'E_X';
  console.log(withCode);
  console.log({ err: Object.assign(new Error('inner'), { stack: 'Error: inner' }) });
  const agg = new AggregateError([new Error('a')], 'many'); agg.stack = 'AggregateError: many';
  console.log(agg.message, agg.errors.length);
  const c = new Error('outer', { cause: 'why' }); c.stack = 'Error: outer';
  console.log(c);
});

section('util.inspect options', () => {
  const o = { a: { b: { c: { d: { e: 1 } } } }, arr: [1, 2, 3, 4] };
  console.log(util.inspect(o, { depth: 0 }));
  console.log(util.inspect(o, { depth: null }));
  console.log(util.inspect(o, { compact: false }));
  console.log(util.inspect(o, { breakLength: Infinity }));
  console.log(util.inspect('str'), util.inspect(1), util.inspect([1, 2, 3], { maxArrayLength: 1 }));
  console.log(util.inspect('x'.repeat(20), { maxStringLength: 5 }));
  console.log(util.inspect({ b: 2, a: 1, c: 3 }, { sorted: true }));
  console.log(util.inspect(1234567.891, { numericSeparator: true }));
  class Custom { [util.inspect.custom](depth, opts) { return `Custom<${depth}>`; } }
  console.log(util.inspect(new Custom()), [new Custom()], { c: new Custom() });
  console.log(util.inspect.custom === Symbol.for('nodejs.util.inspect.custom'));
  console.log(util.format('%s:%s', 'a'), util.format(1, 2), util.format('%o', 'str'));
  console.log(util.inspect(new Error('e'), { compact: true }).split('\n')[0]);
  console.log(util.isDeepStrictEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), util.isDeepStrictEqual([1], ['1']));
  console.log(util.types.isDate(new Date()), util.types.isPromise(Promise.resolve()), util.types.isRegExp(/x/));
  console.log(util.stripVTControlCharacters('\u001b[31mred\u001b[0m'));
});

section('util.promisify and inherits', async () => {
  const f = (a, cb) => cb(null, a * 2);
  console.log(await util.promisify(f)(21));
  const g = (cb) => cb(new Error('bad'));
  try { await util.promisify(g)(); } catch (e) { console.log('rejected', e.message); }
  function A() {} function B() {}
  util.inherits(B, A);
  console.log(new B() instanceof A, B.super_ === A);
});

section('console methods', () => {
  console.info('info');
  console.debug('debug');
  console.dir({ a: { b: { c: { d: 1 } } } }, { depth: 0 });
  console.group('group');
  console.log('inside\nmultiline');
  console.group();
  console.log('deeper');
  console.groupEnd();
  console.groupEnd();
  console.log('outside');
  console.count(); console.count(); console.count('x'); console.countReset(); console.count();
  console.assert(true, 'not printed');
});

section('Buffer', () => {
  const b = Buffer.from('héllo wörld');
  console.log(b.length, b.toString(), b.toString('hex'), b.toString('base64'), b.toString('base64url'));
  console.log(b.toString('latin1'), b.toString('ascii'), b.toString('utf8', 1, 4), b.toString('ucs2').length);
  console.log(Buffer.from('aGVsbG8', 'base64').toString(), Buffer.from('aGVsbG8-_w', 'base64url'), Buffer.from('zz6869', 'hex'), Buffer.from('6869zz', 'hex'));
  console.log(Buffer.from('a b\nc=', 'base64'), Buffer.from([256, -1, 3.7, '4']), Buffer.from(new Uint16Array([1, 256])));
  console.log(Buffer.from(new Uint8Array([1, 2]).buffer), Buffer.from({ type: 'Buffer', data: [5, 6] }), Buffer.from(Buffer.from('x')));
  console.log(Buffer.alloc(4, 'ab'), Buffer.alloc(3, 7), Buffer.allocUnsafe(2).length, Buffer.alloc(5, 'YQ==', 'base64'));
  console.log(Buffer.concat([Buffer.from('a'), new Uint8Array([98]), Buffer.from('c')]), Buffer.concat([Buffer.from('abc')], 2), Buffer.concat([]));
  console.log(Buffer.byteLength('héllo'), Buffer.byteLength('aGk=', 'base64'), Buffer.byteLength('abcd', 'hex'), Buffer.byteLength('\ud83d\ude00'), Buffer.byteLength('\ud800'));
  console.log(Buffer.isBuffer(b), Buffer.isBuffer(new Uint8Array(1)), Buffer.isEncoding('UTF-8'), Buffer.isEncoding('nope'), b instanceof Uint8Array);
  console.log(Buffer.compare(Buffer.from('a'), Buffer.from('b')), Buffer.from('abc').equals(Buffer.from('abc')), Buffer.from('b').compare(Buffer.from('a')));
  const s = b.slice(1, 3); s[0] = 0x41;
  console.log(b.subarray(0, 3), s, b[1], Buffer.isBuffer(s), Buffer.isBuffer(b.subarray(1)), Buffer.isBuffer(b.map((x) => x)));
  console.log(b.indexOf('l'), b.indexOf('zz'), b.lastIndexOf('l'), b.includes('wör'), b.indexOf(0x6c, 5), b.indexOf(Buffer.from('o')));
  const w = Buffer.alloc(8);
  console.log(w.write('hi'), w.write('ééé', 2), w, w.write('xyz', 6, 'latin1'), w);
  console.log(w.fill('ab', 1, 5), Buffer.alloc(3).fill(0x101), Buffer.from('abc').toJSON(), JSON.stringify(Buffer.from('hi')));
  const n = Buffer.alloc(16);
  n.writeUInt32BE(0xdeadbeef, 0); n.writeInt16LE(-2, 4); n.writeDoubleLE(1.5, 8);
  console.log(n.readUInt32BE(0), n.readUInt32LE(0), n.readInt16LE(4), n.readUInt16BE(4), n.readDoubleLE(8), n.readUInt8(0), n.readInt8(0));
  console.log(n.writeUIntBE(0x123456, 0, 3), n.readUIntBE(0, 3), n.readUIntLE(0, 3), n.readIntBE(0, 2), n.readBigUInt64LE(8));
  try { n.readUInt32LE(14); } catch (e) { console.log(e.name, e.code, e.message); }
  console.log(Buffer.from('abcd').swap16(), Buffer.from('abcd').swap32(), b.copy(w, 1, 0, 3), w);
  try { Buffer.from('x', 'bogus'); } catch (e) { console.log(e.name, e.code, e.message); }
  try { Buffer.from(5); } catch (e) { console.log(e.name, e.code, e.message); }
  console.log(Buffer.from('€').toString('ascii'), Buffer.from('€', 'latin1'), Buffer.from('€', 'ascii'), Buffer.from('é', 'utf16le'));
  console.log(Buffer.from([0xe2, 0x82]).toString(), Buffer.from([0xff, 0x41, 0xc3]).toString(), String(Buffer.from('ok')));
  console.log(Buffer.poolSize, typeof Buffer.allocUnsafeSlow, Buffer.from('abc').slice(-2).toString(), Buffer.from('abc').toString('utf8', -1, 100));
});

section('TextEncoder and TextDecoder', () => {
  const enc = new TextEncoder();
  console.log(enc.encoding, enc.encode('hé\u{1F600}'), enc.encode(), enc.encode('\ud800'));
  const into = new Uint8Array(4);
  console.log(enc.encodeInto('héllo', into), into);
  const dec = new TextDecoder();
  console.log(dec.encoding, dec.fatal, dec.ignoreBOM, dec.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69])), dec.decode(new Uint8Array([0xff])));
  console.log(new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x68])).length);
  try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xc3])); } catch (e) { console.log(e.name, e.code, e.message); }
  const sd = new TextDecoder();
  console.log(sd.decode(new Uint8Array([0xe2, 0x82]), { stream: true }) + sd.decode(new Uint8Array([0xac])));
  console.log(new TextDecoder('utf-16le').decode(new Uint8Array([0x68, 0, 0x69, 0])), new TextDecoder('latin1').encoding);
  console.log(dec.decode(new Uint16Array([0x6968])), dec.decode(new ArrayBuffer(1)).length);
  try { new TextDecoder('bogus'); } catch (e) { console.log(e.name, e.code, e.message); }
});

section('atob and btoa', () => {
  console.log(btoa('hello'), btoa(''), btoa('\xff\xfe'), atob('aGVsbG8='), atob(' aGVs bG8 '), atob('aGk'));
  for (const bad of ['a', 'a===', '!!!!']) {
    try { atob(bad); } catch (e) { console.log(bad, e.name, e.message, e.code, e instanceof DOMException); }
  }
  try { btoa('€'); } catch (e) { console.log(e.name, e.message); }
});

section('structuredClone', () => {
  const src = { a: 1, d: new Date(5), r: /x/g, m: new Map([[1, { b: 2 }]]), s: new Set([1]), u: new Uint8Array([1, 2]), n: null, arr: [1, , 3], big: 2n };
  src.self = src;
  const c = structuredClone(src);
  console.log(c !== src, c.self === c, c.d instanceof Date && c.d !== src.d, c.m.get(1), c.u, c.arr, c.big, c.r.flags);
  console.log(structuredClone(Buffer.from('x')), structuredClone(new Error('e')).message, structuredClone('str'), structuredClone(undefined));
  class K { constructor() { this.v = 1; } }
  console.log(structuredClone(new K()), structuredClone({ nested: { deep: [1] } }));
  for (const bad of [() => 1, Symbol('s'), { f() {} }]) {
    try { structuredClone(bad); } catch (e) { console.log(e.name, e.message.split(' could')[0].length > 0, e.code); }
  }
});

section('URL', () => {
  const cases = [
    ['https://user:pa ss@Example.COM:443/a/./b/../c%20d?q=1 2&x=é#frag ment', undefined],
    ['http://example.com:8080', undefined],
    ['HTTP://EXAMPLE.com/', undefined],
    ['../up?x#y', 'http://h/a/b/c'],
    ['//other/path', 'https://h/x'],
    ['?only', 'http://h/p?old#f'],
    ['#only', 'http://h/p?q'],
    ['', 'http://h/p?q#f'],
    ['/abs', 'http://h/a/b'],
    ['file:///tmp/a b.txt', undefined],
    ['file:/x/y', undefined],
    ['file://localhost/etc', undefined],
    ['d?q#h', 'file:///a/b/c?old'],
    ['?q', 'file:///a/b/c?old#f'],
    ['', 'file:///a/b/c?old#f'],
    ['#h', 'file:///a/b/c?old'],
    ['../d', 'file:///a/b/c'],
    ['mailto:someone@example.com', undefined],
    ['data:text/plain,hi there', undefined],
    ['blob:https://a.b/uuid', undefined],
    ['http://[::1]:80/', undefined],
    ['http://[2001:db8:0:0:1:0:0:1]/', undefined],
    ['http://[::ffff:1.2.3.4]/', undefined],
    ['http://0x7f.1/', undefined],
    ['http://192.168.257/', undefined],
    ['http://a\\b\\c', undefined],
    ['ws://h:80/', undefined],
    ['foo://host/p?q', undefined],
    ['foo:/p', undefined],
    ['http://h/%7e/%2e%2E/x', undefined],
    ['http://h/a?b=c d\'e', undefined],
    ['not a url', undefined],
    ['http://', undefined],
    ['http://h:99999/', undefined],
    ['http://exa mple.com/', undefined],
    ['https://h/p', 'not a base'],
  ];
  for (const [input, base] of cases) {
    try {
      const u = new URL(input, base);
      console.log(JSON.stringify([u.href, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash, u.origin]));
    } catch (e) {
      console.log('invalid', JSON.stringify(input), e.name, e.code, e.message);
    }
  }
  const u = new URL('https://h/p?a=1&b=2&a=3');
  u.searchParams.append('c', 'x y');
  u.searchParams.delete('b');
  u.hash = 'h';
  u.pathname = '/new path';
  u.port = '8443';
  u.hostname = 'host.example';
  u.username = 'me';
  u.protocol = 'http';
  console.log(u.href, u.searchParams.getAll('a'), u.searchParams.get('zz'), u.search);
  u.search = '?z=9';
  console.log(u.href, [...u.searchParams], String(u), JSON.stringify({ u }));
  console.log(URL.canParse('x:y'), URL.canParse('nope'), URL.canParse('/p', 'http://h'));
  const sp = new URLSearchParams('a=1&b=%20x+y&c&=d&e=%zz&a=2');
  console.log([...sp], sp.toString(), sp.size, sp.has('a', '2'), sp.get('c'));
  sp.set('a', 'é&=');
  sp.sort();
  console.log(sp.toString(), [...sp.keys()], [...sp.values()]);
  console.log(new URLSearchParams({ x: 1, y: 'two' }).toString(), new URLSearchParams([['k', 'v'], ['k', "w'()~!*"]]).toString());
  console.log(url.fileURLToPath('file:///a/b%20c'), url.pathToFileURL('/x y/z#?').href);
  try { url.fileURLToPath('http://x/'); } catch (e) { console.log(e.name, e.code); }
});

section('path', () => {
  console.log(path.join('a', 'b', '../c', './d'), path.join(), path.join('', ''), path.join('/a/', '/b/'), path.join('a', '..', '..'));
  console.log(path.normalize('/a//b/../c/.'), path.normalize(''), path.normalize('./'), path.normalize('a/..'), path.normalize('//x'));
  console.log(path.resolve('/a', 'b', '../c'), path.resolve('/x', '/y', 'z'), path.isAbsolute('/a'), path.isAbsolute('a'));
  console.log(path.relative('/a/b/c', '/a/d'), path.relative('/a', '/a/b/c'), path.relative('/a/b', '/a/b'), path.relative('/', '/x'));
  console.log(path.dirname('/a/b/c'), path.dirname('/a'), path.dirname('a'), path.dirname(''), path.dirname('//a'), path.dirname('a/b/'));
  console.log(path.basename('/a/b.txt'), path.basename('/a/b.txt', '.txt'), path.basename('/a/b/'), path.basename('b.txt', 'b.txt'), path.basename('aaa', 'a'));
  console.log(path.extname('a.b.c'), path.extname('.bashrc'), path.extname('a.'), path.extname('a'), path.extname('.a.b'), path.extname('a/.b'));
  console.log(path.parse('/home/u/file.tar.gz'), path.parse('rel/x'), path.parse('/'), path.parse('.hidden'));
  console.log(path.extname('..'), path.extname('a/b..'), path.extname('x.y/'), path.extname('/a.b//'), path.extname(''));
  console.log(path.parse('/a/b.c/'), path.parse('..'), path.parse('a.b.'), path.parse('/.x.y//'), path.parse(''), path.parse('//'));
  console.log(path.format({ dir: '/a', base: 'b.c' }), path.format({ root: '/', name: 'n', ext: 'e' }), path.format({ name: 'x', ext: '.y' }));
  console.log(path.sep, path.delimiter, path.posix === path, path.toNamespacedPath('/a'));
  try { path.join('a', 1); } catch (e) { console.log(e.name, e.code, e.message); }
});

section('timers and microtasks', async () => {
  // Only what does not depend on the clock is compared in order (a loaded
  // machine runs timers late): the queues, and the interval's ticks.
  const order = [];
  setTimeout(() => order.push('timeout 0'), 0);
  const late = new Promise((resolve) => setTimeout(() => { order.push('timeout 50'); resolve(); }, 50));
  setImmediate(() => order.push('immediate'));
  queueMicrotask(() => order.push('microtask'));
  Promise.resolve().then(() => order.push('promise'));
  process.nextTick(() => order.push('nextTick'));
  const t = setTimeout(() => order.push('cleared'), 1);
  clearTimeout(t);
  let n = 0;
  const ticks = new Promise((resolve) => {
    const iv = setInterval(() => { order.push(`interval ${++n}`); if (n === 3) { clearInterval(iv); resolve(); } }, 1);
  });
  order.push('sync');
  await Promise.all([late, ticks]);
  await sleep(5);
  const timed = new Set(['immediate', 'timeout 0', 'timeout 50']);
  console.log(order.filter((x) => !timed.has(x)).join(', '), order.includes('immediate'), order.includes('timeout 0'), order.includes('timeout 50'), order.includes('cleared'));
  const handle = setTimeout(() => {}, 1);
  console.log(typeof handle, typeof handle.ref, typeof handle.unref, handle.hasRef(), handle.unref().hasRef(), typeof +handle);
  clearTimeout(handle);
  console.log(await new Promise((r) => setTimeout(r, 1, 'arg')), await sleep(1, 'slept'));
  try { setTimeout('code', 1); } catch (e) { console.log(e.name, e.code); }
});

section('process', () => {
  console.log(process.platform, typeof process.pid, Array.isArray(process.argv), process.argv.length, typeof process.env, typeof process.cwd());
  console.log(typeof process.hrtime(), process.hrtime().length, typeof process.hrtime.bigint(), typeof process.uptime(), typeof process.memoryUsage().heapUsed);
  console.log(process.exitCode, typeof process.exit, typeof process.nextTick, typeof process.stdout.write, typeof process.stderr.write);
  process.stdout.write('written\n');
  process.stdout.write(Buffer.from('buffer written\n'));
  console.log(typeof process.stdin[Symbol.asyncIterator], process.version.startsWith('v'), typeof process.versions.node);
  process.exitCode = 0;
});

section('events', async () => {
  const e = new EventEmitter();
  const got = [];
  e.on('x', (a, b) => got.push(`on ${a} ${b}`));
  e.once('x', (a) => got.push(`once ${a}`));
  e.prependListener('x', () => got.push('first'));
  console.log(e.emit('x', 1, 2), e.emit('x', 3), e.emit('nothing'), e.listenerCount('x'), e.eventNames());
  console.log(got.join(', '));
  try { e.emit('error', new Error('unhandled')); } catch (err) { console.log('threw', err.message); }
  setTimeout(() => e.emit('later', 'v'), 1);
  console.log(await once(e, 'later'));
  class Sub extends EventEmitter {}
  const s = new Sub();
  const f = () => got.push('removed?');
  s.on('y', f); s.off('y', f);
  console.log(s.emit('y'), s instanceof EventEmitter);
});

section('assert', async () => {
  assert(true); assert.ok(1); assert.strictEqual(1, 1); assert.deepStrictEqual({ a: [1] }, { a: [1] });
  for (const f of [() => assert.strictEqual(1, 2), () => assert.deepStrictEqual([1], [2]), () => assert(false, 'msg'), () => assert.equal(1, 2)]) {
    try { f(); } catch (e) { console.log(e.name, e.code, e instanceof assert.AssertionError, e.generatedMessage); }
  }
  assert.throws(() => { throw new TypeError('t'); }, TypeError);
  assert.throws(() => { throw new Error('abc'); }, /abc/);
  await assert.rejects(Promise.reject(new Error('r')), { message: 'r' });
  console.log('assertions passed');
});

section('crypto', () => {
  console.log(crypto.createHash('sha256').update('abc').digest('hex'));
  console.log(crypto.createHash('md5').update('a').update(Buffer.from('b')).digest('base64'));
  console.log(crypto.createHash('sha1').update('').digest().length, crypto.createHmac('sha256', 'key').update('data').digest('hex'));
  console.log(crypto.randomBytes(8).length, /^[0-9a-f-]{36}$/.test(crypto.randomUUID()), crypto.getRandomValues(new Uint8Array(4)).length);
  console.log(typeof globalThis.crypto.randomUUID, crypto.timingSafeEqual(Buffer.from('a'), Buffer.from('a')));
  try { crypto.createHash('nope'); } catch (e) { console.log(e.message); }
});

section('language', async () => {
  const { a = 1, ...rest } = { b: 2, c: 3 };
  console.log(a, rest, [1, 2, 3].at(-1), [3, 1, 2].toSorted(), 'abc'.replaceAll('b', 'B'));
  console.log(2n ** 64n, 0.1 + 0.2, (123.456).toFixed(1), Number.MAX_SAFE_INTEGER, parseInt('08'), [1, [2, [3]]].flat(Infinity));
  class P { #x = 1; static s = 'static'; get x() { return this.#x; } static { P.init = true; } }
  console.log(new P().x, P.s, P.init, typeof globalThis.WeakRef, typeof FinalizationRegistry);
  async function* gen() { yield 1; yield 2; }
  const out = [];
  for await (const v of gen()) out.push(v);
  console.log(out, await Promise.allSettled([Promise.resolve(1), Promise.reject(new Error('x'))]).then((r) => r.map((x) => x.status)));
  console.log(JSON.stringify({ d: new Date(0), u: undefined, n: NaN, nested: [undefined] }), JSON.parse('{"__proto__": 1}').__proto__);
  console.log('x'.padStart(3, 'ab'), [..."𝒳y"].length, 'ß'.toUpperCase(), 'İ'.toLowerCase().length, /(?<y>\d{4})/.exec('in 2024').groups.y);
});

for (const [name, f] of sections) {
  console.log(`--- ${name}`);
  try {
    await f();
  } catch (e) {
    console.log('SECTION THREW', e?.name, e?.message);
  }
}
