// node:buffer: Buffer, a Uint8Array whose methods follow Node's. Encoding
// and decoding are done by the host.

const bufferEncodings = {
  utf8: 'utf8', 'utf-8': 'utf8', hex: 'hex', base64: 'base64', base64url: 'base64url',
  latin1: 'latin1', binary: 'latin1', ascii: 'ascii',
  ucs2: 'utf16le', 'ucs-2': 'utf16le', utf16le: 'utf16le', 'utf-16le': 'utf16le',
};

function normEncoding(enc) {
  if (enc === undefined || enc === null || enc === '') return 'utf8';
  const e = bufferEncodings[enc] ?? bufferEncodings[String(enc).toLowerCase()];
  if (!e) throw nodeError(TypeError, 'ERR_UNKNOWN_ENCODING', `Unknown encoding: ${enc}`);
  return e;
}

const kMaxLength = 2 ** 32;

class FastBuffer extends Uint8Array {}

function Buffer(arg, encodingOrOffset, length) {
  if (typeof arg === 'number') {
    if (typeof encodingOrOffset === 'string') {
      throw invalidArgType('string', 'of type string', arg);
    }
    return Buffer.alloc(arg);
  }
  return Buffer.from(arg, encodingOrOffset, length);
}
FastBuffer.prototype.constructor = Buffer;
Buffer.prototype = FastBuffer.prototype;
Object.setPrototypeOf(Buffer, Uint8Array);
Object.defineProperty(Buffer, 'name', { value: 'Buffer' });

function checkSize(size) {
  if (typeof size !== 'number') throw invalidArgType('size', 'of type number', size);
  if (!(size >= 0 && size <= kMaxLength)) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "size" is out of range. It must be >= 0 && <= ${kMaxLength}. Received ${inspect(size)}`);
  }
}

function fromString(s, enc) {
  return new FastBuffer(host.encode(s, normEncoding(enc)));
}

function fromArrayLike(a) {
  const n = a.length >>> 0;
  const b = new FastBuffer(n);
  for (let i = 0; i < n; i++) b[i] = a[i];
  return b;
}

Buffer.from = function from(value, encodingOrOffset, length) {
  if (typeof value === 'string') return fromString(value, encodingOrOffset);
  if (typeof value === 'object' && value !== null) {
    if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer)) {
      const off = encodingOrOffset === undefined ? 0 : Number(encodingOrOffset) || 0;
      if (off > value.byteLength) throw nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', '"offset" is outside of buffer bounds');
      const len = length === undefined ? value.byteLength - off : Number(length) || 0;
      if (off + len > value.byteLength) throw nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', '"length" is outside of buffer bounds');
      return new FastBuffer(value, off, len);
    }
    if (value instanceof Uint8Array) {
      const b = new FastBuffer(value.length);
      b.set(value);
      return b;
    }
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return fromArrayLike(value);
    const prim = value.valueOf?.();
    if (prim != null && prim !== value && (typeof prim === 'string' || typeof prim === 'object')) {
      return Buffer.from(prim, encodingOrOffset, length);
    }
    if (typeof value.length === 'number' || Array.isArray(value)) return fromArrayLike(value);
    if (value.type === 'Buffer' && Array.isArray(value.data)) return fromArrayLike(value.data);
    if (typeof value[Symbol.toPrimitive] === 'function') {
      const p = value[Symbol.toPrimitive]('string');
      if (typeof p === 'string') return fromString(p, encodingOrOffset);
    }
  }
  throw invalidArgType('first argument',
    'of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object', value);
};

Buffer.alloc = function alloc(size, fill, encoding) {
  checkSize(size);
  const b = new FastBuffer(size);
  if (fill !== undefined && fill !== 0 && size > 0) b.fill(fill, 0, b.length, encoding);
  return b;
};
Buffer.allocUnsafe = function allocUnsafe(size) { checkSize(size); return new FastBuffer(size); };
Buffer.allocUnsafeSlow = Buffer.allocUnsafe;
Buffer.isBuffer = function isBuffer(b) { return b instanceof Buffer; };
Buffer.isEncoding = function isEncoding(enc) {
  return typeof enc === 'string' && enc !== '' && (bufferEncodings[enc] ?? bufferEncodings[enc.toLowerCase()]) !== undefined;
};
Buffer.byteLength = function byteLength(s, enc) {
  if (typeof s !== 'string') {
    if (ArrayBuffer.isView(s) || s instanceof ArrayBuffer) return s.byteLength;
    throw invalidArgType('string', 'of type string or an instance of Buffer or ArrayBuffer', s);
  }
  return host.byteLength(s, normEncoding(enc));
};
Buffer.concat = function concat(list, totalLength) {
  if (!Array.isArray(list)) throw invalidArgType('list', 'an instance of Array', list);
  if (totalLength === undefined) {
    totalLength = 0;
    for (let i = 0; i < list.length; i++) {
      if (!(list[i] instanceof Uint8Array)) throw invalidArgType(`list[${i}]`, 'an instance of Buffer or Uint8Array', list[i]);
      totalLength += list[i].length;
    }
  }
  const out = Buffer.alloc(totalLength);
  let pos = 0;
  for (let i = 0; i < list.length && pos < totalLength; i++) {
    const b = list[i];
    if (!(b instanceof Uint8Array)) throw invalidArgType(`list[${i}]`, 'an instance of Buffer or Uint8Array', b);
    const n = Math.min(b.length, totalLength - pos);
    out.set(n === b.length ? b : b.subarray(0, n), pos);
    pos += n;
  }
  return out;
};
Buffer.compare = function compare(a, b) {
  if (!(a instanceof Uint8Array)) throw invalidArgType('buf1', 'an instance of Buffer or Uint8Array', a);
  if (!(b instanceof Uint8Array)) throw invalidArgType('buf2', 'an instance of Buffer or Uint8Array', b);
  return compareBytes(a, b);
};
Buffer.poolSize = 8192;

function compareBytes(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function clampRange(len, start, end) {
  start = start === undefined ? 0 : Math.trunc(Number(start)) || 0;
  end = end === undefined ? len : Math.trunc(Number(end)) || 0;
  if (start < 0) start = 0;
  if (end > len) end = len;
  return [start, Math.max(start, end)];
}

function checkOffset(buf, offset, n) {
  if (offset === undefined) offset = 0;
  if (typeof offset !== 'number') throw invalidArgType('offset', 'of type number', offset);
  if (!Number.isInteger(offset)) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "offset" is out of range. It must be an integer. Received ${offset}`);
  }
  if (offset < 0 || offset + n > buf.length) {
    if (buf.length - n < 0) throw nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', 'Attempt to access memory outside buffer bounds');
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "offset" is out of range. It must be >= 0 and <= ${buf.length - n}. Received ${offset}`);
  }
  return offset;
}

function view(buf) { return new DataView(buf.buffer, buf.byteOffset, buf.byteLength); }

const proto = Buffer.prototype;

proto.toString = function toString(encoding, start, end) {
  if (arguments.length === 0) return host.decode(this, 'utf8');
  const [s, e] = clampRange(this.length, start, end);
  return host.decode(s === 0 && e === this.length ? this : this.subarray(s, e), normEncoding(encoding));
};
proto.toLocaleString = proto.toString;
proto.toJSON = function toJSON() { return { type: 'Buffer', data: Array.from(this) }; };
proto.equals = function equals(other) {
  if (!(other instanceof Uint8Array)) throw invalidArgType('otherBuffer', 'an instance of Buffer or Uint8Array', other);
  return compareBytes(this, other) === 0;
};
proto.compare = function compare(target, tStart, tEnd, sStart, sEnd) {
  if (!(target instanceof Uint8Array)) throw invalidArgType('target', 'an instance of Buffer or Uint8Array', target);
  const [ts, te] = clampRange(target.length, tStart, tEnd);
  const [ss, se] = clampRange(this.length, sStart, sEnd);
  return compareBytes(this.subarray(ss, se), target.subarray(ts, te));
};
proto.slice = function slice(start, end) {
  const len = this.length;
  start = start === undefined ? 0 : Math.trunc(Number(start)) || 0;
  end = end === undefined ? len : Math.trunc(Number(end)) || 0;
  if (start < 0) start = Math.max(len + start, 0); else if (start > len) start = len;
  if (end < 0) end = Math.max(len + end, 0); else if (end > len) end = len;
  if (end < start) end = start;
  return new FastBuffer(this.buffer, this.byteOffset + start, end - start);
};
proto.write = function write(string, offset, length, encoding) {
  validateString(string, 'string');
  if (typeof offset === 'string') { encoding = offset; offset = 0; length = this.length; }
  else if (typeof length === 'string') { encoding = length; length = undefined; }
  offset = offset === undefined ? 0 : offset >>> 0;
  if (offset > this.length) throw nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', '"offset" is outside of buffer bounds');
  const room = this.length - offset;
  length = length === undefined ? room : Math.min(length >>> 0, room);
  const enc = normEncoding(encoding);
  let bytes = new Uint8Array(host.encode(string, enc));
  if (bytes.length > length) {
    bytes = bytes.subarray(0, length);
    if (enc === 'utf8') bytes = bytes.subarray(0, bytes.length - incompleteTail(bytes));
    else if (enc === 'utf16le') bytes = bytes.subarray(0, bytes.length - (bytes.length % 2));
  }
  this.set(bytes, offset);
  return bytes.length;
};
proto.fill = function fill(value, offset, end, encoding) {
  if (typeof offset === 'string') { encoding = offset; offset = 0; end = this.length; }
  else if (typeof end === 'string') { encoding = end; end = this.length; }
  const [s, e] = clampRange(this.length, offset, end);
  if (typeof value === 'number') {
    Uint8Array.prototype.fill.call(this, value & 255, s, e);
    return this;
  }
  if (typeof value === 'boolean') {
    Uint8Array.prototype.fill.call(this, Number(value), s, e);
    return this;
  }
  const bytes = typeof value === 'string' ? new Uint8Array(host.encode(value, normEncoding(encoding))) : value instanceof Uint8Array ? value : new Uint8Array(0);
  if (bytes.length === 0) {
    if (typeof value === 'string' && value.length > 0) {
      throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'value' is invalid. Received '${value}'`);
    }
    Uint8Array.prototype.fill.call(this, 0, s, e);
    return this;
  }
  for (let i = s, j = 0; i < e; i++, j = (j + 1) % bytes.length) this[i] = bytes[j];
  return this;
};
function needleBytes(value, encoding) {
  if (typeof value === 'string') return new Uint8Array(host.encode(value, normEncoding(encoding)));
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'number') return new Uint8Array([value & 255]);
  throw invalidArgType('value', 'one of type number or string or an instance of Buffer or Uint8Array', value);
}
proto.indexOf = function indexOf(value, byteOffset, encoding) {
  if (typeof byteOffset === 'string') { encoding = byteOffset; byteOffset = 0; }
  const n = needleBytes(value, encoding);
  let from = byteOffset === undefined ? 0 : Math.trunc(Number(byteOffset)) || 0;
  if (from < 0) from = Math.max(this.length + from, 0);
  if (n.length === 0) return from <= this.length ? from : this.length;
  outer: for (let i = from; i <= this.length - n.length; i++) {
    for (let j = 0; j < n.length; j++) if (this[i + j] !== n[j]) continue outer;
    return i;
  }
  return -1;
};
proto.lastIndexOf = function lastIndexOf(value, byteOffset, encoding) {
  if (typeof byteOffset === 'string') { encoding = byteOffset; byteOffset = undefined; }
  const n = needleBytes(value, encoding);
  let from = byteOffset === undefined ? this.length - n.length : Math.trunc(Number(byteOffset));
  if (from < 0) from = this.length + from;
  from = Math.min(from, this.length - n.length);
  outer: for (let i = from; i >= 0; i--) {
    for (let j = 0; j < n.length; j++) if (this[i + j] !== n[j]) continue outer;
    return i;
  }
  return -1;
};
proto.includes = function includes(value, byteOffset, encoding) {
  return this.indexOf(value, byteOffset, encoding) !== -1;
};
proto.copy = function copy(target, targetStart = 0, sourceStart = 0, sourceEnd = this.length) {
  if (!(target instanceof Uint8Array)) throw invalidArgType('target', 'an instance of Buffer or Uint8Array', target);
  targetStart = Math.max(0, Math.trunc(targetStart) || 0);
  sourceStart = Math.max(0, Math.trunc(sourceStart) || 0);
  sourceEnd = Math.min(this.length, Math.trunc(sourceEnd) || 0);
  if (targetStart >= target.length || sourceStart >= sourceEnd) return 0;
  const n = Math.min(sourceEnd - sourceStart, target.length - targetStart);
  target.set(this.subarray(sourceStart, sourceStart + n), targetStart);
  return n;
};
function swapN(buf, n) {
  if (buf.length % n !== 0) {
    throw nodeError(RangeError, 'ERR_INVALID_BUFFER_SIZE', `Buffer size must be a multiple of ${n * 8}-bits`);
  }
  for (let i = 0; i < buf.length; i += n) {
    for (let a = i, b = i + n - 1; a < b; a++, b--) { const t = buf[a]; buf[a] = buf[b]; buf[b] = t; }
  }
  return buf;
}
proto.swap16 = function swap16() { return swapN(this, 2); };
proto.swap32 = function swap32() { return swapN(this, 4); };
proto.swap64 = function swap64() { return swapN(this, 8); };

// Numeric reads and writes, little and big endian, with Node's names.
const numeric = [
  ['UInt8', 1, 'Uint8'], ['Int8', 1, 'Int8'],
  ['UInt16', 2, 'Uint16'], ['Int16', 2, 'Int16'],
  ['UInt32', 4, 'Uint32'], ['Int32', 4, 'Int32'],
  ['Float', 4, 'Float32'], ['Double', 8, 'Float64'],
  ['BigUInt64', 8, 'BigUint64'], ['BigInt64', 8, 'BigInt64'],
];
for (const [name, size, dv] of numeric) {
  const ends = size === 1 ? [''] : ['LE', 'BE'];
  for (const end of ends) {
    const little = end === 'LE';
    const read = function (offset) {
      offset = checkOffset(this, offset, size);
      return view(this)[`get${dv}`](offset, little);
    };
    const write = function (value, offset) {
      offset = checkOffset(this, offset, size);
      view(this)[`set${dv}`](offset, dv.startsWith('Big') ? BigInt(value) : Number(value), little);
      return offset + size;
    };
    proto[`read${name}${end}`] = read;
    proto[`write${name}${end}`] = write;
    if (name.startsWith('UInt') || name.startsWith('BigUInt')) {
      const alias = name.replace('UInt', 'Uint');
      proto[`read${alias}${end}`] = read;
      proto[`write${alias}${end}`] = write;
    }
  }
}
for (const [end, little] of [['LE', true], ['BE', false]]) {
  const readU = function (offset, byteLength) {
    offset = checkOffset(this, offset, byteLength);
    let v = 0;
    for (let i = 0; i < byteLength; i++) {
      const b = this[offset + (little ? i : byteLength - 1 - i)];
      v += b * 2 ** (8 * i);
    }
    return v;
  };
  proto[`readUInt${end}`] = proto[`readUint${end}`] = readU;
  proto[`readInt${end}`] = function (offset, byteLength) {
    const v = readU.call(this, offset, byteLength);
    const limit = 2 ** (8 * byteLength - 1);
    return v >= limit ? v - 2 * limit : v;
  };
  const writeU = function (value, offset, byteLength) {
    offset = checkOffset(this, offset, byteLength);
    let v = Number(value);
    if (v < 0) v += 2 ** (8 * byteLength);
    for (let i = 0; i < byteLength; i++) {
      this[offset + (little ? i : byteLength - 1 - i)] = Math.floor(v / 2 ** (8 * i)) & 255;
    }
    return offset + byteLength;
  };
  proto[`writeUInt${end}`] = proto[`writeUint${end}`] = writeU;
  proto[`writeInt${end}`] = writeU;
}

Object.defineProperty(proto, kCustomInspect, {
  value: function (depth, options) {
    const max = 50;
    let s = '';
    for (let i = 0; i < Math.min(max, this.length); i++) s += (i ? ' ' : '') + this[i].toString(16).padStart(2, '0');
    if (this.length > max) s += ` ... ${this.length - max} more byte${this.length - max > 1 ? 's' : ''}`;
    return `<${this.constructor === Buffer ? 'Buffer' : this.constructor.name} ${s}>`;
  },
  enumerable: false, writable: true, configurable: true,
});

const makeBufferModule = once(() => ({
  Buffer,
  SlowBuffer: Buffer.allocUnsafeSlow,
  kMaxLength,
  kStringMaxLength: 2 ** 29 - 24,
  constants: { MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: 2 ** 29 - 24 },
  INSPECT_MAX_BYTES: 50,
  atob,
  btoa,
  isUtf8: (b) => host.isUtf8(bytesOf(b, 'input')),
  isAscii: (b) => bytesOf(b, 'input').every((c) => c < 0x80),
}));
