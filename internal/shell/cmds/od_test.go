package cmds

import (
	"context"
	"strings"
	"testing"
	"time"
)

var odFiles = map[string]string{
	"hello": "hello world\n",
	"f8":    "abcdefgh",
	"bin":   "\x80\xff\x00\x7f\x1b\t\r\n",
	"zeros": strings.Repeat("\x00", 64) + "tail",
	"nums":  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
	"fl":    "\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\xf0\xbf\x00\x00\xc0\x7f",
	"fl8":   "\x9a\x99\x99\x99\x99\x99\xb9\x3f\x00\x00\x00\x00\x00\x00\x04\xc0\x00\x00\x00\x00\x00\x00\x59\x40",
	"strs":  "ab\x00cdef\x00\x01gh12\x00xyz",
	"d/":    "",
}

func TestOd(t *testing.T) {
	runTextRows(t, []textRow{
		// default format (-t o2), -c, -b, -x, -d, -o
		{args: []string{"od", "hello"}, files: odFiles, out: "0000000 062550 066154 020157 067567 066162 005144\n0000014\n"},
		{args: []string{"od", "-c", "hello"}, files: odFiles, out: "0000000   h   e   l   l   o       w   o   r   l   d  \\n\n0000014\n"},
		{args: []string{"od", "-c", "bin"}, files: odFiles, out: "0000000 200 377  \\0 177 033  \\t  \\r  \\n\n0000010\n"},
		{args: []string{"od", "-b", "f8"}, files: odFiles, out: "0000000 141 142 143 144 145 146 147 150\n0000010\n"},
		{args: []string{"od", "-x", "f8"}, files: odFiles, out: "0000000 6261 6463 6665 6867\n0000010\n"},
		{args: []string{"od", "-d", "f8"}, files: odFiles, out: "0000000 25185 25699 26213 26727\n0000010\n"},
		{args: []string{"od", "-o", "f8"}, files: odFiles, out: "0000000 061141 062143 063145 064147\n0000010\n"},
		{args: []string{"od", "-a", "bin"}, files: odFiles, out: "0000000 nul del nul del esc  ht  cr  nl\n0000010\n"},
		// -t types, sizes and the z trailer
		{args: []string{"od", "-A", "x", "-t", "x1z", "hello"}, files: odFiles, out: "000000 68 65 6c 6c 6f 20 77 6f 72 6c 64 0a              >hello world.<\n00000c\n"},
		{args: []string{"od", "-An", "-tx1", "hello"}, files: odFiles, out: " 68 65 6c 6c 6f 20 77 6f 72 6c 64 0a\n"},
		{args: []string{"od", "-Ad", "-tu1", "-w4", "f8"}, files: odFiles, out: "0000000  97  98  99 100\n0000004 101 102 103 104\n0000008\n"},
		{args: []string{"od", "-t", "d2", "bin"}, files: odFiles, out: "0000000   -128  32512   2331   2573\n0000010\n"},
		{args: []string{"od", "-t", "dC", "-t", "x8", "f8"}, files: odFiles, out: "0000000   97   98   99  100  101  102  103  104\n                               6867666564636261\n0000010\n"},
		{args: []string{"od", "-tdS", "-tuI", "-txL", "f8"}, files: odFiles, out: "0000000  25185  25699  26213  26727\n           1684234849    1751606885\n                   6867666564636261\n0000010\n"},
		{args: []string{"od", "-t", "f4", "fl"}, files: odFiles, out: "0000000               1               0          -1.875             nan\n0000020\n"},
		{args: []string{"od", "-t", "f8", "fl8"}, files: odFiles, out: "0000000                      0.1                     -2.5\n0000020                      100\n0000030\n"},
		{args: []string{"od", "-t", "f4", "f8"}, files: odFiles, out: "0000000   1.6777999e+22    4.371022e+24\n0000010\n"},
		{args: []string{"od", "-tfL", "f8"}, files: odFiles, out: "0000000    2.742317977768230917e-4932\n0000010\n"},
		{args: []string{"od", "-tcz", "bin"}, files: odFiles, out: "0000000 200 377  \\0 177 033  \\t  \\r  \\n                                  >........<\n0000010\n"},
		{args: []string{"od", "--endian=big", "-tx2", "f8"}, files: odFiles, out: "0000000 6162 6364 6566 6768\n0000010\n"},
		// a partial last line is padded with zero bytes
		{args: []string{"od", "-x", "-w3"}, stdin: "abc", out: "0000000 6261\n0000002 0063\n0000003\n", errOut: "od: warning: invalid width 3; using 2 instead\n"},
		// -j, -N, -v, '*', -w
		{args: []string{"od", "-j", "2", "-N", "3", "-c", "f8"}, files: odFiles, out: "0000002   c   d   e\n0000005\n"},
		{args: []string{"od", "-j", "0x2", "-N", "010", "nums"}, files: odFiles, out: "0000002 005062 005063 005064 005065\n0000012\n"},
		{args: []string{"od", "-N", "1KB", "-An", "-c", "f8"}, files: odFiles, out: "   a   b   c   d   e   f   g   h\n"},
		{args: []string{"od", "-tx1", "zeros"}, files: odFiles, out: "0000000 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n*\n0000100 74 61 69 6c\n0000104\n"},
		{args: []string{"od", "-v", "-tx1", "-w32", "zeros"}, files: odFiles, out: "0000000 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n0000040 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n0000100 74 61 69 6c\n0000104\n"},
		{args: []string{"od", "-w", "-tx1", "zeros"}, files: odFiles, out: "0000000 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n*\n0000100 74 61 69 6c\n0000104\n"},
		// several files, stdin and '-'
		{args: []string{"od", "-c", "f8", "hello"}, files: odFiles, out: "0000000   a   b   c   d   e   f   g   h   h   e   l   l   o       w   o\n0000020   r   l   d  \\n\n0000024\n"},
		{args: []string{"od", "-c"}, stdin: "hi\n", out: "0000000   h   i  \\n\n0000003\n"},
		{args: []string{"od", "-An", "-c", "f8", "-"}, stdin: "!", files: odFiles, out: "   a   b   c   d   e   f   g   h   !\n"},
		{args: []string{"od"}, out: "0000000\n"},
		// the obsolete offset operand (octal; a '+' or a second operand)
		{args: []string{"od", "-c", "f8", "+3"}, files: odFiles, out: "0000003   d   e   f   g   h\n0000010\n"},
		{args: []string{"od", "-c", "f8", "10"}, files: odFiles, out: "0000010\n"},
		{args: []string{"od", "--traditional", "f8", "1", "2"}, files: odFiles, out: "0000001 (0000002) 061542 062544 063546 000150\n0000010 (0000011)\n"},
		// -S strings
		{args: []string{"od", "-S", "3", "strs"}, files: odFiles, out: "0000003 cdef\n0000011 gh12\n"},
		{args: []string{"od", "-An", "-S2", "strs"}, files: odFiles, out: "ab\ncdef\ngh12\n"},
		// errors
		{args: []string{"od", "nofile"}, code: 1, errOut: "od: nofile: No such file or directory\n"},
		{args: []string{"od", "-c", "f8", "nofile", "f8"}, files: odFiles, code: 1,
			out:    "0000000   a   b   c   d   e   f   g   h   a   b   c   d   e   f   g   h\n0000020\n",
			errOut: "od: nofile: No such file or directory\n"},
		{args: []string{"od", "d"}, files: odFiles, code: 1, out: "0000000\n", errOut: "od: d: Is a directory\n"},
		{args: []string{"od", "-j", "20", "f8"}, files: odFiles, code: 1, errOut: "od: cannot skip past end of combined input\n"},
		{args: []string{"od", "-A", "q", "f8"}, files: odFiles, code: 1, errOut: "od: invalid output address radix 'q'; it must be one character from [doxn]\n"},
		{args: []string{"od", "-t", "q", "f8"}, files: odFiles, code: 1, errOut: "od: invalid character 'q' in type string ‘q’\n"},
		{args: []string{"od", "-t", "d3", "f8"}, files: odFiles, code: 1, errOut: "od: invalid type string ‘d3’;\nthis system doesn't provide a 3-byte integral type\n"},
		{args: []string{"od", "-t", "f2", "f8"}, files: odFiles, code: 1, errOut: "od: invalid type string ‘f2’;\nthis system doesn't provide a 2-byte floating point type\n"},
		{args: []string{"od", "-N", "x", "f8"}, files: odFiles, code: 1, errOut: "od: invalid -N argument 'x'\n"},
		{args: []string{"od", "--read-bytes=1x", "f8"}, files: odFiles, code: 1, errOut: "od: invalid suffix in --read-bytes argument '1x'\n"},
		{args: []string{"od", "-j", "99999999999999999999999", "f8"}, files: odFiles, code: 1, errOut: "od: -j argument '99999999999999999999999' too large\n"},
		{args: []string{"od", "-w0", "-tx4", "f8"}, files: odFiles, out: "0000000 64636261\n0000004 68676665\n0000010\n", errOut: "od: warning: invalid width 0; using 4 instead\n"},
		{args: []string{"od", "-S", "3", "-c", "f8"}, files: odFiles, code: 1, errOut: "od: no type may be specified when dumping strings\n"},
		{args: []string{"od", "--endian=middle", "f8"}, files: odFiles, code: 1,
			errOut: "od: invalid argument ‘middle’ for ‘--endian’\nValid arguments are:\n  - ‘little’\n  - ‘big’\nTry 'od --help' for more information.\n"},
		{args: []string{"od", "-Q"}, code: 1, errOut: "od: invalid option -- 'Q'\nTry 'od --help' for more information.\n"},
		{args: []string{"od", "-t"}, code: 1, errOut: "od: option requires an argument -- 't'\nTry 'od --help' for more information.\n"},
	})
}

func TestOdFloat(t *testing.T) {
	// %g with the fewest digits that read back: fixed or exponent form.
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{[]byte{0, 0, 0x80, 0x3f}, "1"},
		{[]byte{0x4e, 0x61, 0x3c, 0x4b}, "12345678"},
		{[]byte{0xcd, 0xcc, 0xcc, 0x3d}, "0.1"},
		{[]byte{0, 0, 0, 0x80}, "-0"},
		{[]byte{0, 0, 0x80, 0x7f}, "inf"},
		{[]byte{1, 0, 0, 0}, "1e-45"},
		{[]byte{0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f}, "0.1"},
		{[]byte{0, 0, 0, 0, 0, 0, 0xf0, 0xff}, "-inf"},
	} {
		if got := odFloat(c.in, false); got != c.want {
			t.Errorf("odFloat(% x) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestOdCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in := newReading()
	env, _, _ := limitEnv(t, ctx, nil, in, 1<<20)
	done := make(chan int)
	go func() { done <- Od(env, []string{"od", "-c"}) }()
	<-in.started
	cancel()
	select {
	case code := <-done:
		if code == 0 {
			t.Errorf("cancelled od exited 0")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("od did not stop when cancelled")
	}
}
