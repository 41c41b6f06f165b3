package cmds

import "testing"

var fuLinkTree = map[string]string{"f": "x", "l": "->f", "dl": "->nope", "d/": "", "ld": "->d", "d/g": "", "up": "->d/../f"}

var readlinkCases = []fuFileCase{
	{name: "target", files: fuLinkTree, args: []string{"readlink", "l", "dl"}, wantOut: "f\nnope\n"},
	{name: "not a link", files: fuLinkTree, args: []string{"readlink", "f"}, wantStatus: 1},
	{name: "not a link verbose", files: fuLinkTree, args: []string{"readlink", "-v", "f"}, wantErr: "readlink: f: Invalid argument\n", wantStatus: 1},
	{name: "canonicalize", files: fuLinkTree, args: []string{"readlink", "-f", "l", "ld/g", "dl", "up"}, wantOut: "/work/f\n/work/d/g\n/work/nope\n/work/f\n"},
	{name: "existing", files: fuLinkTree, args: []string{"readlink", "-e", "dl"}, wantStatus: 1},
	{name: "missing", files: fuLinkTree, args: []string{"readlink", "-m", "x/../y/z"}, wantOut: "/work/y/z\n"},
	{name: "no newline", files: fuLinkTree, args: []string{"readlink", "-n", "l"}, wantOut: "f"},
	{name: "f missing parent", files: fuLinkTree, args: []string{"readlink", "-f", "a/b"}, wantStatus: 1},
	{name: "missing operand", args: []string{"readlink"}, wantErr: "readlink: missing operand\nTry 'readlink --help' for more information.\n", wantStatus: 1},
}

func TestReadlink(t *testing.T)        { fuRunCases(t, readlinkCases) }
func TestReadlinkConfirm(t *testing.T) { fuConfirmCases(t, readlinkCases, false) }

var realpathCases = []fuFileCase{
	{name: "links", files: fuLinkTree, args: []string{"realpath", "l", "ld/g", ".", "nope"}, wantOut: "/work/f\n/work/d/g\n/work\n/work/nope\n"},
	{name: "existing", files: fuLinkTree, args: []string{"realpath", "-e", "nope"}, wantErr: "realpath: nope: No such file or directory\n", wantStatus: 1},
	{name: "missing parent", files: fuLinkTree, args: []string{"realpath", "a/b"}, wantErr: "realpath: a/b: No such file or directory\n", wantStatus: 1},
	{name: "missing ok", files: fuLinkTree, args: []string{"realpath", "-m", "a/b"}, wantOut: "/work/a/b\n"},
	{name: "strip", files: fuLinkTree, args: []string{"realpath", "-s", "l", "d/../ld"}, wantOut: "/work/l\n/work/ld\n"},
	{name: "relative to", files: fuLinkTree, args: []string{"realpath", "--relative-to=d", "f", "d/g", "d"}, wantOut: "../f\ng\n.\n"},
	{name: "relative base", files: fuLinkTree, args: []string{"realpath", "--relative-base=d", "f", "d/g"}, wantOut: "/work/f\ng\n"},
	{name: "missing operand", args: []string{"realpath"}, wantErr: "realpath: missing operand\nTry 'realpath --help' for more information.\n", wantStatus: 1},
}

func TestRealpath(t *testing.T)        { fuRunCases(t, realpathCases) }
func TestRealpathConfirm(t *testing.T) { fuConfirmCases(t, realpathCases, false) }
