package cmds

import (
	"strings"
	"testing"
)

func TestJq(t *testing.T) {
	files := map[string]string{
		"o.json":   `{"b":1,"a":[1,2.5,"x"]}` + "\n",
		"two.json": "{\"a\":1}\n{\"a\":\"x\"}\n\n",
		"arr.json": `[{"name":"x","id":2},{"name":"y","id":1}]`,
		"bad.json": "1 x\n",
		"lines":    "a\nb\n",
	}
	rows := []textRow{
		{name: "identity pretty", files: files, args: []string{"jq", ".", "o.json"},
			out: "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2.5,\n    \"x\"\n  ]\n}\n"},
		{name: "stdin field", stdin: `{"x":{"y":[1,2]}}`, args: []string{"jq", "-c", ".x.y"}, out: "[1,2]\n"},
		{name: "iterate raw", files: files, args: []string{"jq", "-r", ".[].name", "arr.json"}, out: "x\ny\n"},
		{name: "select map", files: files, args: []string{"jq", "-c", "map(select(.id > 1))", "arr.json"}, out: "[{\"name\":\"x\",\"id\":2}]\n"},
		{name: "sort keys", files: files, args: []string{"jq", "-S", "-c", ".", "o.json"}, out: "{\"a\":[1,2.5,\"x\"],\"b\":1}\n"},
		{name: "key order kept on update", stdin: `{"b":1,"a":2}`, args: []string{"jq", "-c", ".c=3"}, out: "{\"b\":1,\"a\":2,\"c\":3}\n"},
		{name: "construction order", files: files, args: []string{"jq", "-c", "{x: .b, c: 1}", "o.json"}, out: "{\"x\":1,\"c\":1}\n"},
		{name: "join", args: []string{"jq", "-jn", `"a",1,"b"`}, out: "a1b"},
		{name: "tab", args: []string{"jq", "-n", "--tab", `{"a":[1]}`}, out: "{\n\t\"a\": [\n\t\t1\n\t]\n}\n"},
		{name: "indent 1", args: []string{"jq", "-n", "--indent", "1", `{"a":[1]}`}, out: "{\n \"a\": [\n  1\n ]\n}\n"},
		{name: "indent 0", args: []string{"jq", "-n", "--indent", "0", `{"a":[1]}`}, out: "{\"a\":[1]}\n"},
		{name: "empty containers", args: []string{"jq", "-n", `{}, [], {"a":[]}`}, out: "{}\n[]\n{\n  \"a\": []\n}\n"},
		{name: "numbers", stdin: "1.0 1e1000 12345678901234567890 0.1 1e-7 3e20 1e17 1e15 1e16 0.00001 0.0001 -1e-10 1.5e300 100",
			args: []string{"jq", "-c", "."},
			out:  "1\n1.7976931348623157e+308\n12345678901234567000\n0.1\n1e-07\n3e+20\n1e+17\n1000000000000000\n1e+16\n1e-05\n0.0001\n-1e-10\n1.5e+300\n100\n"},
		{name: "string escapes", args: []string{"jq", "-n", `"a\u0000é\u007f\t"`}, out: "\"a\\u0000é\\u007f\\t\"\n"},
		{name: "ascii output", args: []string{"jq", "-n", "-a", `"é😀"`}, out: "\"\\u00e9\\ud83d\\ude00\"\n"},
		{name: "arg argjson", args: []string{"jq", "-n", "-c", "--arg", "x", "1", "--argjson", "y", `{"z":2}`, "[$x,$y]"}, out: "[\"1\",{\"z\":2}]\n"},
		{name: "ARGS", args: []string{"jq", "-n", "-c", "--arg", "a", "b", "$ARGS", "--args", "x", "y"}, out: "{\"positional\":[\"x\",\"y\"],\"named\":{\"a\":\"b\"}}\n"},
		{name: "slurpfile", files: files, args: []string{"jq", "-n", "-c", "--slurpfile", "v", "two.json", "$v"}, out: "[{\"a\":1},{\"a\":\"x\"}]\n"},
		{name: "rawfile", files: files, args: []string{"jq", "-n", "--rawfile", "v", "lines", "$v"}, out: "\"a\\nb\\n\"\n"},
		{name: "slurp", files: files, args: []string{"jq", "-s", "-c", ".", "two.json", "o.json"}, out: "[{\"a\":1},{\"a\":\"x\"},{\"b\":1,\"a\":[1,2.5,\"x\"]}]\n"},
		{name: "raw input", files: files, args: []string{"jq", "-R", ".", "lines"}, out: "\"a\"\n\"b\"\n"},
		{name: "raw slurp", files: files, args: []string{"jq", "-Rs", ".", "lines"}, out: "\"a\\nb\\n\"\n"},
		{name: "null input inputs", files: files, args: []string{"jq", "-n", "-c", "[inputs.a]", "two.json"}, out: "[1,\"x\"]\n"},
		{name: "input_filename", files: files, args: []string{"jq", "input_filename", "o.json"}, out: "\"o.json\"\n"},
		{name: "input_filename stdin", stdin: "1", args: []string{"jq", "input_filename"}, out: "\"<stdin>\"\n"},
		{name: "exit -e null", args: []string{"jq", "-e", "-n", "null"}, out: "null\n", code: 1},
		{name: "exit -e empty", args: []string{"jq", "-e", "-n", "empty"}, code: 4},
		{name: "exit -e true", args: []string{"jq", "-e", "-n", "1"}, out: "1\n"},
		{name: "error() string", args: []string{"jq", "-n", `error("x")`}, errOut: "jq: error (at <unknown>): x\n", code: 5},
		{name: "error() object", args: []string{"jq", "-n", `error({"a":1})`}, errOut: "jq: error (at <unknown>) (not a string): {\"a\":1}\n", code: 5},
		{name: "runtime error continues", files: files, args: []string{"jq", ".a + 1", "two.json"}, out: "2\n",
			errOut: "jq: error (at two.json:2): cannot add: string (\"x\") and number (1)\n", code: 5,
			skip: "gojq's error text (jq: string (\"x\") and number (1) cannot be added)"},
		{name: "halt_error", args: []string{"jq", "-n", `"bye\n"|halt_error`}, errOut: "bye\n", code: 5},
		{name: "halt_error code", args: []string{"jq", "-n", `{"a":1}|halt_error(3)`}, errOut: "{\"a\":1}\n", code: 3},
		{name: "compile error", args: []string{"jq", "-n", ".a |"}, code: 3,
			errOut: "jq: error: unexpected EOF\njq: 1 compile error\n", skip: "gojq's parser messages"},
		{name: "undefined function", args: []string{"jq", "-n", "foo"}, code: 3,
			errOut: "jq: error: function not defined: foo/0\njq: 1 compile error\n", skip: "gojq's compiler messages"},
		{name: "missing file", files: files, args: []string{"jq", "-c", ".", "nope", "o.json"}, out: "{\"b\":1,\"a\":[1,2.5,\"x\"]}\n",
			errOut: "jq: error: Could not open file nope: No such file or directory\n", code: 2},
		{name: "bad json", files: files, args: []string{"jq", ".", "bad.json"}, out: "1\n",
			errOut: "jq: error (at bad.json:1): Cannot parse input: invalid character 'x' looking for beginning of value\n", code: 4,
			skip: "jq 1.6 says: parse error: Invalid numeric literal at line 2, column 0"},
		{name: "truncated object", stdin: "{\n", args: []string{"jq", "."}, code: 4,
			errOut: "parse error: Unfinished JSON term at EOF at line 2, column 0\n"},
		{name: "truncated array", stdin: "{\"a\":\n\n  [1", args: []string{"jq", "-c", "."}, code: 4,
			errOut: "parse error: Unfinished JSON term at EOF at line 3, column 4\n"},
		{name: "truncated after a value", stdin: "1 [", args: []string{"jq", "-c", "."}, out: "1\n", code: 4,
			errOut: "parse error: Unfinished JSON term at EOF at line 1, column 3\n"},
		{name: "truncated string", stdin: "\"abc", args: []string{"jq", "."}, code: 4,
			errOut: "parse error: Unfinished string at EOF at line 1, column 4\n"},
		{name: "truncated slurp", stdin: "[1,2", args: []string{"jq", "-s", "."}, code: 4,
			errOut: "parse error: Unfinished JSON term at EOF at line 1, column 4\n"},
		{name: "module loading disabled", args: []string{"jq", "-n", `import "a" as a; 1`}, code: 3,
			errOut: "jq: error: cannot load module: \"a\"\njq: 1 compile error\n", skip: "no modules in the shell backend"},
		{name: "ENV from shell", args: []string{"jq", "-n", "-r", "$ENV.USER, env.HOME"}, out: "user\n/work\n"},
	}
	runTextRows(t, rows)
}

func TestJqFormatNumber(t *testing.T) {
	for in, want := range map[float64]string{1.25: "1.25", -0.5: "-0.5", 123456789012: "123456789012", 1e21: "1e+21", 2.5e-5: "2.5e-05"} {
		if got := jqFormatNumber(in); got != want {
			t.Errorf("%v: got %s want %s", in, got, want)
		}
	}
}

func TestJqCancel(t *testing.T) {
	checkStopsOnCancel(t, Jq, "jq", "-n", "[range(1e12)] | length")
}

func TestJqHostUntouched(t *testing.T) {
	_, errOut, code := run(t, nil, "", "jq", ".", "/etc/hostname")
	if code != 2 || !strings.Contains(errOut, "Could not open file /etc/hostname") {
		t.Fatalf("code=%d err=%q", code, errOut)
	}
	_, errOut, code = run(t, nil, "", "jq", "-n", "--rawfile", "x", "/etc/passwd", "$x")
	if code != 2 {
		t.Fatalf("code=%d err=%q", code, errOut)
	}
}
