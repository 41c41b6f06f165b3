package cmds

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// fileRow is a table case for the commands that write files (split,
// csplit): args run with files and stdin must print out and errOut, exit
// with code, and leave in the working directory exactly the files of want
// (name → content) besides the unchanged fixtures. The confirm test runs the
// same row through the real GNU tool in a temp dir; a row whose skip names a
// divergence must still diverge there (GNU must not meet its expectations).
type fileRow struct {
	name   string
	files  map[string]string
	stdin  string
	args   []string
	out    string
	errOut string
	code   int
	want   map[string]string
	skip   string
}

// runFileRows runs rows through the harness and, where the real tool is on
// the host, confirms each row against it.
func runFileRows(t *testing.T, rows []fileRow) {
	t.Helper()
	for _, r := range rows {
		name := r.name
		if name == "" {
			name = strings.Join(r.args, " ")
		}
		t.Run(name, func(t *testing.T) {
			f := newStore(t, r.files)
			out, errOut, code := runIn(t, f, "/work", r.stdin, r.args...)
			got := storeOutputs(t, f, r.files)
			if out != r.out || errOut != r.errOut || code != r.code || !sameFiles(got, r.want) {
				t.Errorf("%q:\n got out=%q err=%q code=%d files=%q\nwant out=%q err=%q code=%d files=%q",
					r.args, out, errOut, code, got, r.out, r.errOut, r.code, r.want)
			}
		})
	}
	t.Run("confirm", func(t *testing.T) {
		for _, r := range rows {
			confirmFileRow(t, r)
		}
	})
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// storeOutputs lists the regular files under /work that are not fixtures
// with their fixture content.
func storeOutputs(t *testing.T, f *vfs.FS, fixtures map[string]string) map[string]string {
	t.Helper()
	ctx := context.Background()
	got := map[string]string{}
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		ents, err := f.ReadDir(ctx, dir)
		if err != nil {
			t.Fatalf("readdir %s: %v", dir, err)
		}
		for _, e := range ents {
			name := rel + e.Name
			if fuIsDirMode(e.Mode) {
				walk(dir+"/"+e.Name, name+"/")
				continue
			}
			data := readFile(t, f, dir+"/"+e.Name)
			if v, ok := fixtures[name]; !ok || v != data {
				got[name] = data
			}
		}
	}
	walk("/work", "")
	return got
}

// confirmFileRow runs one row through the host's GNU tool in a temp dir.
func confirmFileRow(t *testing.T, r fileRow) {
	t.Helper()
	h, ok := runHost(t, r.args, r.files, nil, r.stdin)
	if !ok {
		return
	}
	out, errOut, code, dir := h.out, h.errOut, h.code, h.dir
	got := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, _ := os.ReadFile(p)
		if v, ok := r.files[rel]; !ok || v != string(b) {
			got[rel] = string(b)
		}
		return nil
	})
	same := out == r.out && errOut == r.errOut && code == r.code && sameFiles(got, r.want)
	if r.skip != "" {
		if same {
			t.Errorf("GNU %q agrees with a row marked as a divergence (%s)", r.args, r.skip)
		}
		return
	}
	if !same {
		t.Errorf("GNU %q:\n gnu out=%q err=%q code=%d files=%q\nwant out=%q err=%q code=%d files=%q",
			r.args, out, errOut, code, got, r.out, r.errOut, r.code, r.want)
	}
}

var splitFiles = map[string]string{
	"l5":  "a\nb\nc\nd\ne\n",
	"s10": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
	"abc": "abc",
	"z":   "a\x00b\x00c\x00",
	"csv": "a,b,c,d",
	"d/":  "",
}

// splitNames lists the default output names: xaa ... xyz, then the suffix
// widens (xzaaa ... xzyzz, xzzaaaa, ...).
func splitNames(n int) []string {
	var names []string
	prefix, width := "x", 2
	for len(names) < n {
		total := 1
		for i := 0; i < width; i++ {
			total *= 26
		}
		// The last 26^(width-1) names (starting with z) are skipped: the
		// suffix widens when its first letter reaches z.
		for i := 0; i < total-total/26 && len(names) < n; i++ {
			suf := make([]byte, width)
			v := i
			for j := width - 1; j >= 0; j-- {
				suf[j] = byte('a' + v%26)
				v /= 26
			}
			names = append(names, prefix+string(suf))
		}
		prefix += "z"
		width++
	}
	return names
}

// splitLinesWant is the files of splitting lines 1..n one per file.
func splitLinesWant(names []string) map[string]string {
	m := map[string]string{}
	for i, n := range names {
		m[n] = fmt.Sprintf("%d\n", i+1)
	}
	return m
}

func TestSplit(t *testing.T) {
	var seq700, seq30 strings.Builder
	for i := 1; i <= 700; i++ {
		fmt.Fprintf(&seq700, "%d\n", i)
		if i <= 30 {
			fmt.Fprintf(&seq30, "%d\n", i)
		}
	}
	big := map[string]string{"seq700": seq700.String(), "seq30": seq30.String()}
	letters := "abcdefghijklmnopqrstuvwxyz"
	exhausted := map[string]string{}
	for i := 0; i < 26; i++ {
		exhausted["x"+letters[i:i+1]] = fmt.Sprintf("%d\n", i+1)
	}
	kb := strings.Repeat("0123456789", 150)
	runFileRows(t, []fileRow{
		// -l, -b, -C and the default of 1000 lines
		{args: []string{"split", "-l", "2", "l5"}, files: splitFiles, want: map[string]string{"xaa": "a\nb\n", "xab": "c\nd\n", "xac": "e\n"}},
		{args: []string{"split", "--lines=4", "s10"}, files: splitFiles, want: map[string]string{"xaa": "1\n2\n3\n4\n", "xab": "5\n6\n7\n8\n", "xac": "9\n10\n"}},
		{args: []string{"split", "l5"}, files: splitFiles, want: map[string]string{"xaa": "a\nb\nc\nd\ne\n"}},
		{args: []string{"split", "-3", "l5"}, files: splitFiles, want: map[string]string{"xaa": "a\nb\nc\n", "xab": "d\ne\n"}},
		{args: []string{"split", "-b", "4", "s10"}, files: splitFiles, want: map[string]string{"xaa": "1\n2\n", "xab": "3\n4\n", "xac": "5\n6\n", "xad": "7\n8\n", "xae": "9\n10", "xaf": "\n"}},
		{args: []string{"split", "-b", "1K", "kb"}, files: map[string]string{"kb": kb}, want: map[string]string{"xaa": kb[:1024], "xab": kb[1024:]}},
		{args: []string{"split", "-b", "1KB", "kb"}, files: map[string]string{"kb": kb}, want: map[string]string{"xaa": kb[:1000], "xab": kb[1000:]}},
		{args: []string{"split", "-C", "5", "s10"}, files: splitFiles, want: map[string]string{"xaa": "1\n2\n", "xab": "3\n4\n", "xac": "5\n6\n", "xad": "7\n8\n", "xae": "9\n10\n"}},
		{args: []string{"split", "-C", "3", "lw"}, files: map[string]string{"lw": "ab\ncdefgh\ni\n"}, want: map[string]string{"xaa": "ab\n", "xab": "cde", "xac": "fgh", "xad": "\ni\n"}},
		{args: []string{"split", "-t", ",", "-l", "2", "csv"}, files: splitFiles, want: map[string]string{"xaa": "a,b,", "xab": "c,d"}},
		{args: []string{"split", "-t", `\0`, "-l", "1", "z"}, files: splitFiles, want: map[string]string{"xaa": "a\x00", "xab": "b\x00", "xac": "c\x00"}},
		// -n chunks (coreutils 9.1: the last chunk takes the remainder)
		{args: []string{"split", "-n", "3", "s10"}, files: splitFiles, want: map[string]string{"xaa": "1\n2\n3\n4", "xab": "\n5\n6\n7\n", "xac": "8\n9\n10\n"}},
		{args: []string{"split", "-n", "3", "l5"}, files: splitFiles, want: map[string]string{"xaa": "a\nb", "xab": "\nc\n", "xac": "d\ne\n"}},
		{args: []string{"split", "-n", "5", "abc"}, files: splitFiles, want: map[string]string{"xaa": "a", "xab": "b", "xac": "c", "xad": "", "xae": ""}},
		{args: []string{"split", "-e", "-n", "5", "abc"}, files: splitFiles, want: map[string]string{"xaa": "a", "xab": "b", "xac": "c"}},
		{args: []string{"split", "-n", "l/3", "s10"}, files: splitFiles, want: map[string]string{"xaa": "1\n2\n3\n4\n", "xab": "5\n6\n7\n", "xac": "8\n9\n10\n"}},
		{args: []string{"split", "-n", "r/3", "l5"}, files: splitFiles, want: map[string]string{"xaa": "a\nd\n", "xab": "b\ne\n", "xac": "c\n"}},
		{args: []string{"split", "-n", "2/3", "s10"}, files: splitFiles, out: "\n5\n6\n7\n"},
		{args: []string{"split", "-n", "3/3", "l5"}, files: splitFiles, out: "d\ne\n"},
		{args: []string{"split", "-n", "l/2/3", "s10"}, files: splitFiles, out: "5\n6\n7\n"},
		{args: []string{"split", "-n", "r/2/3", "l5"}, files: splitFiles, out: "b\ne\n"},
		// suffixes and prefixes
		{args: []string{"split", "-a", "3", "-l", "3", "l5"}, files: splitFiles, want: map[string]string{"xaaa": "a\nb\nc\n", "xaab": "d\ne\n"}},
		{args: []string{"split", "-d", "-l", "2", "l5", "part_"}, files: splitFiles, want: map[string]string{"part_00": "a\nb\n", "part_01": "c\nd\n", "part_02": "e\n"}},
		{args: []string{"split", "--numeric-suffixes=9", "-l", "2", "l5"}, files: splitFiles, want: map[string]string{"x09": "a\nb\n", "x10": "c\nd\n", "x11": "e\n"}},
		{args: []string{"split", "-x", "-l", "1", "s10"}, files: splitFiles, want: map[string]string{"x00": "1\n", "x01": "2\n", "x02": "3\n", "x03": "4\n", "x04": "5\n", "x05": "6\n", "x06": "7\n", "x07": "8\n", "x08": "9\n", "x09": "10\n"}},
		{args: []string{"split", "-d", "--additional-suffix=.txt", "-l", "3", "l5", "d/p"}, files: splitFiles, want: map[string]string{"d/p00.txt": "a\nb\nc\n", "d/p01.txt": "d\ne\n"}},
		{args: []string{"split", "-l", "1", "seq700"}, files: big, want: splitLinesWant(splitNames(700))},
		{args: []string{"split", "--verbose", "-l", "3", "l5"}, files: splitFiles, out: "creating file 'xaa'\ncreating file 'xab'\n", want: map[string]string{"xaa": "a\nb\nc\n", "xab": "d\ne\n"}},
		// standard input
		{args: []string{"split", "-l", "1"}, stdin: "p\nq\n", want: map[string]string{"xaa": "p\n", "xab": "q\n"}},
		{args: []string{"split", "-b", "2", "-", "in."}, stdin: "hello", want: map[string]string{"in.aa": "he", "in.ab": "ll", "in.ac": "o"}},
		{args: []string{"split", "-n", "2"}, stdin: "abcd", want: map[string]string{}, code: 1, errOut: "split: -: cannot determine file size\n"},
		{args: []string{"split", "-l", "1"}, stdin: "", want: map[string]string{}},
		// errors
		{args: []string{"split", "-a", "1", "-l", "1", "seq30"}, files: big, code: 1, errOut: "split: output file suffixes exhausted\n", want: exhausted},
		{args: []string{"split", "-a", "1", "-l", "1", "--numeric-suffixes=7", "l5"}, files: splitFiles, code: 1,
			errOut: "split: output file suffixes exhausted\n", want: map[string]string{"x7": "a\n", "x8": "b\n", "x9": "c\n"}},
		{args: []string{"split", "-l", "1", "xaa"}, files: map[string]string{"xaa": "1\n2\n"}, code: 1, errOut: "split: 'xaa' would overwrite input; aborting\n"},
		{args: []string{"split", "nofile"}, code: 1, errOut: "split: cannot open 'nofile' for reading: No such file or directory\n"},
		{args: []string{"split", "d"}, files: splitFiles, code: 1, errOut: "split: d: Is a directory\n"},
		{args: []string{"split", "-l", "2", "l5", "nodir/p"}, files: splitFiles, code: 1, errOut: "split: nodir/paa: No such file or directory\n"},
		{args: []string{"split", "-l", "x", "l5"}, files: splitFiles, code: 1, errOut: "split: invalid number of lines: ‘x’\n"},
		{args: []string{"split", "-l", "0", "l5"}, files: splitFiles, code: 1, errOut: "split: invalid number of lines: ‘0’: Numerical result out of range\n"},
		{args: []string{"split", "-b", "1x", "l5"}, files: splitFiles, code: 1, errOut: "split: invalid number of bytes: ‘1x’\n"},
		{args: []string{"split", "-b", "99999999999G", "l5"}, files: splitFiles, code: 1, errOut: "split: invalid number of bytes: ‘99999999999G’: Value too large for defined data type\n"},
		{args: []string{"split", "-n", "6/5", "l5"}, files: splitFiles, code: 1, errOut: "split: invalid chunk number: ‘6’: Numerical result out of range\n"},
		{args: []string{"split", "-n", "x", "l5"}, files: splitFiles, code: 1, errOut: "split: invalid number of chunks: ‘x’\n"},
		{args: []string{"split", "-a", "1", "-n", "30", "l5"}, files: splitFiles, code: 1, errOut: "split: the suffix length needs to be at least 2\n"},
		{args: []string{"split", "-l", "2", "-b", "3", "l5"}, files: splitFiles, code: 1, errOut: "split: cannot split in more than one way\nTry 'split --help' for more information.\n"},
		{args: []string{"split", "--additional-suffix=a/b", "l5"}, files: splitFiles, code: 1, errOut: "split: invalid suffix ‘a/b’, contains directory separator\nTry 'split --help' for more information.\n"},
		{args: []string{"split", "--numeric-suffixes=q", "l5"}, files: splitFiles, code: 1, errOut: "split: ‘q’: invalid start value for numerical suffix\nTry 'split --help' for more information.\n"},
		{args: []string{"split", "-a", "2", "--numeric-suffixes=100", "l5"}, files: splitFiles, code: 1, errOut: "split: numerical suffix start value is too large for the suffix length\nTry 'split --help' for more information.\n"},
		{args: []string{"split", "l5", "p", "extra"}, files: splitFiles, code: 1, errOut: "split: extra operand ‘extra’\nTry 'split --help' for more information.\n"},
		{args: []string{"split", "-t", "ab", "l5"}, files: splitFiles, code: 1, errOut: "split: multi-character separator ‘ab’\n"},
		{args: []string{"split", "-0", "l5"}, files: splitFiles, code: 1, errOut: "split: invalid number of lines: ‘0’\nTry 'split --help' for more information.\n"},
		{args: []string{"split", "-Y"}, code: 1, errOut: "split: invalid option -- 'Y'\nTry 'split --help' for more information.\n"},
		{args: []string{"split", "--filter=cat", "l5"}, files: splitFiles, code: 1,
			errOut: "split: --filter is not supported in the shell backend: it would run a shell command per piece\n",
			skip:   "--filter runs a shell command per piece: not supported"},
	})
}

func TestSplitNumbers(t *testing.T) {
	for _, c := range []struct {
		s     string
		base  int
		valid string
		v     uint64
		e     spErr
	}{
		{"10", 10, "", 10, spOK},
		{" +7", 10, "", 7, spOK},
		{"-1", 10, "", 0, spInvalid},
		{"0x1f", 0, "", 31, spOK},
		{"010", 0, "", 8, spOK},
		{"2K", 10, "bEGKkMmPTYZ0", 2048, spOK},
		{"2KB", 10, "bEGKkMmPTYZ0", 2000, spOK},
		{"2KiB", 10, "bEGKkMmPTYZ0", 2048, spOK},
		{"k", 10, "bEGKkMmPTYZ0", 1024, spOK},
		{"3b", 10, "bEGKkMmPTYZ0", 1536, spOK},
		{"1x", 10, "bEGKkMmPTYZ0", 1, spBadSuffix},
		{"1KBx", 10, "bEGKkMmPTYZ0", 1000, spBadSuffix},
		{"99999999999999999999", 10, "", 1<<64 - 1, spOverflow},
		{"x", 10, "", 0, spInvalid},
	} {
		v, e := spStrtoumax(c.s, c.base, c.valid)
		if v != c.v || e != c.e {
			t.Errorf("spStrtoumax(%q, %d, %q) = %d, %d; want %d, %d", c.s, c.base, c.valid, v, e, c.v, c.e)
		}
	}
}

// limitEnv is a harness Env with a read limit and a context the caller
// controls.
func limitEnv(t *testing.T, ctx context.Context, files map[string]string, stdin io.Reader, max int64) (*Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	vars, list := harnessVars(nil)
	var out, errb bytes.Buffer
	return &Env{
		Ctx: ctx, FS: newStore(t, files), Dir: "/work", Stdin: stdin, Stdout: &out, Stderr: &errb,
		Getenv: func(n string) string { return vars[n] }, Environ: func() []string { return list },
		Limits: Limits{MaxReadBytes: max},
	}, &out, &errb
}

// endless is an input that never ends.
// reading is an endless input that closes started on its first Read: the
// event a cancellation test waits for (the command is consuming its input).
type reading struct {
	endless
	once    sync.Once
	started chan struct{}
}

func newReading() *reading { return &reading{started: make(chan struct{})} }

func (r *reading) Read(p []byte) (int, error) {
	r.once.Do(func() { close(r.started) })
	return r.endless.Read(p)
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "ab\n"[i%3]
	}
	return len(p), nil
}

func TestSplitCancelAndLimits(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in := newReading()
	env, _, _ := limitEnv(t, ctx, nil, in, 1<<20)
	done := make(chan int)
	go func() { done <- Split(env, []string{"split", "-b", "1M"}) }()
	<-in.started
	cancel()
	select {
	case code := <-done:
		if code == 0 {
			t.Errorf("cancelled split exited 0")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("split did not stop when cancelled")
	}
	// -n on stdin is refused before anything is read.
	env, _, errb := limitEnv(t, context.Background(), nil, endless{}, 10)
	if code := Split(env, []string{"split", "-n", "2"}); code != 1 || errb.String() != "split: -: cannot determine file size\n" {
		t.Errorf("split -n over the limit: code %d, stderr %q", code, errb.String())
	}
}
