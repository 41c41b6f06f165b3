package jsvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/run"
)

// HostModule is a built-in module implemented in Go, imported by its
// specifier (Options.HostModules): the seam for desk:git and the like.
type HostModule interface {
	// Functions returns the module's exported functions for one execution
	// (ctx and job are the execution's: use ctx for every store call).
	// Each becomes an async JavaScript function whose arguments travel as
	// a JSON array and whose result travels back as JSON.
	Functions(ctx context.Context, job *run.Job) map[string]HostFunc
}

// HostFunc is one function of a HostModule. args is the JSON array of the
// call's arguments; the result is JSON (nil: undefined). An error rejects
// the call's promise with an Error carrying its text, its Code() as the
// code property when it has one, and the properties of its Props() (a
// map of JSON values, set in key order) when it has them.
type HostFunc func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// hostModuleFuncs returns the functions of host module spec for this
// execution, asking the module once.
func (x *execution) hostModuleFuncs(spec string) map[string]HostFunc {
	if fns, ok := x.hostMods[spec]; ok {
		return fns
	}
	if x.hostMods == nil {
		x.hostMods = map[string]map[string]HostFunc{}
	}
	fns := x.o.HostModules[spec].Functions(x.ctx, x.job)
	x.hostMods[spec] = fns
	return fns
}

// loadHostModule makes the exports of host module spec.
func (x *execution) loadHostModule(spec string) (*qjs.Module, error) {
	fns := x.hostModuleFuncs(spec)
	names := make([]string, 0, len(fns))
	for n := range fns {
		names = append(names, n)
	}
	slices.Sort(names)
	list, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	arr, err := x.c.ParseJSON(list)
	if err != nil {
		return nil, err
	}
	return x.nativeModule(x.callInternal("hostModule", x.str(spec), arr))
}

func init() {
	hostFuncs["callHost"] = hostCallHost
}

// hostCallHost is host.callHost(module, function, argsJSON) → result JSON.
func hostCallHost(x *execution, args []qjs.Value) (qjs.Value, error) {
	spec, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	name, err := x.argString(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	in, err := x.argString(args, 2)
	if err != nil {
		return qjs.Undefined, err
	}
	f := x.hostModuleFuncs(spec)[name]
	if f == nil {
		return qjs.Undefined, fmt.Errorf("%s has no function %s", spec, name)
	}
	out, err := f(x.ctx, json.RawMessage(in))
	if err != nil {
		var coded interface{ Code() string }
		var withProps interface{ Props() map[string]any }
		var props []prop
		if errors.As(err, &coded) {
			props = append(props, prop{"code", coded.Code()})
		}
		if errors.As(err, &withProps) {
			m := withProps.Props()
			keys := make([]string, 0, len(m))
			for k := range m {
				if k != "code" && k != "message" && k != "stack" {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				props = append(props, prop{k, m[k]})
			}
		}
		return qjs.Undefined, x.jsError("Error", "", err.Error(), props, true)
	}
	if out == nil {
		return qjs.Undefined, nil
	}
	if !json.Valid(out) {
		return qjs.Undefined, fmt.Errorf("%s.%s returned invalid JSON", spec, name)
	}
	return x.c.String(string(out))
}
