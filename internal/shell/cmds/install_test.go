package cmds

import (
	"context"
	"testing"
)

// TestInstall_gnu: install's forms, options, messages and statuses, and
// the files, modes and owners it leaves, as GNU install.
func TestInstall_gnu(t *testing.T) {
	files := map[string]string{"s": "hi\n", "s2": "two\n", "dd/": "", "have": "old\n", "dd/s": "old s\n",
		"ls": "->s", "dl": "->nowhere", "f": "file\n"}
	var cases []foCase
	add := func(name string, args ...string) {
		cases = append(cases, foCase{name: name, files: files, args: append([]string{"install"}, args...)})
	}
	add("file", "-v", "s", "dst")
	add("replace", "-v", "s", "have")
	add("into directory", "-v", "s", "s2", "dd")
	add("into directory slash", "-v", "s", "dd/")
	add("target directory", "-v", "-t", "dd", "s", "s2")
	add("target directory D", "-vD", "-t", "n/m", "s", "s2")
	add("leading D", "-Dv", "s", "p/q/r")
	add("leading D exists", "-D", "s", "dd/x")
	add("leading D through a file", "-D", "s", "f/x")
	add("dirs", "-d", "-v", "x/y/z", "dd")
	add("dirs mode", "-v", "-m", "700", "-d", "md", "dd")
	add("dirs dotdot", "-dv", "dd/../w")
	add("dirs over a file", "-d", "f")
	add("dirs under a file", "-d", "f/x")
	add("mode octal", "-m", "644", "s", "m1")
	add("mode symbolic", "-m", "u+x", "s", "m2")
	add("mode symbolic all", "-m", "+x", "s", "m3")
	add("mode invalid", "-m", "9", "s", "m4")
	add("owner and group", "-o", "1234", "-g", "2345", "s", "own")
	add("owner root", "-o", "root", "-g", "root", "s", "own")
	add("owner hex", "-o", "0x10", "s", "own")
	add("owner invalid", "-o", "nosuch", "s", "own")
	add("group invalid", "-g", "nosuch", "s", "own")
	add("compare same", "-C", "-v", "s", "dd/s2")
	add("compare differs", "-Cv", "s", "have")
	add("preserve", "-p", "s", "pt")
	add("ignored c", "-c", "-v", "s", "cc")
	add("symlink source", "-v", "ls", "lsc")
	add("symlink destination", "-v", "s", "ls")
	add("dangling destination", "-v", "s", "dl")
	add("backup", "-b", "-v", "s", "have")
	add("backup suffix", "-S", ".bak", "-v", "s", "have")
	add("backup numbered", "--backup=numbered", "-v", "s", "have")
	add("backup invalid", "--backup=bogus", "s", "have")
	add("backup none", "--backup=none", "-v", "s", "have")
	add("same file", "s", "s")
	add("missing source", "nope", "dst")
	add("source directory", "dd", "dst")
	add("no parent", "s", "nodir/x")
	add("overwrite directory", "-T", "s", "dd")
	add("not a directory", "s", "s2", "f")
	add("target missing", "-t", "nodir", "s")
	add("target is a file", "-t", "f", "s")
	add("extra operand with T", "-T", "s", "s2", "x")
	add("target with d", "-d", "a", "-t", "x")
	add("file as directory", "s", "f/")
	add("missing destination", "s")
	add("missing operand", "")
	add("d without operands", "-d")
	add("compare and preserve", "-C", "-p", "s", "x")
	add("bad option", "-q", "s", "x")
	add("help", "--help")
	cases = append(cases, foCase{name: "nothing", files: files, args: []string{"install"}})
	cases = append(cases, foCase{name: "compare same after install", files: files,
		prep: [][]string{{"install", "s", "dd/s2"}}, args: []string{"install", "-C", "-v", "s", "dd/s2"}})
	foRunGNU(t, cases)
}

// TestInstall_strip: -s fails as GNU install does when it cannot run the
// strip program (the shell backend has none), and leaves no file.
func TestInstall_strip(t *testing.T) {
	f := newStore(t, map[string]string{"s": "hi\n"})
	out, errs, st := runIn(t, f, "/work", "", "install", "-s", "s", "st")
	if out != "" || errs != "install: cannot run 'strip': No such file or directory\n" || st != 1 {
		t.Errorf("out %q err %q status %d", out, errs, st)
	}
	if _, err := f.Lstat(context.Background(), "/work/st"); !fuIsNotExist(err) {
		t.Errorf("st left behind: %v", err)
	}
}
