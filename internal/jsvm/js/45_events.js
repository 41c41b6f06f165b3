// node:events: EventEmitter (on, once, off, emit, listeners...), and once().

class EventEmitter {
  #events = new Map();
  #max = 10;
  static defaultMaxListeners = 10;
  static captureRejections = false;
  static errorMonitor = Symbol('events.errorMonitor');
  static once(emitter, name) {
    return new Promise((resolve, reject) => {
      const onError = (err) => { emitter.off?.(name, onEvent); reject(err); };
      const onEvent = (...args) => { if (name !== 'error') emitter.off?.('error', onError); resolve(args); };
      emitter.once(name, onEvent);
      if (name !== 'error') emitter.once('error', onError);
    });
  }
  static listenerCount(emitter, name) { return emitter.listenerCount(name); }
  #add(name, fn, prepend) {
    validateFunction(fn, 'listener');
    if (this.#events.has('newListener')) this.emit('newListener', name, fn.listener ?? fn);
    const list = this.#events.get(name) ?? [];
    if (prepend) list.unshift(fn); else list.push(fn);
    this.#events.set(name, list);
    return this;
  }
  on(name, fn) { return this.#add(name, fn, false); }
  addListener(name, fn) { return this.#add(name, fn, false); }
  prependListener(name, fn) { return this.#add(name, fn, true); }
  #wrapOnce(name, fn) {
    validateFunction(fn, 'listener');
    const self = this;
    function wrapper(...args) { self.off(name, wrapper); return fn.apply(this, args); }
    wrapper.listener = fn;
    return wrapper;
  }
  once(name, fn) { return this.#add(name, this.#wrapOnce(name, fn), false); }
  prependOnceListener(name, fn) { return this.#add(name, this.#wrapOnce(name, fn), true); }
  off(name, fn) {
    const list = this.#events.get(name);
    if (!list) return this;
    const i = list.findLastIndex((f) => f === fn || f.listener === fn);
    if (i !== -1) {
      list.splice(i, 1);
      if (list.length === 0) this.#events.delete(name);
      if (this.#events.has('removeListener')) this.emit('removeListener', name, fn);
    }
    return this;
  }
  removeListener(name, fn) { return this.off(name, fn); }
  removeAllListeners(name) {
    if (name === undefined) this.#events.clear(); else this.#events.delete(name);
    return this;
  }
  emit(name, ...args) {
    const list = this.#events.get(name);
    if (!list || list.length === 0) {
      if (name === 'error') {
        const err = args[0];
        if (err instanceof Error) throw err;
        const e = nodeError(Error, 'ERR_UNHANDLED_ERROR', `Unhandled error. (${inspect(err)})`);
        e.context = err;
        throw e;
      }
      return false;
    }
    for (const f of [...list]) f.apply(this, args);
    return true;
  }
  listeners(name) { return (this.#events.get(name) ?? []).map((f) => f.listener ?? f); }
  rawListeners(name) { return [...(this.#events.get(name) ?? [])]; }
  listenerCount(name) { return (this.#events.get(name) ?? []).length; }
  eventNames() { return [...this.#events.keys()]; }
  setMaxListeners(n) { this.#max = n; return this; }
  getMaxListeners() { return this.#max; }
}
EventEmitter.EventEmitter = EventEmitter;

const makeEventsModule = once(() => {
  const m = EventEmitter;
  m.default = EventEmitter;
  return m;
});
