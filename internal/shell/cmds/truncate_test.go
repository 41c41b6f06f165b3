package cmds

import "testing"

var truncateFiles = map[string]string{"a": "0123456789", "b": "xyz", "d/": "", "d/e": "hello\n"}

// TestTruncate_gnu: truncate's sizes, modifiers, options and errors, as
// GNU truncate makes them.
func TestTruncate_gnu(t *testing.T) {
	var cases []foCase
	add := func(name string, args ...string) {
		cases = append(cases, foCase{name: name, files: truncateFiles, args: append([]string{"truncate"}, args...)})
	}
	add("shrink", "-s", "4", "a")
	add("extend", "-s", "20", "a", "b")
	add("create", "-s", "3", "new")
	add("create empty", "--size=0", "new", "a")
	add("no create", "-c", "-s", "3", "new", "a")
	add("no create long", "--no-create", "--size", "3", "new")
	add("plus", "-s", "+5", "a")
	add("minus", "-s", "-3", "a")
	add("minus past zero", "-s", "-30", "a")
	add("at most", "-s", "<5", "a", "b")
	add("at least", "-s", ">5", "a", "b")
	add("round down", "-s", "/4", "a", "b")
	add("round up", "-s", "%4", "a", "b")
	add("blanks", "-s", " < 5", "a")
	add("suffix K", "-s", "1K", "a")
	add("suffix KB", "-s", "2KB", "a")
	add("suffix KiB", "-s", "1KiB", "a")
	add("suffix alone", "-s", "K", "a")
	add("suffix g lower", "-s", "0g", "a")
	add("io blocks", "-o", "-s", "2", "a")
	add("io blocks round up", "-o", "-s", "%1", "a")
	add("reference", "-r", "a", "b")
	add("reference relative", "-r", "b", "-s", "+2", "a")
	add("reference missing", "-r", "nope", "a")
	add("reference not relative", "-r", "b", "-s", "2", "a")
	add("no size", "a")
	add("io blocks without size", "-o", "-r", "a", "b")
	add("no operand", "-s", "1")
	add("invalid", "-s", "5X", "a")
	add("invalid empty", "-s", "", "a")
	add("invalid hex", "-s", "0x10", "a")
	add("invalid second suffix", "-s", "5Ki", "a")
	add("overflow", "-s", "99999999999999999999", "a")
	add("overflow suffix", "-s", "9Y", "a")
	add("too large", "-s", "7E", "a")
	add("two modifiers", "-s", "<+5", "a")
	add("division by zero", "-s", "/0", "a")
	add("missing dir", "-s", "1", "nope/x")
	add("missing dir no create", "-c", "-s", "1", "nope/x")
	add("directory", "-s", "1", "d", "a")
	add("trailing slash", "-s", "1", "a/")
	add("missing with slash", "-s", "1", "new/")
	add("bad option", "-z", "a")
	add("missing argument", "a", "-s")
	add("help", "--help")
	foRunGNU(t, cases)
}
