package cmds

import "testing"

func TestCut(t *testing.T) {
	fx := map[string]string{"c": "a,b,c\nd,e,f\n", "t": "1\t2\t3\n"}
	runTextRows(t, []textRow{
		{args: []string{"cut", "-d,", "-f2", "c"}, files: fx, out: "b\ne\n"},
		{args: []string{"cut", "-d", ",", "-f", "2-", "c"}, files: fx, out: "b,c\ne,f\n"},
		{args: []string{"cut", "-d,", "-f-2", "c"}, files: fx, out: "a,b\nd,e\n"},
		{args: []string{"cut", "-d,", "-f1,3", "c"}, files: fx, out: "a,c\nd,f\n"},
		{args: []string{"cut", "-d,", "-f3,1", "c"}, files: fx, out: "a,c\nd,f\n"},
		{args: []string{"cut", "-f2", "t"}, files: fx, out: "2\n"},
		{args: []string{"cut", "-c2-3"}, stdin: "abcd\n", out: "bc\n"},
		{args: []string{"cut", "-b", "1"}, stdin: "abcd", out: "a\n"},
		{args: []string{"cut", "-c-2,5-"}, stdin: "abcdefg\n", out: "abefg\n"},
		{args: []string{"cut", "-c1,3", "--output-delimiter=:"}, stdin: "abcd\n", out: "a:c\n"},
		{args: []string{"cut", "-d,", "-f1,3", "--complement"}, stdin: "a,b,c\n", out: "b\n"},
		{args: []string{"cut", "-d,", "-f2"}, stdin: "a,b\nnodelim\n", out: "b\nnodelim\n"},
		{args: []string{"cut", "-s", "-d,", "-f2"}, stdin: "a,b\nnodelim\n", out: "b\n"},
		{args: []string{"cut", "-d,", "-f-2", "--output-delimiter=::"}, stdin: "a,b,c\n", out: "a::b\n"},
		{args: []string{"cut", "-d", " ", "-f", "5"}, stdin: "a b\n", out: "\n"},
		{args: []string{"cut", "-f1", "x"}, code: 1, errOut: "cut: x: No such file or directory\n"},
		{args: []string{"cut"}, code: 1, errOut: "cut: you must specify a list of bytes, characters, or fields\nTry 'cut --help' for more information.\n"},
		{args: []string{"cut", "-f", "0"}, code: 1, errOut: "cut: fields are numbered from 1\nTry 'cut --help' for more information.\n"},
		{args: []string{"cut", "-f", "3-1"}, code: 1, errOut: "cut: invalid decreasing range\nTry 'cut --help' for more information.\n"},
		{args: []string{"cut", "-f", "-"}, code: 1, errOut: "cut: invalid range with no endpoint: -\nTry 'cut --help' for more information.\n"},
		{args: []string{"cut", "-f", "1-a"}, code: 1, errOut: "cut: invalid field value ‘a’\nTry 'cut --help' for more information.\n"},
		{args: []string{"cut", "-c", "x"}, code: 1, errOut: "cut: invalid byte/character position ‘x’\nTry 'cut --help' for more information.\n"},
		{args: []string{"cut", "-d", "ab", "-f1"}, code: 1, errOut: "cut: the delimiter must be a single character\nTry 'cut --help' for more information.\n"},
		{args: []string{"cut", "-c1", "-f1"}, code: 1, errOut: "cut: only one list may be specified\nTry 'cut --help' for more information.\n"},
		{args: []string{"cut", "-b1", "-d,"}, code: 1, errOut: "cut: an input delimiter may be specified only when operating on fields\nTry 'cut --help' for more information.\n"},
	})
}
