// node:os, describing the execution's world rather than the host's: one
// CPU (the engine runs on one thread), the engine's memory limit as the
// machine's memory, no network interfaces, root in the cwd's workspace.

const makeOsModule = once(() => {
  const env = () => makeProcess().env;
  const signals = Object.freeze({
    SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGTRAP: 5, SIGABRT: 6, SIGIOT: 6, SIGBUS: 7, SIGFPE: 8,
    SIGKILL: 9, SIGUSR1: 10, SIGSEGV: 11, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15, SIGCHLD: 17,
    SIGSTKFLT: 16, SIGCONT: 18, SIGSTOP: 19, SIGTSTP: 20, SIGTTIN: 21, SIGTTOU: 22, SIGURG: 23, SIGXCPU: 24,
    SIGXFSZ: 25, SIGVTALRM: 26, SIGPROF: 27, SIGWINCH: 28, SIGIO: 29, SIGPOLL: 29, SIGPWR: 30, SIGSYS: 31,
  });
  const priority = Object.freeze({ PRIORITY_LOW: 19, PRIORITY_BELOW_NORMAL: 10, PRIORITY_NORMAL: 0, PRIORITY_ABOVE_NORMAL: -7, PRIORITY_HIGH: -14, PRIORITY_HIGHEST: -20 });
  const errno = Object.freeze(Object.fromEntries(Object.entries({
    E2BIG: 7, EACCES: 13, EADDRINUSE: 98, EADDRNOTAVAIL: 99, EAGAIN: 11, EBADF: 9, EBUSY: 16, ECONNREFUSED: 111,
    ECONNRESET: 104, EEXIST: 17, EINTR: 4, EINVAL: 22, EIO: 5, EISDIR: 21, ELOOP: 40, EMFILE: 24, ENAMETOOLONG: 36,
    ENOENT: 2, ENOMEM: 12, ENOSPC: 28, ENOSYS: 38, ENOTDIR: 20, ENOTEMPTY: 39, EPERM: 1, EPIPE: 32, EROFS: 30,
    ESPIPE: 29, ETIMEDOUT: 110, EXDEV: 18,
  })));
  const cpu = () => ({ model: 'desk js engine', speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } });
  const os = {
    EOL: '\n',
    devNull: '/dev/null',
    constants: Object.freeze({ signals, errno, priority, UV_UDP_REUSEADDR: 4, dlopen: Object.freeze({ RTLD_LAZY: 1, RTLD_NOW: 2, RTLD_GLOBAL: 256, RTLD_LOCAL: 0 }) }),
    arch: () => config.arch,
    platform: () => 'linux',
    type: () => 'Linux',
    release: () => 'desk',
    version: () => 'desk js backend',
    machine: () => ({ x64: 'x86_64', arm64: 'aarch64', ia32: 'i686' })[config.arch] ?? config.arch,
    endianness: () => 'LE',
    hostname: () => 'desk',
    homedir: () => env().HOME || config.cwd,
    tmpdir: () => {
      let t = env().TMPDIR || env().TMP || env().TEMP || '/tmp';
      if (t.length > 1 && t.endsWith('/')) t = t.slice(0, -1);
      return t;
    },
    userInfo: (options) => {
      const enc = options?.encoding;
      const u = { uid: 0, gid: 0, username: 'root', homedir: env().HOME || config.cwd, shell: null };
      if (enc === 'buffer') {
        u.username = Buffer.from(u.username);
        u.homedir = Buffer.from(u.homedir);
      }
      return u;
    },
    cpus: () => [cpu()],
    availableParallelism: () => 1,
    totalmem: () => config.maxMemory,
    freemem: () => Math.max(0, config.maxMemory - host.memoryUsed()),
    loadavg: () => [0, 0, 0],
    uptime: () => Math.floor(makeProcess().uptime()),
    networkInterfaces: () => ({}),
    getPriority: () => 0,
    setPriority: () => {
      throw nodeError(Error, 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM', 'os.setPriority() is not available in the js backend');
    },
  };
  return os;
});
