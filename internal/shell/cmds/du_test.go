package cmds

import (
	"context"
	"strings"
	"testing"
)

var duTree = map[string]string{
	"d/": "", "d/a.txt": "hi\n", "d/sub/": "", "d/sub/big": strings.Repeat("x", 5000), "e/": "", "l": "->d/a.txt",
}

var duCases = []fuFileCase{
	{name: "default", files: duTree, args: []string{"du"}, wantOut: "12\t./d/sub\n20\t./d\n4\t./e\n28\t.\n"},
	{name: "summarize", files: duTree, args: []string{"du", "-s"}, wantOut: "28\t.\n"},
	{name: "summarize human", files: duTree, args: []string{"du", "-sh", "d"}, wantOut: "20K\td\n"},
	{name: "all", files: duTree, args: []string{"du", "-a", "d"}, wantOut: "4\td/a.txt\n8\td/sub/big\n12\td/sub\n20\td\n"},
	{name: "total", files: duTree, args: []string{"du", "-c", "d", "e"}, wantOut: "12\td/sub\n20\td\n4\te\n24\ttotal\n"},
	{name: "max depth", files: duTree, args: []string{"du", "-d", "1"}, wantOut: "20\t./d\n4\t./e\n28\t.\n"},
	{name: "max depth long", files: duTree, args: []string{"du", "--max-depth=0", "d"}, wantOut: "20\td\n"},
	{name: "bytes", files: duTree, args: []string{"du", "-b", "d"}, wantOut: "9096\td/sub\n13195\td\n"},
	{name: "bytes all", files: duTree, args: []string{"du", "-ab", "."}, wantOut: "3\t./d/a.txt\n5000\t./d/sub/big\n9096\t./d/sub\n13195\t./d\n4096\t./e\n7\t./l\n21394\t.\n"},
	{name: "apparent", files: duTree, args: []string{"du", "--apparent-size", "-s", "d"}, wantOut: "13\td\n"},
	{name: "human all", files: duTree, args: []string{"du", "-ah", "d"}, wantOut: "4.0K\td/a.txt\n8.0K\td/sub/big\n12K\td/sub\n20K\td\n"},
	{name: "human total", files: duTree, args: []string{"du", "-shc", "d", "e"}, wantOut: "20K\td\n4.0K\te\n24K\ttotal\n"},
	{name: "megabytes", files: duTree, args: []string{"du", "-sm", "d"}, wantOut: "1\td\n"},
	{name: "files", files: duTree, args: []string{"du", "-s", "d/a.txt", "l"}, wantOut: "4\td/a.txt\n0\tl\n"},
	{name: "exclude", files: duTree, args: []string{"du", "-a", "--exclude=*.txt", "d"}, wantOut: "8\td/sub/big\n12\td/sub\n16\td\n"},
	{name: "missing", files: duTree, args: []string{"du", "-s", "nope", "e"}, wantOut: "4\te\n",
		wantErr: "du: cannot access 'nope': No such file or directory\n", wantStatus: 1},
	{name: "bad depth", args: []string{"du", "-d", "x"}, wantErr: "du: invalid maximum depth 'x'\nTry 'du --help' for more information.\n", wantStatus: 1},
	{name: "summarize all", args: []string{"du", "-sa"}, wantErr: "du: cannot both summarize and show all entries\nTry 'du --help' for more information.\n", wantStatus: 1},
}

func TestDu(t *testing.T)        { fuRunCases(t, duCases) }
func TestDuConfirm(t *testing.T) { fuConfirmCases(t, duCases, true) }

func TestDuCancel(t *testing.T) {
	f := newStore(t, duTree)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	env := &Env{Ctx: ctx, FS: f, Dir: "/work", Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	if st := Du(env, []string{"du", "."}); st == 0 {
		t.Errorf("cancelled du: status %d, output %q", st, out.String())
	}
}
