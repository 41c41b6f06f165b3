// TextEncoder, TextDecoder, atob, btoa and DOMException. The byte work is
// done by the host (Go): host.encode(string, encoding) → ArrayBuffer,
// host.decode(bytes, encoding, fatal) → string.

const domExceptionCodes = {
  IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
  NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
  SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
  TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
  QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
};

class DOMException extends Error {
  constructor(message = '', options = 'Error') {
    super(String(message));
    const name = typeof options === 'object' && options !== null ? String(options.name ?? 'Error') : String(options);
    Object.defineProperty(this, 'name', { value: name, configurable: true, writable: true, enumerable: false });
    if (typeof options === 'object' && options !== null && 'cause' in options) {
      Object.defineProperty(this, 'cause', { value: options.cause, configurable: true, writable: true, enumerable: false });
    }
  }
  get code() { return domExceptionCodes[this.name] || 0; }
}

function bytesOf(input, name) {
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (typeof SharedArrayBuffer === 'function' && input instanceof SharedArrayBuffer) return new Uint8Array(input);
  throw invalidArgType(name, 'an instance of ArrayBuffer or ArrayBufferView', input);
}

const decoderLabels = {
  'utf-8': 'utf-8', 'utf8': 'utf-8', 'unicode-1-1-utf-8': 'utf-8', 'unicode11utf8': 'utf-8', 'unicode20utf8': 'utf-8', 'x-unicode20utf8': 'utf-8',
  'utf-16le': 'utf-16le', 'utf-16': 'utf-16le', 'ucs-2': 'utf-16le', 'unicode': 'utf-16le', 'csunicode': 'utf-16le', 'iso-10646-ucs-2': 'utf-16le', 'unicodefeff': 'utf-16le',
  'latin1': 'windows-1252', 'iso-8859-1': 'windows-1252', 'iso8859-1': 'windows-1252', 'iso88591': 'windows-1252', 'ascii': 'windows-1252', 'us-ascii': 'windows-1252', 'windows-1252': 'windows-1252', 'cp1252': 'windows-1252', 'l1': 'windows-1252', 'iso_8859-1': 'windows-1252', 'x-cp1252': 'windows-1252',
};

// incompleteTail returns how many bytes at the end of b start a UTF-8
// sequence that more bytes could complete.
function incompleteTail(b) {
  const n = b.length;
  for (let i = 1; i <= 3 && i <= n; i++) {
    const c = b[n - i];
    if ((c & 0xc0) === 0x80) continue;
    const need = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 1;
    return need > i ? i : 0;
  }
  return 0;
}

class TextDecoder {
  #encoding; #fatal; #ignoreBOM; #pending = null; #bomSeen = false;
  constructor(label = 'utf-8', options = {}) {
    const enc = decoderLabels[String(label).trim().toLowerCase()];
    if (!enc) throw nodeError(RangeError, 'ERR_ENCODING_NOT_SUPPORTED', `The "${label}" encoding is not supported`);
    this.#encoding = enc;
    this.#fatal = Boolean(options?.fatal);
    this.#ignoreBOM = Boolean(options?.ignoreBOM);
  }
  get encoding() { return this.#encoding; }
  get fatal() { return this.#fatal; }
  get ignoreBOM() { return this.#ignoreBOM; }
  decode(input = new Uint8Array(0), options = {}) {
    let b = bytesOf(input, 'input');
    const stream = Boolean(options?.stream);
    if (this.#pending) {
      const joined = new Uint8Array(this.#pending.length + b.length);
      joined.set(this.#pending);
      joined.set(b, this.#pending.length);
      b = joined;
      this.#pending = null;
    }
    if (stream) {
      const keep = this.#encoding === 'utf-8' ? incompleteTail(b) : this.#encoding === 'utf-16le' ? b.length % 2 : 0;
      if (keep) {
        this.#pending = b.slice(b.length - keep);
        b = b.subarray(0, b.length - keep);
      }
    }
    let s;
    if (this.#encoding === 'utf-8') s = host.decode(b, this.#fatal ? 'utf8-fatal' : 'utf8');
    else if (this.#encoding === 'utf-16le') s = host.decode(b, 'utf16le');
    else s = host.decode(b, 'latin1');
    if (!this.#ignoreBOM && !this.#bomSeen && s.charCodeAt(0) === 0xfeff && this.#encoding !== 'windows-1252') s = s.slice(1);
    if (s.length) this.#bomSeen = true;
    if (!stream) this.#bomSeen = false;
    return s;
  }
  get [Symbol.toStringTag]() { return 'TextDecoder'; }
}

class TextEncoder {
  get encoding() { return 'utf-8'; }
  encode(input = '') {
    return new Uint8Array(host.encode(String(input), 'utf8'));
  }
  encodeInto(src, dest) {
    src = String(src);
    if (!(dest instanceof Uint8Array)) throw invalidArgType('dest', 'an instance of Uint8Array', dest);
    const all = this.encode(src);
    if (all.length <= dest.length) {
      dest.set(all);
      return { read: src.length, written: all.length };
    }
    let read = 0, written = 0;
    for (const ch of src) {
      const cp = ch.codePointAt(0);
      const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (written + n > dest.length) break;
      dest.set(this.encode(ch), written);
      written += n;
      read += ch.length;
    }
    return { read, written };
  }
  get [Symbol.toStringTag]() { return 'TextEncoder'; }
}

function btoa(input) {
  if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "input" argument must be specified');
  input = `${input}`;
  for (let i = 0; i < input.length; i++) {
    if (input.charCodeAt(i) > 0xff) throw new DOMException('Invalid character', 'InvalidCharacterError');
  }
  return host.decode(new Uint8Array(host.encode(input, 'latin1')), 'base64');
}

function atob(input) {
  if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "input" argument must be specified');
  let s = `${input}`.replace(/[\t\n\f\r ]/g, '');
  if (s.length % 4 === 0) s = s.replace(/==?$/, '');
  if (/[^A-Za-z0-9+/]/.test(s)) throw new DOMException('Invalid character', 'InvalidCharacterError');
  if (s.length % 4 === 1) {
    throw new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
  }
  return host.decode(new Uint8Array(host.encode(s, 'base64')), 'latin1');
}
