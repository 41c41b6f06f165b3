// Timers. The host keeps the queue (due times, intervals, whether a timer
// keeps the execution alive) and calls internals.fire(id) when one is due.

const timerCallbacks = new Map();
let nextTimerId = 1;

class Timeout {
  #id; #repeat; #ref = true;
  constructor(id, repeat) { this.#id = id; this.#repeat = repeat; }
  ref() { this.#ref = true; host.timerRef(this.#id, true); return this; }
  unref() { this.#ref = false; host.timerRef(this.#id, false); return this; }
  hasRef() { return this.#ref; }
  refresh() { host.timerRefresh(this.#id); return this; }
  close() { clearTimeout(this.#id); return this; }
  [Symbol.toPrimitive]() { return this.#id; }
  [kCustomInspect]() { return `Timeout { id: ${this.#id}${this.#repeat ? ', repeat: true' : ''} }`; }
}

class Immediate {
  #id;
  constructor(id) { this.#id = id; }
  ref() { host.timerRef(this.#id, true); return this; }
  unref() { host.timerRef(this.#id, false); return this; }
  hasRef() { return true; }
  [Symbol.toPrimitive]() { return this.#id; }
}

function timerDelay(delay) {
  delay = Number(delay);
  return delay >= 1 && delay <= 2 ** 31 - 1 ? Math.trunc(delay) : 1;
}

function addTimer(cb, delay, args, repeat) {
  validateFunction(cb, 'callback');
  const id = nextTimerId++;
  timerCallbacks.set(id, { cb, args, repeat });
  host.timerStart(id, delay, repeat);
  return id;
}

function setTimeout(cb, delay, ...args) { return new Timeout(addTimer(cb, timerDelay(delay), args, false), false); }
function setInterval(cb, delay, ...args) { return new Timeout(addTimer(cb, timerDelay(delay), args, true), true); }
function setImmediate(cb, ...args) { return new Immediate(addTimer(cb, 0, args, false)); }

function clearTimer(t) {
  if (t === undefined || t === null) return;
  const id = typeof t === 'object' ? t[Symbol.toPrimitive]?.() : Number(t);
  if (typeof id === 'number' && timerCallbacks.delete(id)) host.timerClear(id);
}
function clearTimeout(t) { clearTimer(t); }
function clearInterval(t) { clearTimer(t); }
function clearImmediate(t) { clearTimer(t); }

internals.fire = function fire(id) {
  const t = timerCallbacks.get(id);
  if (t === undefined) return;
  if (!t.repeat) timerCallbacks.delete(id);
  Reflect.apply(t.cb, undefined, t.args);
};

function queueMicrotask(cb) {
  validateFunction(cb, 'callback');
  Promise.resolve().then(() => cb());
}

const makeTimersModule = once(() => ({
  setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate,
}));

const makeTimersPromisesModule = once(() => ({
  setTimeout: (delay, value) => new Promise((resolve) => setTimeout(resolve, delay, value)),
  setImmediate: (value) => new Promise((resolve) => setImmediate(resolve, value)),
  async *setInterval(delay, value) {
    for (;;) yield await new Promise((resolve) => setTimeout(resolve, delay, value));
  },
  scheduler: { wait: (delay) => new Promise((resolve) => setTimeout(resolve, delay)), yield: () => new Promise((resolve) => setImmediate(resolve)) },
}));
