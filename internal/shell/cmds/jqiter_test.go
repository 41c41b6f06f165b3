package cmds

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/itchyny/gojq"
)

// jqIterSeeds are filters for FuzzJqOrderIterations: iterations in every
// kind of place the syntax allows one.
var jqIterSeeds = []string{
	`.[]`, `.[]?`, `.a[]`, `.a[]?.b`, `[.[][]]`, `.[] |= 1`, `del(.[] | select(. == 1))`,
	`path(.[])`, `[paths]`, `[..]`, `tostream`, `map(.)`, `add`, `{a: .[]}`, `"\(.[])"`,
	`reduce .[] as $x (0; . + 1)`, `[foreach .[] as $x (0; . + 1)]`, `.[.[]?]?`, `def f: .[]; [f]`,
	`try .[] catch .`, `if .[] then 1 else 2 end`, `[.[] as [$a] | $a]`, `.. |= .`, `[limit(2; .[])]`,
	`.[1:][]`, `[.[]?, 1] | .[]`, `label $l | .[] | ., break $l`, `to_entries, tojson, tostring`,
}

// FuzzJqOrderIterations: the rewrite of a filter's iterations
// (jqOrderIterations, with jqOrderedSource's definitions) changes nothing
// but the order in which an object's keys are visited. On inputs whose
// objects have one key each, the rewritten filter gives exactly what gojq
// gives for the filter as written, errors included (not their texts). A
// run that does not end within a short bound is not compared.
func FuzzJqOrderIterations(f *testing.F) {
	for _, s := range jqIterSeeds {
		f.Add(s)
	}
	inputs := []any{nil, 1.5, "s", []any{1, []any{2, map[string]any{"a": 3}}, "t", nil}, map[string]any{"k": []any{map[string]any{"x": nil}}}}
	f.Fuzz(func(t *testing.T, filter string) {
		if len(filter) > 200 || jqFilterDepth(filter) > MaxJqDepth {
			return
		}
		plain, err := gojq.Parse(filter)
		if err != nil {
			return
		}
		rewritten, _ := gojq.Parse(filter)
		jqOrderIterations(rewritten)
		rewritten.FuncDefs = append(slices.Clip(jqOrderedDefs()), rewritten.FuncDefs...)
		order := newJqKeyOrder(filter)
		want, errWant := gojq.Compile(plain)
		got, errGot := gojq.Compile(rewritten,
			gojq.WithFunction("keys_unsorted", 0, 0, func(v any, _ []any) any { return jqKeysUnsorted(v, order) }),
			gojq.WithFunction("_desk_tostring", 0, 0, func(v any, _ []any) any {
				if s, ok := v.(string); ok {
					return s
				}
				return jqCompact(v, order)
			}),
			gojq.WithFunction("_desk_tojson", 0, 0, func(v any, _ []any) any { return jqCompact(v, order) }))
		if (errWant == nil) != (errGot == nil) {
			t.Fatalf("%q: compiles %v as written, %v rewritten", filter, errWant, errGot)
		}
		if errWant != nil {
			return
		}
		for _, in := range inputs {
			w, wok := jqFuzzRun(want, in)
			g, gok := jqFuzzRun(got, in)
			if wok && gok && !reflect.DeepEqual(w, g) {
				t.Fatalf("%q on %v:\n as written: %v\n rewritten:  %v", filter, in, w, g)
			}
		}
	})
}

// jqFuzzRun runs code on v: its first 50 outputs, up to an error;
// false when it did not end within a short bound.
func jqFuzzRun(code *gojq.Code, v any) ([]string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var out []string
	iter := code.RunWithContext(ctx, v)
	for len(out) < 50 {
		x, ok := iter.Next()
		if !ok {
			break
		}
		if _, ok := x.(error); ok {
			if ctx.Err() != nil {
				return nil, false
			}
			// The texts may differ: desk's keys_unsorted says what jq says.
			out = append(out, "error")
			break
		}
		out = append(out, fmt.Sprintf("%#v", x))
	}
	return out, ctx.Err() == nil
}
