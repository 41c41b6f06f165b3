package cmds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// jqDecodeAll decodes every value of data, with the direct parser or (slow)
// with encoding/json's tokenizer only, as values, the line after each, and
// the error that ended it.
func jqDecodeAll(data []byte, slow bool) (vals []any, lines []int, errText string, order *jqKeyOrder) {
	in := &jqInputs{}
	d := in.newDecoder(data)
	order = in.order
	if slow {
		d.slow = json.NewDecoder(bytes.NewReader(data))
		d.slow.UseNumber()
	}
	for range 1000 {
		v, err := d.value()
		if err == io.EOF {
			return vals, lines, "", order
		}
		if err != nil {
			return vals, append(lines, d.line()), err.Error(), order
		}
		vals = append(vals, v)
		lines = append(lines, d.line())
	}
	return vals, lines, "too many values", order
}

// checkJqDecode fails when the direct parser and the tokenizer disagree on
// data in any way the command can show: values, lines, errors, key order.
func checkJqDecode(t *testing.T, data []byte) {
	t.Helper()
	fv, fl, fe, forder := jqDecodeAll(data, false)
	sv, sl, se, sorder := jqDecodeAll(data, true)
	if !reflect.DeepEqual(fv, sv) || !reflect.DeepEqual(fl, sl) || fe != se {
		t.Errorf("%q:\ndirect    %#v lines %v err %q\ntokenizer %#v lines %v err %q", data, fv, fl, fe, sv, sl, se)
	}
	var fo, so strings.Builder
	for _, v := range fv {
		fmt.Fprint(&fo, jqOrderedKeys(forder, v))
	}
	for _, v := range sv {
		fmt.Fprint(&so, jqOrderedKeys(sorder, v))
	}
	if fo.String() != so.String() {
		t.Errorf("%q: key order %s, tokenizer %s", data, fo.String(), so.String())
	}
}

// jqOrderedKeys lists the keys of every object in v in output order.
func jqOrderedKeys(order *jqKeyOrder, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		keys := order.keys(v, false)
		out = append(out, keys...)
		for _, k := range keys {
			out = append(out, jqOrderedKeys(order, v[k])...)
		}
	case []any:
		for _, x := range v {
			out = append(out, jqOrderedKeys(order, x)...)
		}
	}
	return out
}

var jqDecodeCases = []string{
	``, ` `, "\n\n", `1`, `1 2 3`, "1\n2\n3\n", `12`, `01`, `-01`, `-0`, `-`, `--1`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E2`,
	`1e-7`, `0.5e-1`, `123456789012345678`, `1234567890123456789`, `-123456789012345678`, `12345678901234567890`,
	`1e1000`, `-1e1000`, `true`, `false`, `null`, `tru`, `truefalse`, `nul`, `nullx`, `1x`, `x`, `"`, `"a`, `"a"`,
	`"a\"b"`, `"a\\"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\udc00x"`, `"\x"`, `"\u12"`, "\"a\tb\"", "\"\x01\"",
	"\"\xff\"", "\"é\"", "\"\xe9\"", `"a\/b"`, `[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[1,2`, `[1,2]]`, `[[[]]]`, `{}`,
	`{ }`, `{"a":1}`, `{"a" : 1 , "b" : [ 2 ] }`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `{"b":1,"a":2,"b":3}`,
	`[{"y":1,"x":2},{"y":3,"x":4},{"x":5,"y":6}]`, `{"a":{"c":1,"b":2},"d":[{"f":1,"e":2}]}`, "[1,2]\n\n{\"a\":\n x}",
	"{\"a\":1}\n{\"a\":\"x\"}\n\n", "1 x\n", `[1,2.5,"x",true,null,{"k":[]}]`, "\ufeff1", "\r\n1\r\n", "\v1", `1}`, `]`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// TestJqDecode: the direct parser gives what encoding/json's tokenizer
// gives (the decoder before it) on well-formed and malformed text.
func TestJqDecode(t *testing.T) {
	for _, c := range jqDecodeCases {
		checkJqDecode(t, []byte(c))
	}
}

func FuzzJqDecode(f *testing.F) {
	for _, c := range jqDecodeCases {
		if len(c) < 200 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkJqDecode(t, data)
	})
}
