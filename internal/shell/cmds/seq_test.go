package cmds

import (
	"context"
	"testing"
	"time"
)

func TestSeq(t *testing.T) {
	th := "Try 'seq --help' for more information.\n"
	runTextRows(t, []textRow{
		{args: []string{"seq", "3"}, out: "1\n2\n3\n"},
		{args: []string{"seq", "0"}, out: ""},
		{args: []string{"seq", "2", "4"}, out: "2\n3\n4\n"},
		{args: []string{"seq", "1", "2", "7"}, out: "1\n3\n5\n7\n"},
		{args: []string{"seq", "5", "-1", "1"}, out: "5\n4\n3\n2\n1\n"},
		{args: []string{"seq", "-3", "-1"}, out: "-3\n-2\n-1\n"},
		{args: []string{"seq", "3", "1"}, out: ""},
		{args: []string{"seq", "-s,", "3"}, out: "1,2,3\n"},
		{args: []string{"seq", "-s", ", ", "3"}, out: "1, 2, 3\n"},
		{args: []string{"seq", "-s", "", "3"}, out: "123\n"},
		{args: []string{"seq", "-w", "8", "10"}, out: "08\n09\n10\n"},
		{args: []string{"seq", "-w", "-1", "1"}, out: "-1\n00\n01\n"},
		// Option parsing ends at the first negative number, as GNU's.
		{args: []string{"seq", "-1", "-w", "1"}, code: 1, errOut: "seq: invalid floating point argument: ‘-w’\n" + th},
		{args: []string{"seq", "-w", "1", "0.5", "3"}, out: "1.0\n1.5\n2.0\n2.5\n3.0\n"},
		{args: []string{"seq", "-w", "-.5", "0.5", "1"}, out: "-0.5\n00.0\n00.5\n01.0\n"},
		{args: []string{"seq", "0", "0.1", "0.5"}, out: "0.0\n0.1\n0.2\n0.3\n0.4\n0.5\n"},
		{args: []string{"seq", "0", "0.1", "1"}, out: "0.0\n0.1\n0.2\n0.3\n0.4\n0.5\n0.6\n0.7\n0.8\n0.9\n1.0\n"},
		{args: []string{"seq", "1", "0.25", "2"}, out: "1.00\n1.25\n1.50\n1.75\n2.00\n"},
		{args: []string{"seq", "0.1", "0.2"}, out: "0.1\n"},
		{args: []string{"seq", "2", "-0.5", "1"}, out: "2.0\n1.5\n1.0\n"},
		{args: []string{"seq", "1", "1e3", "3000"}, out: "1\n1001\n2001\n"},
		{args: []string{"seq", "1.5e1", "16"}, out: "15\n16\n"},
		{args: []string{"seq", "1e-2", "0.01", "0.03"}, out: "0.01\n0.02\n0.03\n"},
		{args: []string{"seq", "-f", "%05.1f", "1", "3"}, out: "001.0\n002.0\n003.0\n"},
		{args: []string{"seq", "-f", "n%g", "2"}, out: "n1\nn2\n"},
		{args: []string{"seq", "-f", "%.2e", "1", "2"}, out: "1.00e+00\n2.00e+00\n"},
		{args: []string{"seq", "-f", "%g%%", "1"}, out: "1%\n"},
		{args: []string{"seq", "--format=%f", "1"}, out: "1.000000\n"},
		{args: []string{"seq", "-f", "%g", "1000000", "1000000"}, out: "1e+06\n"},
		{args: []string{"seq", "--separator=:", "--equal-width", "9", "11"}, out: "09:10:11\n"},
		{args: []string{"seq"}, code: 1, errOut: "seq: missing operand\n" + th},
		{args: []string{"seq", "a"}, code: 1, errOut: "seq: invalid floating point argument: ‘a’\n" + th},
		{args: []string{"seq", "nan"}, code: 1, errOut: "seq: invalid ‘not-a-number’ argument: ‘nan’\n" + th},
		{args: []string{"seq", "1", "0", "5"}, code: 1, errOut: "seq: invalid Zero increment value: ‘0’\n" + th},
		{args: []string{"seq", "1", "2", "3", "4"}, code: 1, errOut: "seq: extra operand ‘4’\n" + th},
		{args: []string{"seq", "-f", "%d", "3"}, code: 1, errOut: "seq: format ‘%d’ has unknown %d directive\n"},
		{args: []string{"seq", "-f", "x", "3"}, code: 1, errOut: "seq: format ‘x’ has no % directive\n"},
		{args: []string{"seq", "-f", "%g%g", "3"}, code: 1, errOut: "seq: format ‘%g%g’ has too many % directives\n"},
		{args: []string{"seq", "-f", "%g", "-w", "3"}, code: 1, errOut: "seq: format string may not be specified when printing equal width strings\n" + th},
		{args: []string{"seq", "-x"}, code: 1, errOut: "seq: invalid option -- 'x'\n" + th},
	})
}

func TestSeqInfCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	env := &Env{Ctx: ctx, Stdout: discardWriter{}, Stderr: discardWriter{}}
	done := make(chan int)
	go func() { done <- Seq(env, []string{"seq", "inf"}) }()
	select {
	case code := <-done:
		if code != 1 {
			t.Fatalf("code %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("seq inf did not stop on cancel")
	}
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
