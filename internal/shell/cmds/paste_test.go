package cmds

import "testing"

var pasteFiles = map[string]string{"a": "1\n2\n3\n", "b": "x\ny\n", "c": "no-nl"}

func TestPaste(t *testing.T) {
	runTextRows(t, []textRow{
		{args: []string{"paste", "a", "b"}, files: pasteFiles, out: "1\tx\n2\ty\n3\t\n"},
		{args: []string{"paste", "-d,", "a", "b", "-"}, files: pasteFiles, out: "1,x,\n2,y,\n3,,\n"},
		{args: []string{"paste", "-d,", "a", "-"}, files: pasteFiles, stdin: "s1\ns2\ns3\ns4\n", out: "1,s1\n2,s2\n3,s3\n,s4\n"},
		{args: []string{"paste", "-", "-"}, stdin: "1\n2\n3\n4\n5\n", out: "1\t2\n3\t4\n5\t\n"},
		{args: []string{"paste", "-s", "a", "b"}, files: pasteFiles, out: "1\t2\t3\nx\ty\n"},
		{args: []string{"paste", "-sd", ",;", "a"}, files: pasteFiles, out: "1,2;3\n"},
		{args: []string{"paste", "-d", "\\t\\n", "a", "b", "a"}, files: pasteFiles, out: "1\tx\n1\n2\ty\n2\n3\t\n3\n"},
		{args: []string{"paste", "-d", "", "a", "b"}, files: pasteFiles, out: "1x\n2y\n3\n"},
		{args: []string{"paste", "-s", "-d", "\\0", "a"}, files: pasteFiles, out: "123\n"},
		{args: []string{"paste", "a", "c"}, files: pasteFiles, out: "1\tno-nl\n2\t\n3\t\n"},
		{args: []string{"paste", "-s", "c"}, files: pasteFiles, out: "no-nl\n"},
		{args: []string{"paste", "-s"}, stdin: "", out: "\n"},
		{args: []string{"paste"}, stdin: "a\nb\n", out: "a\nb\n"},
		{args: []string{"paste", "-z", "-s", "-d,"}, stdin: "a\x00b\x00", out: "a,b\x00"},
		{args: []string{"paste", "a", "nosuch"}, files: pasteFiles, code: 1, errOut: "paste: nosuch: No such file or directory\n"},
		{args: []string{"paste", "-d", "\\", "a"}, files: pasteFiles, code: 1, errOut: "paste: delimiter list ends with an unescaped backslash: \\\n"},
	})
}
