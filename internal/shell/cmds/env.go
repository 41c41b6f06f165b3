package cmds

import (
	"fmt"
	"sort"
	"strings"
)

func init() {
	Register("env", EnvCmd)
	Register("printenv", Printenv)
}

// EnvCmd is env: without a command it prints the environment (Env.Environ)
// with the changes applied; `env [-i] [-u NAME] [NAME=VALUE]... CMD ARGS`
// runs CMD through Env.Exec with an Env whose Getenv and Environ carry the
// changes. -i (or a lone "-") starts from an empty environment, -0 ends
// output lines with NUL, -C DIR runs in DIR. Exit 125 for env's own errors,
// else the command's status.
func EnvCmd(env *Env, args []string) int {
	rest := args[1:]
	opts, ops, ok := parseOpts(env, "env", rest, optSpec{shorts: "iu:0C:vS:",
		longs: []string{"ignore-environment", "unset=", "null", "chdir=", "debug", "split-string="}, stop: true})
	if !ok {
		return 125
	}
	clear := false
	nul := false
	var unset []string
	dir := ""
	for _, o := range opts {
		switch o.name {
		case "i", "ignore-environment":
			clear = true
		case "u", "unset":
			if o.val == "" || strings.Contains(o.val, "=") {
				env.Errorf("env", "cannot unset %s: Invalid argument", quote(env, o.val))
				return 125
			}
			unset = append(unset, o.val)
		case "0", "null":
			nul = true
		case "C", "chdir":
			dir = o.val
		case "S", "split-string":
			ops = append(strings.Fields(o.val), ops...)
		}
	}
	if len(ops) > 0 && ops[0] == "-" {
		clear = true
		ops = ops[1:]
	}
	vars := map[string]string{}
	var order []string
	if !clear {
		for _, kv := range env.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			if _, dup := vars[k]; !dup {
				order = append(order, k)
			}
			vars[k] = v
		}
	}
	for _, u := range unset {
		delete(vars, u)
	}
	for len(ops) > 0 && strings.Contains(ops[0], "=") && !strings.HasPrefix(ops[0], "=") {
		k, v, _ := strings.Cut(ops[0], "=")
		if _, dup := vars[k]; !dup {
			order = append(order, k)
		}
		vars[k] = v
		ops = ops[1:]
	}
	var list []string
	for _, k := range order {
		if v, ok := vars[k]; ok {
			list = append(list, k+"="+v)
		}
	}
	list = dedupe(list)
	if len(ops) == 0 {
		if dir != "" {
			env.Errorf("env", "must specify command with --chdir (-C)")
			tryHelp(env, "env", "")
			return 125
		}
		end := "\n"
		if nul {
			end = "\x00"
		}
		for _, kv := range list {
			fmt.Fprint(env.Stdout, kv+end)
		}
		return 0
	}
	if nul {
		env.Errorf("env", "cannot specify --null (-0) with command")
		tryHelp(env, "env", "")
		return 125
	}
	child := *env
	sorted := append([]string(nil), list...)
	sort.Strings(sorted)
	child.Environ = func() []string { return append([]string(nil), sorted...) }
	child.Getenv = func(name string) string { return vars[name] }
	if dir != "" {
		abs := env.Abs(dir)
		fi, err := env.FS.Stat(env.Ctx, abs)
		if err == nil && !fi.IsDir() {
			err = gnuMessage("Not a directory")
		}
		if err != nil {
			env.Errorf("env", "cannot change directory to %s: %s", quote(env, dir), Strerror(err))
			return 125
		}
		child.Dir = abs
	}
	status := env.Exec(env.Ctx, &child, ops)
	if status == NotFound {
		env.Errorf("env", "%s: No such file or directory", quote(env, ops[0]))
		return 127
	}
	return status
}

// dedupe keeps the first of each NAME= in list.
func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0]
	for _, kv := range list {
		k, _, _ := strings.Cut(kv, "=")
		if !seen[k] {
			seen[k] = true
			out = append(out, kv)
		}
	}
	return out
}

// Printenv prints the values of the named variables (exit 1 if one is not
// set), or the whole environment without arguments; -0 ends lines with NUL.
func Printenv(env *Env, args []string) int {
	opts, names, ok := parseOpts(env, "printenv", args[1:], optSpec{shorts: "0", longs: []string{"null"}})
	if !ok {
		return 2
	}
	end := "\n"
	if len(opts) > 0 {
		end = "\x00"
	}
	all := env.Environ()
	if len(names) == 0 {
		for _, kv := range all {
			fmt.Fprint(env.Stdout, kv+end)
		}
		return 0
	}
	status := 0
	for _, n := range names {
		found := false
		if !strings.Contains(n, "=") {
			for _, kv := range all {
				if k, v, _ := strings.Cut(kv, "="); k == n {
					fmt.Fprint(env.Stdout, v+end)
					found = true
					break
				}
			}
		}
		if !found {
			status = 1
		}
	}
	return status
}
