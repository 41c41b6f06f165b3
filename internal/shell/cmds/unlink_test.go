package cmds

import "testing"

// TestUnlink_gnu: unlink as GNU unlink, on files, links, FIFOs and what
// it refuses.
func TestUnlink_gnu(t *testing.T) {
	files := map[string]string{"a": "a\n", "d/": "", "d/x": "x\n", "e/": "", "l": "->a", "ld": "->d", "dl": "->nowhere"}
	var cases []foCase
	add := func(name string, args ...string) {
		cases = append(cases, foCase{name: name, files: files, args: append([]string{"unlink"}, args...)})
	}
	add("file", "a")
	add("in a directory", "d/x")
	add("symlink", "l")
	add("symlink to a directory", "ld")
	add("dangling symlink", "dl")
	add("missing", "nope")
	add("missing parent", "nope/x")
	add("parent is a file", "a/x")
	add("directory", "e")
	add("directory slash", "e/")
	add("file slash", "a/")
	add("symlink slash", "l/")
	add("symlink to a directory slash", "ld/")
	add("missing slash", "nope/")
	add("root", "/")
	add("dash name", "--", "-x")
	add("two", "a", "d/x")
	add("none")
	add("bad option", "-z", "a")
	add("help", "--help")
	add("help abbreviated", "--he")
	cases = append(cases, foCase{name: "fifo", files: files, prep: [][]string{{"mkfifo", "p"}}, args: []string{"unlink", "p"}},
		foCase{name: "hard link", files: files, prep: [][]string{{"ln", "a", "b"}}, args: []string{"unlink", "a"}})
	foRunGNU(t, cases)
}
