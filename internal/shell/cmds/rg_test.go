package cmds

import "testing"

// rgTree is a small project: a git repository with a .gitignore, hidden
// files, a binary file and a few languages.
var rgTree = map[string]string{
	".git/":            "",
	".gitignore":       "build/\n*.log\n!keep.log\n",
	".hidden.txt":      "TODO hidden\n",
	"a.go":             "package a\n// TODO: fix\nfunc A() {}\n",
	"b.py":             "# todo lower\nprint('TODO')\n",
	"build/out.go":     "TODO in build\n",
	"x.log":            "TODO in log\n",
	"keep.log":         "TODO kept\n",
	"sub/c.md":         "one\ntwo TODO\nthree\nfour\nfive\nsix TODO\n",
	"bin.dat":          "TODO\x00binary\n",
	"sub/.rgignore":    "skip.txt\n",
	"sub/skip.txt":     "TODO skipped\n",
	"sub/deep/d.json":  "{\"todo\": \"TODO\"}\n",
	"notes.txt":        "foo bar\nfoobar\nFoo\n",
	"dir with/space.c": "int TODO;\n",
}

func TestRg(t *testing.T) {
	rows := []struct {
		args []string
		out  string
		err  string
		code int
	}{
		{[]string{"rg", "TODO"}, "a.go:// TODO: fix\nb.py:print('TODO')\ndir with/space.c:int TODO;\nkeep.log:TODO kept\nsub/c.md:two TODO\nsub/c.md:six TODO\nsub/deep/d.json:{\"todo\": \"TODO\"}\n", "", 0},
		{[]string{"rg", "-n", "TODO", "sub"}, "sub/c.md:2:two TODO\nsub/c.md:6:six TODO\nsub/deep/d.json:1:{\"todo\": \"TODO\"}\n", "", 0},
		{[]string{"rg", "TODO", "./sub/deep"}, "./sub/deep/d.json:{\"todo\": \"TODO\"}\n", "", 0},
		{[]string{"rg", "TODO", "sub/c.md"}, "two TODO\nsix TODO\n", "", 0},
		{[]string{"rg", "-n", "TODO", "sub/c.md"}, "2:two TODO\n6:six TODO\n", "", 0},
		{[]string{"rg", "-H", "TODO", "sub/c.md"}, "sub/c.md:two TODO\nsub/c.md:six TODO\n", "", 0},
		{[]string{"rg", "-l", "TODO"}, "a.go\nb.py\ndir with/space.c\nkeep.log\nsub/c.md\nsub/deep/d.json\n", "", 0},
		{[]string{"rg", "-c", "TODO", "sub"}, "sub/c.md:2\nsub/deep/d.json:1\n", "", 0},
		{[]string{"rg", "-c", "TODO", "sub/c.md"}, "2\n", "", 0},
		{[]string{"rg", "-i", "todo", "b.py"}, "# todo lower\nprint('TODO')\n", "", 0},
		{[]string{"rg", "-S", "todo", "b.py"}, "# todo lower\nprint('TODO')\n", "", 0},
		{[]string{"rg", "-S", "Todo", "b.py"}, "", "", 1},
		{[]string{"rg", "todo", "b.py"}, "# todo lower\n", "", 0},
		{[]string{"rg", "-w", "foo", "notes.txt"}, "foo bar\n", "", 0},
		{[]string{"rg", "-v", "foo", "notes.txt"}, "Foo\n", "", 0},
		{[]string{"rg", "-o", "fo+", "notes.txt"}, "foo\nfoo\n", "", 0},
		{[]string{"rg", "-F", "(", "notes.txt"}, "", "", 1},
		{[]string{"rg", "-F", "-e", "o b", "-e", "Foo", "notes.txt"}, "foo bar\nFoo\n", "", 0},
		{[]string{"rg", "-m1", "TODO", "sub/c.md"}, "two TODO\n", "", 0},
		{[]string{"rg", "-C1", "-n", "TODO", "sub/c.md"}, "1-one\n2:two TODO\n3-three\n--\n5-five\n6:six TODO\n", "", 0},
		{[]string{"rg", "-A1", "TODO", "sub/c.md"}, "two TODO\nthree\n--\nsix TODO\n", "", 0},
		{[]string{"rg", "-B1", "TODO", "sub/c.md"}, "one\ntwo TODO\n--\nfive\nsix TODO\n", "", 0},
		{[]string{"rg", "-t", "go", "TODO"}, "a.go:// TODO: fix\n", "", 0},
		{[]string{"rg", "-T", "go", "-T", "md", "-T", "json", "-l", "TODO"}, "b.py\ndir with/space.c\nkeep.log\n", "", 0},
		{[]string{"rg", "-g", "*.py", "TODO"}, "b.py:print('TODO')\n", "", 0},
		{[]string{"rg", "-g", "!*.md", "-g", "!sub/deep", "-l", "TODO"}, "a.go\nb.py\ndir with/space.c\nkeep.log\n", "", 0},
		{[]string{"rg", "--hidden", "-l", "hidden"}, ".hidden.txt\n", "", 0},
		{[]string{"rg", "--no-ignore", "-l", "TODO", "-g", "!*.md", "-g", "!*.json"}, "a.go\nb.py\nbuild/out.go\ndir with/space.c\nkeep.log\nsub/skip.txt\nx.log\n", "", 0},
		{[]string{"rg", "-uu", "-l", "hidden"}, ".hidden.txt\n", "", 0},
		{[]string{"rg", "TODO", "bin.dat"}, "binary file matches (found \"\\0\" byte around offset 4)\n", "", 0},
		{[]string{"rg", "--files", "sub"}, "sub/c.md\nsub/deep/d.json\n", "", 0},
		{[]string{"rg", "--files", "-t", "go"}, "a.go\n", "", 0},
		{[]string{"rg", "nomatch"}, "", "", 1},
		{[]string{"rg", "x", "missing"}, "", "rg: missing: IO error for operation on missing: No such file or directory (os error 2)\n", 2},
		{[]string{"rg", "("}, "", "rg: regex parse error:\n    (\nerror: missing closing )\n", 2},
		{[]string{"rg"}, "", "rg: ripgrep requires at least one pattern to execute a search\n", 2},
		{[]string{"rg", "-t", "nope", "x"}, "", "rg: unrecognized file type: nope\n", 2},
		{[]string{"rg", "-q", "TODO"}, "", "", 0},
		{[]string{"rg", "--column", "bar", "notes.txt"}, "1:5:foo bar\n2:4:foobar\n", "", 0},
		{[]string{"rg", "-x", "foobar", "notes.txt"}, "foobar\n", "", 0},
	}
	for _, r := range rows {
		out, errOut, code := run(t, rgTree, "", r.args...)
		if out != r.out || errOut != r.err || code != r.code {
			t.Errorf("%q:\n got out=%q err=%q code=%d\nwant out=%q err=%q code=%d", r.args, out, errOut, code, r.out, r.err, r.code)
		}
	}
}

func TestRgStdinAndNoGit(t *testing.T) {
	out, _, code := run(t, nil, "a\nTODO b\n", "rg", "TODO")
	if out != "TODO b\n" || code != 0 {
		t.Errorf("stdin: %q %d", out, code)
	}
	// Outside a git repository .gitignore is not honoured (ripgrep's
	// default), .ignore is.
	files := map[string]string{".gitignore": "a.txt\n", ".ignore": "b.txt\n", "a.txt": "x\n", "b.txt": "x\n"}
	out, _, _ = run(t, files, "", "rg", "-l", "x")
	if out != "a.txt\n" {
		t.Errorf("no git: %q", out)
	}
	out, _, _ = run(t, files, "", "rg", "--no-require-git", "-l", "x")
	if out != "" {
		t.Errorf("no-require-git: %q", out)
	}
}
