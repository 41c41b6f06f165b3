// Package linecmd runs the commands that the line-oriented test backends
// share: runtest.Lines and internal/run's own test backend (mini), which
// cannot import runtest (runtest imports run). It imports only the standard
// library, so both can. Only tests and runtest import it (internal/archtest
// enforces that).
package linecmd

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Run runs one command line's command cmd with its argument arg, if it is
// one of the shared commands, and reports whether it was:
//
//	echo TEXT        TEXT and a newline to stdout
//	err TEXT         TEXT and a newline to stderr
//	lines N          N lines "%07d\n" (8 bytes each) to stdout, one write each
//	big N            N bytes of BigOutput to stdout, in writes of 64 KiB
//	sleep DURATION   sleep, or return ctx's error when cancelled first
//	cat              copy stdin to stdout
//	sum              read stdin to its end; print its length and SHA-256
//
// err is the command's error (a write's, or ctx's for sleep).
func Run(ctx context.Context, cmd, arg string, stdin io.Reader, stdout, stderr io.Writer) (ok bool, err error) {
	switch cmd {
	case "echo":
		_, err = io.WriteString(stdout, arg+"\n")
	case "err":
		_, err = io.WriteString(stderr, arg+"\n")
	case "lines":
		n, _ := strconv.Atoi(arg)
		for i := range n {
			if _, err = fmt.Fprintf(stdout, "%07d\n", i); err != nil {
				break
			}
		}
	case "big":
		n, _ := strconv.Atoi(arg)
		data := BigOutput(n)
		for len(data) > 0 && err == nil {
			k := min(len(data), 64<<10)
			_, err = stdout.Write(data[:k])
			data = data[k:]
		}
	case "sleep":
		d, _ := time.ParseDuration(arg)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			err = ctx.Err()
		}
	case "cat":
		_, err = io.Copy(stdout, stdin)
	case "sum":
		h := sha256.New()
		var n int64
		if n, err = io.Copy(h, stdin); err == nil {
			_, err = fmt.Fprintf(stdout, "%d %x\n", n, h.Sum(nil))
		}
	default:
		return false, nil
	}
	return true, err
}

// BigOutput is the output of "big N": lines of their offset ("%015d\n"),
// cut at n bytes.
func BigOutput(n int) []byte {
	b := make([]byte, 0, n+16)
	for len(b) < n {
		b = fmt.Appendf(b, "%015d\n", len(b))
	}
	return b[:n]
}
