package cmds

import (
	"reflect"
	"sync"

	"github.com/itchyny/gojq"
)

// jqOrderedSource defines, in jq, the builtins that go through an object's
// keys in jq 1.6's order (the input's, as keys_unsorted reconstructs it)
// where gojq's own go in sorted order: gojq's objects are Go maps and its
// iteration (.[]) sorts their keys. _desk_iter is .[] in input order; the
// filter's own .[] are rewritten to call it (jqOrderIterations). The
// builtins kept under a _desk_ name are gojq's, captured before their
// redefinition (jq's definitions are lexically scoped); _desk_tostring and
// _desk_tojson are Go functions printing with the output's key order.
const jqOrderedSource = `def _desk_iter: if type == "object" then keys_unsorted[] as $k | .[$k] else .[] end;
def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];
def with_entries(f): to_entries | map(f) | from_entries;
def map(f): [_desk_iter | f];
def _desk_add: add;
def add: if type == "object" then [_desk_iter] | _desk_add else _desk_add end;
def recurse: recurse(_desk_iter?);
def paths: path(..) | select(. != []);
def paths(f): path(.. | select(f)) | select(. != []);
def leaf_paths: paths(scalars);
def tostring: _desk_tostring;
def tojson: _desk_tojson;
def tostream: path(def r: (_desk_iter? | r), .; r) as $p | getpath($p) | reduce path(_desk_iter?) as $q ([$p, .]; [$p + $q]);
.`

// jqOrderedDefs returns jqOrderedSource's definitions, parsed once: gojq
// does not change a syntax tree it compiles (its Query.Run compiles one
// tree in many goroutines), and a run adds them to its own query's list.
// Parsing them for each run cost about 0.2 ms (measured at a high load).
var jqOrderedDefs = sync.OnceValue(func() []*gojq.FuncDef {
	q, err := gojq.Parse(jqOrderedSource)
	if err != nil {
		panic("parse jqOrderedSource: " + err.Error())
	}
	return q.FuncDefs
})

// jqOrderIterations rewrites every iteration suffix of q (X[], X[]?) into a
// call of _desk_iter (X | _desk_iter, X | _desk_iter?), so the filter's own
// .[] goes through an object in its keys' input order. The rewritten term
// keeps the suffixes after the iteration, and a ? after it guards only the
// iteration, as gojq compiles X[]?. The walk goes through every node of the
// syntax tree by reflection (gojq's tree is exported structs, slices and
// pointers), so no kind of node is missed; its depth is bounded by
// MaxJqDepth, checked on the filter's text before parsing.
func jqOrderIterations(q *gojq.Query) {
	jqWalkTerms(reflect.ValueOf(q), jqOrderTerm)
}

var jqTermType = reflect.TypeOf(gojq.Term{})

// jqWalkTerms calls f on every *gojq.Term reachable from v, parents before
// their children.
func jqWalkTerms(v reflect.Value, f func(*gojq.Term)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Elem().Type() == jqTermType {
			f(v.Interface().(*gojq.Term))
		}
		jqWalkTerms(v.Elem(), f)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				jqWalkTerms(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			jqWalkTerms(v.Index(i), f)
		}
	}
}

// jqOrderTerm rewrites t's first iteration suffix; the suffixes after it
// stay on the rewritten term, where the walk's descent into the new
// subquery's parent finds the next one.
func jqOrderTerm(t *gojq.Term) {
	for i, s := range t.SuffixList {
		if !s.Iter {
			continue
		}
		call := &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: "_desk_iter"}}
		rest := t.SuffixList[i+1:]
		if len(rest) > 0 && rest[0].Optional && rest[0].Index == nil && !rest[0].Iter {
			call.SuffixList = []*gojq.Suffix{rest[0]}
			rest = rest[1:]
		}
		base := *t
		base.SuffixList = t.SuffixList[:i]
		*t = gojq.Term{
			Type: gojq.TermTypeQuery,
			Query: &gojq.Query{
				Op:    gojq.OpPipe,
				Left:  &gojq.Query{Term: &base},
				Right: &gojq.Query{Term: call},
			},
			SuffixList: rest,
		}
		jqOrderTerm(t) // the next iteration among rest
		return
	}
}
