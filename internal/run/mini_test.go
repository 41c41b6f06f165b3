package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/desk-dev/desk/internal/run/runtest/linecmd"
	"github.com/desk-dev/desk/internal/vfs"
)

// mini is the test backend: a line-oriented language, one command per
// line, those of package linecmd and:
//
//	drip N           N one-byte writes "x" to stdout
//	wait GATE        block until the test opens GATE, or ctx is cancelled
//	hang GATE        block until the test opens GATE, ignoring ctx
//	spin             busy-loop until ctx is cancelled
//	burn             busy-loop (no yield) until ctx is cancelled
//	metered          from here on the job's goroutine is metered (a ThreadMeter: Job.MeterCPU)
//	exit N           end with exit code N
//	value JSON       end with exit code 0 and this value
//	fail MESSAGE     return an error
//	panic            panic
//	write PATH DATA  vfs WriteFile with the job's ctx
//	writeh PATH DATA create PATH through a handle, write DATA, Close (no Sync)
//	mkdir PATH       vfs Mkdir
//	rm PATH          vfs RemoveAll
//	mv OLD NEW       vfs Rename
//	env              the environment, sorted, one K=V per line
//	gulp N           read N bytes of stdin, then print "read N"
//	input            the JSON input to stdout
//	cwd | backend | id   print the job's field
type mini struct {
	mu    sync.Mutex
	gates map[string]chan struct{}
	jobs  []*Job
}

var _ Backend = (*mini)(nil)

// burnSink keeps busy loops from being optimized away.
var burnSink atomic.Int64

func newMini() *mini { return &mini{gates: map[string]chan struct{}{}} }

func (m *mini) gate(name string) chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.gates[name]
	if !ok {
		g = make(chan struct{})
		m.gates[name] = g
	}
	return g
}

// open opens a gate (once).
func (m *mini) open(name string) {
	g := m.gate(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-g:
	default:
		close(g)
	}
}

func (m *mini) Run(ctx context.Context, job *Job) (Outcome, error) {
	m.mu.Lock()
	m.jobs = append(m.jobs, job)
	m.mu.Unlock()
	for line := range strings.SplitSeq(job.Source, "\n") {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		ok, err := linecmd.Run(ctx, cmd, arg, job.Stdin, job.Stdout, job.Stderr)
		if ok {
			if err != nil {
				return Outcome{}, err
			}
			continue
		}
		switch cmd {
		case "":
		case "drip":
			n, _ := strconv.Atoi(arg)
			for range n {
				if _, err = job.Stdout.Write([]byte("x")); err != nil {
					break
				}
			}
		case "wait":
			select {
			case <-m.gate(arg):
			case <-ctx.Done():
				return Outcome{}, ctx.Err()
			}
		case "hang":
			<-m.gate(arg)
		case "metered":
			var tm ThreadMeter
			job.MeterCPU(tm.Read)
			defer tm.Enter()()
		case "burn":
			s := 0
			for n := 0; ctx.Err() == nil; n++ {
				s += n * n
			}
			burnSink.Add(int64(s))
			return Outcome{}, ctx.Err()
		case "spin":
			for ctx.Err() == nil {
				runtime.Gosched()
			}
			return Outcome{}, ctx.Err()
		case "exit":
			n, _ := strconv.Atoi(arg)
			return Outcome{ExitCode: n}, nil
		case "value":
			return Outcome{Value: json.RawMessage(arg)}, nil
		case "fail":
			return Outcome{}, errors.New(arg)
		case "panic":
			panic("mini: " + arg)
		case "write":
			p, data, _ := strings.Cut(arg, " ")
			err = job.FS.WriteFile(ctx, p, []byte(data), 0o644)
		case "writeh":
			p, data, _ := strings.Cut(arg, " ")
			var h *vfs.File
			if h, err = job.FS.Create(ctx, p); err == nil {
				if _, err = h.Write([]byte(data)); err != nil {
					h.Close()
				} else {
					err = h.Close()
				}
			}
		case "mkdir":
			err = job.FS.Mkdir(ctx, arg, 0o755)
		case "rm":
			err = job.FS.RemoveAll(ctx, arg)
		case "mv":
			a, b, _ := strings.Cut(arg, " ")
			err = job.FS.Rename(ctx, a, b, 0)
		case "env":
			keys := make([]string, 0, len(job.Env))
			for k := range job.Env {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				fmt.Fprintf(job.Stdout, "%s=%s\n", k, job.Env[k])
			}
		case "gulp":
			n, _ := strconv.Atoi(arg)
			if _, err = io.ReadFull(job.Stdin, make([]byte, n)); err == nil {
				_, err = fmt.Fprintf(job.Stdout, "read %d\n", n)
			}
		case "input":
			_, err = job.Stdout.Write(job.Input)
		case "cwd":
			_, err = io.WriteString(job.Stdout, job.Cwd+"\n")
		case "backend":
			_, err = io.WriteString(job.Stdout, job.Backend+"\n")
		case "id":
			_, err = io.WriteString(job.Stdout, job.ID+"\n")
		default:
			fmt.Fprintf(job.Stderr, "mini: %s: unknown command\n", cmd)
			return Outcome{ExitCode: 127}, nil
		}
		if err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{}, nil
}
