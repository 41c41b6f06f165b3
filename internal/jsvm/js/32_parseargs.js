// util.parseArgs, after Node's lib/internal/util/parse_args: long and short
// options, --name=value and -nVALUE, grouped short booleans, multiple,
// default, strict (unknown options and positionals refused), "--".
// args defaults to process.argv after the script (none in an execution).

function parseArgs(config = {}) {
  validateObject(config, 'config');
  const args = config.args ?? makeProcess().argv.slice(2);
  const options = config.options ?? {};
  const strict = config.strict ?? true;
  const allowPositionals = config.allowPositionals ?? !strict;
  const err = (code, msg) => nodeError(TypeError, code, msg);
  const shortToLong = new Map();
  for (const [name, o] of Object.entries(options)) {
    validateObject(o, `options.${name}`);
    if (o.type !== 'string' && o.type !== 'boolean') throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The property 'options.${name}.type' must be one of: 'string', 'boolean'. Received ${inspect(o.type)}`);
    if (o.short !== undefined) shortToLong.set(o.short, name);
  }
  const values = { __proto__: null };
  const positionals = [];
  const dash = (name) => (name.length === 1 && !options[name] ? `-${name}` : `--${name}`);
  const store = (name, value, given) => {
    const o = options[name];
    if (o === undefined) {
      if (strict) {
        const shown = given.startsWith('--') ? given : `-${given.replace(/^-/, '')}`;
        throw err('ERR_PARSE_ARGS_UNKNOWN_OPTION', `Unknown option '${shown}'${given.startsWith('--') ? '' : ''}`);
      }
      values[name] = value ?? true;
      return;
    }
    if (strict) {
      if (o.type === 'string' && typeof value !== 'string') {
        throw err('ERR_PARSE_ARGS_INVALID_OPTION_VALUE', `Option '${o.short ? `-${o.short}, ` : ''}--${name} <value>' argument missing`);
      }
      if (o.type === 'boolean' && value !== undefined) {
        throw err('ERR_PARSE_ARGS_INVALID_OPTION_VALUE', `Option '${o.short ? `-${o.short}, ` : ''}--${name}' does not take an argument`);
      }
    }
    const v = value ?? true;
    if (o.multiple) (values[name] ??= []).push(v);
    else values[name] = v;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      const rest = args.slice(i + 1);
      if (rest.length && !allowPositionals && strict) throw err('ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL', `Unexpected argument '${rest[0]}'. This command does not take positional arguments`);
      positionals.push(...rest);
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      let value = eq < 0 ? undefined : a.slice(eq + 1);
      if (value === undefined && options[name]?.type === 'string' && i + 1 < args.length) value = args[++i];
      store(name, value, eq < 0 ? a : a.slice(0, eq));
    } else if (a.startsWith('-') && a.length > 1) {
      const first = a[1];
      const long = shortToLong.get(first) ?? first;
      if (options[long]?.type === 'string') {
        let value = a.length > 2 ? a.slice(2) : undefined;
        if (value === undefined && i + 1 < args.length) value = args[++i];
        store(long, value, `-${first}`);
      } else {
        for (const ch of a.slice(1)) store(shortToLong.get(ch) ?? ch, undefined, `-${ch}`);
      }
    } else {
      if (!allowPositionals) throw err('ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL', `Unexpected argument '${a}'. This command does not take positional arguments`);
      positionals.push(a);
    }
  }
  for (const [name, o] of Object.entries(options)) {
    if (o.default !== undefined && values[name] === undefined) values[name] = o.default;
  }
  void dash;
  return { values, positionals };
}
