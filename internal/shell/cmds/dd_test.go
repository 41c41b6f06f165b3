package cmds

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var ddFiles = map[string]string{
	"a":     "0123456789abcdefghijklmnopqrstuvwxyz\n",
	"big":   strings.Repeat("line of text\n", 400), // 5,200 bytes
	"mixed": "Hello World\nMiXeD\n",
	"out":   "previous content of out\n",
	"d/":    "",
}

// ddTime is the part of dd's statistics that depends on the clock.
var ddTime = regexp.MustCompile(`copied, [^,\n]+ s, [^\n]+/s`)

// TestDd_gnu: dd's blocks, counts, offsets, conversions, flags, statistics
// and errors, as GNU dd (coreutils 9.1) makes them; the time and rate of
// the statistics are masked.
func TestDd_gnu(t *testing.T) {
	var cases []foCase
	mask := func(s string) string { return ddTime.ReplaceAllString(s, "copied, T s, R/s") }
	add := func(name string, args ...string) {
		cases = append(cases, foCase{name: name, files: ddFiles, args: append([]string{"dd"}, args...), errMask: mask})
	}
	add("copy to stdout", "if=a")
	add("copy to file", "if=big", "of=copy")
	add("bs and count", "if=a", "bs=10", "count=2")
	add("partial last block", "if=big", "bs=1000")
	add("ibs obs reblock", "if=big", "ibs=300", "obs=1000", "of=o")
	add("skip", "if=a", "bs=5", "skip=2", "count=1")
	add("skip bytes", "if=a", "skip=3", "iflag=skip_bytes", "bs=4", "count=1")
	add("count bytes", "if=big", "count=1500", "iflag=count_bytes", "bs=1000", "of=o")
	add("skip past end", "if=a", "bs=100", "skip=2")
	add("seek truncates", "if=a", "of=out", "bs=4", "seek=1", "count=1")
	add("seek notrunc", "if=a", "of=out", "bs=4", "seek=1", "count=1", "conv=notrunc")
	add("seek bytes past end", "if=a", "of=out", "seek=100", "oflag=seek_bytes", "count=1", "bs=3")
	add("append", "if=a", "of=out", "oflag=append", "conv=notrunc")
	add("ucase", "if=mixed", "conv=ucase")
	add("lcase", "if=mixed", "conv=lcase")
	add("swab", "if=a", "conv=swab", "bs=7", "count=1")
	add("sync pads", "if=a", "bs=16", "conv=sync", "of=o")
	add("excl exists", "if=a", "of=out", "conv=excl")
	add("excl new", "if=a", "of=new", "conv=excl")
	add("nocreat missing", "if=a", "of=new", "conv=nocreat")
	add("fsync", "if=a", "of=o", "conv=fsync")
	add("status none", "if=a", "of=o", "status=none")
	add("status noxfer", "if=a", "of=o", "status=noxfer")
	add("one byte", "if=a", "bs=1", "count=1", "of=o")
	add("suffixes", "if=big", "bs=1k", "count=2", "of=o")
	add("suffix kB", "if=big", "bs=1kB", "count=1", "of=o")
	add("product", "if=big", "bs=2x500", "count=1", "of=o")
	add("count zero", "if=a", "count=0")
	add("missing input", "if=nope")
	add("input is a directory", "if=d")
	add("missing output dir", "if=a", "of=nope/x")
	add("unknown operand", "foo=1")
	add("operand without =", "if")
	add("invalid number", "bs=abc")
	add("zero block size", "bs=0")
	add("lower m", "bs=1m")
	add("overflow", "bs=99999999999999999999")
	add("invalid conv", "if=a", "conv=bogus")
	add("invalid iflag", "if=a", "iflag=bogus")
	add("invalid status", "if=a", "status=loud")
	add("lcase and ucase", "if=a", "conv=lcase,ucase")
	foRunGNU(t, cases)
}

// TestDdSizeText_gnu: the sizes of dd's statistics, as GNU dd words them
// for a copy of that many bytes from /dev/zero.
func TestDdSizeText_gnu(t *testing.T) {
	if _, err := exec.LookPath("dd"); err != nil {
		requireTool(t, "dd")
	}
	for _, n := range []int64{1, 2, 999, 1000, 1023, 1024, 1050, 1150, 1250, 3893, 9999, 10240, 99999, 999999,
		1000000, 1023999, 1048575, 1048576, 3145728, 999999999, 1073741824} {
		out, err := exec.Command("dd", "if=/dev/zero", "of=/dev/null", "count=1", "bs="+strconv.FormatInt(n, 10)).CombinedOutput()
		if err != nil {
			t.Fatalf("dd bs=%d: %v: %s", n, err, out)
		}
		lines := strings.Split(string(out), "\n")
		want, _, _ := strings.Cut(lines[2], " copied")
		if got := ddSizeText(n); got != want {
			t.Errorf("%d bytes: %q, GNU dd: %q", n, got, want)
		}
	}
}

// TestDdBlockBound: a block larger than ddMaxBlock is refused with GNU's
// words for a failed allocation, before anything is read or written.
func TestDdBlockBound(t *testing.T) {
	f := newStore(t, ddFiles)
	out, errs, st := runIn(t, f, "/work", "", "dd", "if=a", "of=o", "bs=1G")
	if st != 1 || out != "" || errs != "dd: memory exhausted by input buffer of size 1073741824 bytes (1.0 GiB)\n" {
		t.Fatalf("bs=1G: out=%q err=%q status=%d", out, errs, st)
	}
	if _, err := f.Stat(t.Context(), "/work/o"); err == nil {
		t.Fatal("bs=1G made the output file")
	}
}
