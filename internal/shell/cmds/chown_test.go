package cmds

import "testing"

// chownFiles is the fixture of chown's and chgrp's rows: owners 1234 and
// up have no name on the host either (the workspace's only name is root).
var chownFiles = map[string]string{"a": "a\n", "b": "b\n", "d/": "", "d/e": "e\n", "d/sub/": "", "d/sub/x": "x\n",
	"l": "->a", "dl": "->nowhere", "ld": "->d", "d/sub/up": "->..", "d/la": "->../a"}

var chownPrep = [][]string{{"chown", "-h", "1234:2345", "b", "l"}}

// TestChown_gnu: chown's specs, options, messages and statuses, and the
// owners it leaves, as GNU chown.
func TestChown_gnu(t *testing.T) {
	var cases []foCase
	add := func(name string, args ...string) {
		cases = append(cases, foCase{name: name, files: chownFiles, prep: chownPrep, args: append([]string{"chown"}, args...), unordered: true})
	}
	add("user", "3456", "a")
	add("user and group", "3456:4567", "a", "b")
	add("group only", ":4567", "a")
	add("root", "root", "b")
	add("root login group", "root:", "b")
	add("root:root", "-v", "root:root", "b")
	add("numeric login group", "3456:", "a")
	add("dot", "3456.4567", "a")
	add("dot alone", "3456.", "a")
	add("empty spec", "", "a")
	add("empty spec verbose", "-v", "", "a")
	add("colon alone", "-v", ":", "a")
	add("invalid user", "nosuch", "a")
	add("invalid group", "3456:nosuch", "a")
	add("uid -1", "4294967295", "a")
	add("uid max", "4294967294", "a")
	add("negative", "--", "-1", "a")
	add("plus", "+3456", "a")
	add("verbose", "-v", "3456", "a", "b")
	add("changes", "-c", "1234", "a", "b")
	add("verbose group", "-v", ":2345", "a", "b")
	add("recursive", "-R", "3456:4567", "d")
	add("recursive verbose", "-Rv", "3456", "d")
	add("recursive changes", "-Rc", "0:2345", "d", "a")
	add("recursive slash", "-Rv", "3456", "d/")
	add("symlink followed", "3456", "l")
	add("symlink no dereference", "-h", "3456", "l")
	add("symlink verbose", "-v", "3456", "l")
	add("dangling", "3456", "dl")
	// (-v of a dangling symlink: GNU prints the owner from a stat buffer
	// the failed stat left as it was, garbage: TestChown_danglingVerbose.)
	add("dangling no dereference", "-hv", "3456", "dl")
	add("recursive symlink", "-Rv", "3456", "ld", "l")
	add("recursive H", "-RHv", "3456", "ld")
	add("recursive L", "-RLv", "3456", "ld")
	add("recursive dereference", "-R", "--dereference", "3456", "d")
	add("missing", "3456", "nope", "a")
	add("missing silent", "-f", "3456", "nope")
	add("missing verbose", "-v", "3456", "nope")
	add("missing silent verbose", "-fv", "3456", "nope")
	add("from match", "-v", "--from=1234", "3456", "a", "b")
	add("from group", "--from=:2345", "3456", "a", "b")
	add("from both", "-v", "--from=1234:2345", ":0", "b")
	add("from invalid", "--from=nosuch", "3456", "a")
	add("reference", "--reference=b", "a")
	add("reference verbose", "-v", "--reference=b", "a", "b")
	add("reference missing", "--reference=nope", "a")
	add("missing operand", "3456")
	add("no operand", "")
	add("operand alone", "x")
	add("nothing")
	add("bad option", "-x", "3456", "a")
	add("help", "--help")
	foRunGNU(t, cases)
}

// TestChgrp_gnu: chgrp as GNU chgrp.
func TestChgrp_gnu(t *testing.T) {
	var cases []foCase
	add := func(name string, args ...string) {
		cases = append(cases, foCase{name: name, files: chownFiles, prep: chownPrep, args: append([]string{"chgrp"}, args...), unordered: true})
	}
	add("group", "4567", "a", "b")
	add("root", "-v", "root", "a", "b")
	add("empty", "-v", "", "a")
	add("gid -1", "-v", "4294967295", "a")
	add("invalid", "nosuch", "a")
	add("negative", "--", "-1", "a")
	add("changes", "-c", "2345", "a", "b")
	add("recursive", "-Rv", "4567", "d")
	add("no dereference", "-hv", "4567", "l", "dl")
	add("dangling", "4567", "dl")
	add("missing", "-v", "4567", "nope")
	add("reference", "-v", "--reference=b", "a")
	add("from is chown's", "--from=1", "4567", "a")
	add("missing operand", "4567")
	add("help", "--help")
	foRunGNU(t, cases)
}

// TestChown_danglingVerbose: -v of a symlink whose target is missing says
// the change failed, from root: GNU prints the owner from the stat buffer
// its failed stat did not fill (an arbitrary number), desk from a zeroed
// one.
func TestChown_danglingVerbose(t *testing.T) {
	out, errs, st := run(t, chownFiles, "", "chown", "-v", "3456", "dl")
	if out != "failed to change ownership of 'dl' from root to 3456\n" || errs != "chown: cannot dereference 'dl': No such file or directory\n" || st != 1 {
		t.Errorf("out %q err %q status %d", out, errs, st)
	}
}
