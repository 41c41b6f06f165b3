// node:crypto, a small part: createHash and createHmac (md5, sha1, sha256,
// sha384, sha512), randomBytes, randomUUID, getRandomValues, timingSafeEqual;
// and the global crypto (randomUUID, getRandomValues).

class Hash {
  #alg; #key; #parts = []; #done = false;
  constructor(alg, key) {
    validateString(alg, 'algorithm');
    this.#alg = alg.toLowerCase();
    if (!host.hashSupported(this.#alg)) throw nodeError(Error, 'ERR_OSSL_EVP_UNSUPPORTED', 'Digest method not supported');
    this.#key = key;
  }
  update(data, encoding) {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    if (typeof data === 'string') this.#parts.push(new Uint8Array(host.encode(data, normEncoding(encoding))));
    else if (ArrayBuffer.isView(data)) this.#parts.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice());
    else throw invalidArgType('data', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
    return this;
  }
  digest(encoding) {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    this.#done = true;
    const b = new FastBuffer(host.hash(this.#alg, Buffer.concat(this.#parts), this.#key === undefined ? null : this.#key));
    return encoding === undefined || encoding === 'buffer' ? b : b.toString(encoding);
  }
}

function keyBytes(key) {
  if (typeof key === 'string') return new Uint8Array(host.encode(key, 'utf8'));
  if (ArrayBuffer.isView(key)) return new Uint8Array(key.buffer, key.byteOffset, key.byteLength);
  throw invalidArgType('key', 'of type string or an instance of Buffer, TypedArray, or DataView', key);
}

function getRandomValues(a) {
  if (!ArrayBuffer.isView(a) || a instanceof Float32Array || a instanceof Float64Array || a instanceof DataView) {
    throw new DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
  }
  if (a.byteLength > 65536) throw new DOMException(`The ArrayBufferView's byte length (${a.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, 'QuotaExceededError');
  new Uint8Array(a.buffer, a.byteOffset, a.byteLength).set(new Uint8Array(host.randomBytes(a.byteLength)));
  return a;
}

function randomUUID() {
  const b = new Uint8Array(host.randomBytes(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = host.decode(b, 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const makeCryptoModule = once(() => ({
  createHash: (alg) => new Hash(alg),
  createHmac: (alg, key) => new Hash(alg, keyBytes(key)),
  randomBytes(n, cb) {
    validateInteger(n, 'size', 0, 2 ** 31 - 1);
    const b = new FastBuffer(host.randomBytes(n));
    if (typeof cb === 'function') { setImmediate(cb, null, b); return undefined; }
    return b;
  },
  randomUUID,
  getRandomValues,
  randomInt(min, max) {
    if (max === undefined) { max = min; min = 0; }
    const r = new Uint32Array(host.randomBytes(4))[0] / 2 ** 32;
    return min + Math.floor(r * (max - min));
  },
  timingSafeEqual(a, b) {
    if (a.byteLength !== b.byteLength) throw nodeError(RangeError, 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH', 'Input buffers must have the same byte length');
    return compareBytes(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array(b.buffer, b.byteOffset, b.byteLength)) === 0;
  },
  getHashes: () => ['md5', 'sha1', 'sha256', 'sha384', 'sha512'],
  webcrypto: { getRandomValues, randomUUID },
}));
